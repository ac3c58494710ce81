//! A drive's metadata mutated on either store (the first byte picks tiering or caching,
//! and whether fsck repairs, discarding what cannot be recovered), then fsck, repair and
//! reopening it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, patches)) = data.split_first() else { return };
    tierlab_block_device::fuzzing::Template::get(mode & 1 == 1).recover_mutated(patches);
});
