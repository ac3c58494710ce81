//! `tierlab ctl` request lines answered by a live drive.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tierlab_block_device::fuzzing::ctl_lines(data);
});
