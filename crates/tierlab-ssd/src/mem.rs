//! Allocation of the model's large state arrays (an entry per NAND page, per logical
//! page, per cached mapping entry: hundreds of MB for a real drive). They are read at
//! random, so with 4 KiB memory pages nearly every access also misses the TLB; on Linux
//! they are advised to use transparent huge pages before they are first written, which
//! also cuts the page faults of filling them 512-fold. The advice is a hint: where the
//! kernel ignores it, only speed changes.

/// A vector of `len` copies of `value`, on huge pages where the kernel allows.
pub(crate) fn filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    advise_huge_pages(&mut v);
    v.resize(len, value);
    v
}

/// Ask for huge pages for the (still untouched) capacity of `v`.
#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(v: &mut Vec<T>) {
    const PAGE_BYTES: usize = 4096;
    /// Below two huge pages, no aligned huge page is certain to fit.
    const MIN_BYTES: usize = 4 << 20;
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < MIN_BYTES {
        return;
    }
    let start = v.as_mut_ptr() as usize;
    let first = start.next_multiple_of(PAGE_BYTES);
    let end = (start + bytes) / PAGE_BYTES * PAGE_BYTES;
    // SAFETY: [first, end) lies inside the vector's own allocation and is page aligned;
    // MADV_HUGEPAGE changes how that memory is backed, never its contents. Failure is
    // harmless (ordinary pages), so the result is not checked.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_: &mut Vec<T>) {}

#[cfg(test)]
mod tests {
    #[test]
    fn filled_holds_len_copies_small_and_large() {
        let small = super::filled(3, 7u8);
        assert_eq!(small, vec![7u8; 3]);
        let large = super::filled(3 << 20, u32::MAX);
        assert_eq!(large.len(), 3 << 20);
        assert!(large.iter().all(|&x| x == u32::MAX));
    }
}
