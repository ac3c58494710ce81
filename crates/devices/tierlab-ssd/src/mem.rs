//! Allocation of the model's large state arrays (an entry per NAND page, per logical
//! page, per cached mapping entry: hundreds of MB for a real drive). They are read at
//! random, so with 4 KiB memory pages nearly every access also misses the TLB; on Linux
//! they are advised to use transparent huge pages before they are first written, which
//! also cuts the page faults of filling them 512-fold. The advice is a hint: where the
//! kernel ignores it, only speed changes.

/// A table of `len` records of `W` words, every word `u32::MAX` (the "none" of the
/// model's maps) until written, that costs no memory until written: words are stored
/// inverted, so a fresh table is the zero-filled allocation the kernel hands out untouched
/// (and fills on first write, on huge pages where allowed). A drive model sized like a
/// 300 GB SSD then occupies memory for the part of it a run uses, and building it is
/// instant, where filling its tables took a third of a second and 600 MB per drive.
#[derive(Clone, Debug)]
pub(crate) struct NoneTable<const W: usize> {
    inverted: Vec<[u32; W]>,
}

impl<const W: usize> NoneTable<W> {
    pub(crate) fn new(len: usize) -> Self {
        // A zero element makes `vec!` ask the allocator for zeroed memory, which a large
        // allocation gets straight from the kernel, untouched.
        let mut inverted = vec![[0u32; W]; len];
        advise_huge_pages(&mut inverted);
        NoneTable { inverted }
    }

    pub(crate) fn len(&self) -> usize {
        self.inverted.len()
    }

    /// Word `k` of record `i`.
    #[inline]
    pub(crate) fn word(&self, i: usize, k: usize) -> u32 {
        !self.inverted[i][k]
    }

    #[inline]
    pub(crate) fn set_word(&mut self, i: usize, k: usize, value: u32) {
        self.inverted[i][k] = !value;
    }

}

/// An empty vector with room for `capacity` elements, on huge pages where the kernel
/// allows; only what is pushed is ever written.
pub(crate) fn reserved<T>(capacity: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(capacity);
    advise_huge_pages(&mut v);
    v
}

/// A vector of `len` copies of `value`, on huge pages where the kernel allows.
pub(crate) fn filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = reserved(len);
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
    fn none_table_reads_max_until_written() {
        let mut t = super::NoneTable::<2>::new(3 << 20);
        assert_eq!((t.len(), t.word(5, 0), t.word(3 << 19, 1)), (3 << 20, u32::MAX, u32::MAX));
        t.set_word(5, 0, 7);
        t.set_word(6, 1, 9);
        assert_eq!((t.word(5, 0), t.word(5, 1), t.word(6, 0), t.word(6, 1)), (7, u32::MAX, u32::MAX, 9));
    }

    #[test]
    fn filled_holds_len_copies_small_and_large() {
        let small = super::filled(3, 7u8);
        assert_eq!(small, vec![7u8; 3]);
        let large = super::filled(3 << 20, u32::MAX);
        assert_eq!(large.len(), 3 << 20);
        assert!(large.iter().all(|&x| x == u32::MAX));
    }
}
