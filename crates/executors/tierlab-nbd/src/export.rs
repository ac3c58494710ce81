//! The block device being served (`Export`), and two reference exports:
//! `MemoryExport` (RAM, for tests) and `FileExport` (a regular file or device).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::RwLock;

/// Largest buffer the default `write_zeroes` writes at once.
const ZERO_CHUNK_BYTES: usize = 1 << 20;

/// A block device served over NBD.
///
/// The server calls it from many threads at once; requests arrive already
/// checked against `size_bytes`, so `offset + len` never exceeds the size.
/// NBD gives no ordering between overlapping requests in flight, so an export
/// needs no cross-request atomicity, only memory safety.
pub trait Export: Send + Sync {
    /// Size of the device in bytes; fixed for the life of the server.
    fn size_bytes(&self) -> u64;
    /// Fills `buf` with the bytes at `offset`.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Writes `data` at `offset`; with `fua`, durable before returning.
    fn write_at(&self, offset: u64, data: &[u8], fua: bool) -> io::Result<()>;
    /// Makes every completed write durable.
    fn flush(&self) -> io::Result<()>;
    /// Hint that a range is no longer needed; its contents become unspecified.
    fn trim(&self, offset: u64, len: u64) -> io::Result<()>;
    /// Makes a range read as zeroes. `may_trim` allows deallocating it.
    ///
    /// The default writes a zero buffer in bounded chunks.
    fn write_zeroes(&self, offset: u64, len: u64, fua: bool, may_trim: bool) -> io::Result<()> {
        let _ = may_trim;
        write_zero_chunks(self, offset, len, fua)
    }
    /// Human-readable description, sent as `NBD_INFO_DESCRIPTION`.
    fn description(&self) -> String {
        String::new()
    }
    /// Whether flush and FUA on one connection are visible on all others
    /// (advertised as `NBD_FLAG_CAN_MULTI_CONN`).
    fn multi_conn(&self) -> bool {
        true
    }
}

/// Zeroes `len` bytes at `offset` through `write_at`, one bounded buffer at a time.
pub fn write_zero_chunks<E: Export + ?Sized>(
    export: &E,
    offset: u64,
    len: u64,
    fua: bool,
) -> io::Result<()> {
    let zeros = vec![0u8; (len.min(ZERO_CHUNK_BYTES as u64)) as usize];
    let mut done = 0u64;
    while done < len {
        let n = (len - done).min(zeros.len() as u64) as usize;
        export.write_at(offset + done, &zeros[..n], false)?;
        done += n as u64;
    }
    if fua {
        export.flush()?;
    }
    Ok(())
}

/// Converts an `offset, len` pair into a checked end position.
fn range_end(offset: u64, len: usize, size: u64) -> io::Result<u64> {
    match offset.checked_add(len as u64) {
        Some(end) if end <= size => Ok(end),
        _ => Err(io::Error::from_raw_os_error(libc::EINVAL)),
    }
}

/// Bytes per lock stripe of a `MemoryExport`.
const STRIPE_BYTES: u64 = 1 << 20;

/// A RAM-backed export, striped into 1 MiB regions with their own lock so
/// concurrent requests to different regions do not serialise.
pub struct MemoryExport {
    size_bytes: u64,
    stripes: Vec<RwLock<Vec<u8>>>,
}

impl MemoryExport {
    /// A zero-filled export of `size_bytes`.
    pub fn new(size_bytes: u64) -> Self {
        let mut stripes = Vec::new();
        let mut at = 0;
        while at < size_bytes {
            let n = (size_bytes - at).min(STRIPE_BYTES);
            stripes.push(RwLock::new(vec![0u8; n as usize]));
            at += n;
        }
        MemoryExport {
            size_bytes,
            stripes,
        }
    }

    /// A copy of the whole contents (for tests).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.size_bytes as usize];
        // The range is the whole export, so it is always in bounds.
        let _ = self.read_at(0, &mut out);
        out
    }

    /// Calls `f(stripe, offset within stripe, start, end)` for each stripe the
    /// byte range `[offset, offset + len)` touches; `start..end` index the caller's buffer.
    fn for_each_piece(
        &self,
        offset: u64,
        len: usize,
        mut f: impl FnMut(&RwLock<Vec<u8>>, usize, usize, usize),
    ) -> io::Result<()> {
        let end = range_end(offset, len, self.size_bytes)?;
        let mut at = offset;
        while at < end {
            let stripe = (at / STRIPE_BYTES) as usize;
            let within = (at % STRIPE_BYTES) as usize;
            let n = (end - at).min(STRIPE_BYTES - within as u64) as usize;
            let start = (at - offset) as usize;
            f(&self.stripes[stripe], within, start, start + n);
            at += n as u64;
        }
        Ok(())
    }
}

impl Export for MemoryExport {
    fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let len = buf.len();
        self.for_each_piece(offset, len, |stripe, within, start, end| {
            let data = stripe.read().unwrap_or_else(|e| e.into_inner());
            buf[start..end].copy_from_slice(&data[within..within + end - start]);
        })
    }

    fn write_at(&self, offset: u64, data: &[u8], _fua: bool) -> io::Result<()> {
        self.for_each_piece(offset, data.len(), |stripe, within, start, end| {
            let mut mem = stripe.write().unwrap_or_else(|e| e.into_inner());
            mem[within..within + end - start].copy_from_slice(&data[start..end]);
        })
    }

    fn flush(&self) -> io::Result<()> {
        Ok(())
    }

    /// Trimmed ranges read back as zeroes.
    fn trim(&self, offset: u64, len: u64) -> io::Result<()> {
        self.write_zeroes(offset, len, false, true)
    }

    fn write_zeroes(&self, offset: u64, len: u64, _fua: bool, _may_trim: bool) -> io::Result<()> {
        let len = usize::try_from(len).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        self.for_each_piece(offset, len, |stripe, within, start, end| {
            let mut mem = stripe.write().unwrap_or_else(|e| e.into_inner());
            mem[within..within + end - start].fill(0);
        })
    }

    fn description(&self) -> String {
        "tierlab in-memory export".to_string()
    }
}

/// An export backed by a file (or block device) through positioned I/O.
///
/// Flush is `fdatasync`; FUA writes are followed by `fdatasync`; trim punches
/// a hole (keeping the size) and falls back to writing zeroes where the file
/// system cannot.
pub struct FileExport {
    file: File,
    size_bytes: u64,
}

impl FileExport {
    /// Opens `path` for reading, and for writing unless `read_only`.
    pub fn open(path: impl AsRef<Path>, read_only: bool) -> io::Result<Self> {
        let file = OpenOptions::new().read(true).write(!read_only).open(path)?;
        Self::new(file)
    }

    /// Serves an already open file; its size is taken now and stays fixed.
    pub fn new(file: File) -> io::Result<Self> {
        let meta = file.metadata()?;
        let size_bytes = if meta.is_file() {
            meta.len()
        } else {
            // A block device reports length 0 in metadata; seek to its end instead.
            use std::io::Seek;
            (&file).seek(io::SeekFrom::End(0))?
        };
        Ok(FileExport { file, size_bytes })
    }

    /// Deallocates a range so it reads as zeroes, if the file system supports it.
    fn punch_hole(&self, offset: u64, len: u64) -> io::Result<()> {
        let (Ok(off), Ok(n)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        };
        let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
        // SAFETY: fallocate only reads its integer arguments; the descriptor is
        // owned by `self.file` and stays open for the duration of the call.
        let rc = unsafe { libc::fallocate(self.file.as_raw_fd(), mode, off, n) };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

impl Export for FileExport {
    fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.read_exact_at(buf, offset)
    }

    fn write_at(&self, offset: u64, data: &[u8], fua: bool) -> io::Result<()> {
        self.file.write_all_at(data, offset)?;
        if fua {
            self.file.sync_data()?;
        }
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn trim(&self, offset: u64, len: u64) -> io::Result<()> {
        self.write_zeroes(offset, len, false, true)
    }

    fn write_zeroes(&self, offset: u64, len: u64, fua: bool, may_trim: bool) -> io::Result<()> {
        if may_trim && self.punch_hole(offset, len).is_ok() {
            return if fua { self.flush() } else { Ok(()) };
        }
        write_zero_chunks(self, offset, len, fua)
    }

    fn description(&self) -> String {
        "tierlab file export".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise(e: &dyn Export) {
        let size = e.size_bytes();
        let data: Vec<u8> = (0..3 * STRIPE_BYTES / 2)
            .map(|i| (i % 251) as u8 + 1)
            .collect();
        // Straddles the first stripe boundary.
        e.write_at(STRIPE_BYTES / 2, &data, true).unwrap();
        let mut back = vec![0u8; data.len()];
        e.read_at(STRIPE_BYTES / 2, &mut back).unwrap();
        assert_eq!(back, data);
        e.write_zeroes(STRIPE_BYTES, 4096, false, false).unwrap();
        e.trim(STRIPE_BYTES + 8192, 4096).unwrap();
        e.read_at(STRIPE_BYTES, &mut back[..12288]).unwrap();
        assert!(back[..4096].iter().all(|&b| b == 0));
        assert!(back[4096..8192].iter().all(|&b| b != 0));
        assert!(back[8192..12288].iter().all(|&b| b == 0));
        e.flush().unwrap();
        assert!(e.read_at(size - 1, &mut [0u8; 2]).is_err());
    }

    #[test]
    fn memory_export_reads_back_across_stripes() {
        let m = MemoryExport::new(3 * STRIPE_BYTES + 5);
        exercise(&m);
        assert_eq!(m.to_vec().len() as u64, 3 * STRIPE_BYTES + 5);
    }

    #[test]
    fn file_export_reads_back_and_trims_to_zero() {
        let path = std::env::temp_dir().join(format!("tierlab-nbd-export-{}", std::process::id()));
        let f = File::create(&path).unwrap();
        f.set_len(3 * STRIPE_BYTES).unwrap();
        drop(f);
        let e = FileExport::open(&path, false).unwrap();
        assert_eq!(e.size_bytes(), 3 * STRIPE_BYTES);
        exercise(&e);
        std::fs::remove_file(&path).unwrap();
    }
}
