//! `stats` on a trace of very large requests allocates in proportion to the requests'
//! number, not their size. This test binary counts every allocation and refuses any
//! that would take the live total past a limit (the process then aborts: the test fails
//! rather than exhausting the machine).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use tierlab_trace::{stats, ReadOptions, TraceReader};

/// Live heap bytes allowed to this test binary.
const LIMIT_BYTES: usize = 64 << 20;

struct Capped;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        if live > LIMIT_BYTES {
            LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
            return std::ptr::null_mut();
        }
        PEAK.fetch_max(live, Ordering::SeqCst);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Capped = Capped;

#[test]
fn stats_on_gib_requests_stays_small() {
    // 128 MSR requests of 1 GiB each, 2 GiB apart: 128 GiB touched, 32 M blocks of 4 KiB.
    let mut text = String::new();
    for i in 0..128u64 {
        let offset = i * (2 << 30);
        text.push_str(&format!(
            "{},hm,0,Read,{offset},{},10\n",
            128_166_385_295_514_663 + i * 10_000,
            1u64 << 30
        ));
    }
    let mut reader = TraceReader::from_bufread(
        std::io::Cursor::new(text.into_bytes()),
        "gib.csv",
        &ReadOptions::default(),
    )
    .unwrap();
    let s = stats(&mut reader).unwrap();
    assert_eq!(s.requests, 128);
    assert_eq!(s.working_set_bytes, 128 << 30);
    let peak = PEAK.load(Ordering::SeqCst);
    assert!(peak < 16 << 20, "peak heap {peak} bytes");
}
