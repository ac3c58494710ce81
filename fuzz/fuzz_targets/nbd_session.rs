//! A whole NBD session: a valid handshake (simple or structured replies, by the first
//! byte) or the input's own, then arbitrary transmission bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};
use tierlab_nbd::{Export, MemoryExport};

fuzz_target!(|data: &[u8]| {
    static EXPORT: OnceLock<Arc<dyn Export>> = OnceLock::new();
    let export = EXPORT.get_or_init(|| Arc::new(MemoryExport::new(1 << 20))).clone();
    let Some((&mode, rest)) = data.split_first() else { return };
    let mut input = match mode % 3 {
        0 => Vec::new(),
        m => tierlab_nbd::fuzzing::go_prefix(m == 2),
    };
    input.extend_from_slice(rest);
    tierlab_nbd::fuzzing::session(export, &input);
});
