//! The NBD handshake fed arbitrary client bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use tierlab_nbd::MemoryExport;

fuzz_target!(|data: &[u8]| {
    static EXPORT: OnceLock<MemoryExport> = OnceLock::new();
    tierlab_nbd::fuzzing::handshake(EXPORT.get_or_init(|| MemoryExport::new(1 << 20)), data);
});
