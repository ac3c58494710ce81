//! A real block device or file as a probe target: reads with O_DIRECT (past the page
//! cache), timed by the monotonic clock, pauses spun rather than slept (a sleep can
//! overshoot by more than a sector's time).

use crate::{ProbeError, Target};
use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::time::{Duration, Instant};

/// Alignment of the read buffer (O_DIRECT needs the device's logical block alignment).
const ALIGN: usize = 4096;
/// The largest read the probe issues: a track of up to 4096 sectors of 4 KiB.
const MAX_READ: usize = 16 << 20;

pub struct DeviceTarget {
    path: String,
    file: File,
    sectors: u64,
    sector_bytes: u64,
    buf: AlignedBuf,
    pause: Duration,
}

struct AlignedBuf {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl AlignedBuf {
    fn new(len: usize) -> Option<AlignedBuf> {
        let layout = std::alloc::Layout::from_size_align(len, ALIGN).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        (!ptr.is_null()).then_some(AlignedBuf { ptr, layout })
    }

    fn slice(&mut self, len: usize) -> &mut [u8] {
        // SAFETY: `ptr` points to `layout.size()` initialised bytes owned by `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, len.min(self.layout.size())) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

// SAFETY: the buffer is owned by one target and only reached through `&mut self`.
unsafe impl Send for AlignedBuf {}

impl DeviceTarget {
    /// Open `path` for direct reads in units of `sector_bytes` (512 unless the device's
    /// logical block is larger; a multiple of 512).
    pub fn open(path: &std::path::Path, sector_bytes: u64) -> Result<DeviceTarget, ProbeError> {
        let name = path.display().to_string();
        let fail = |message: String| ProbeError::Open { path: name.clone(), message };
        if !(512..=65536).contains(&sector_bytes) || !sector_bytes.is_multiple_of(512) {
            return Err(fail(format!("a sector of {sector_bytes} bytes: expected a multiple of 512 up to 65536")));
        }
        let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path).map_err(|e| {
            if e.raw_os_error() == Some(libc::EINVAL) {
                fail("cannot open with O_DIRECT (the file system does not support direct I/O; tmpfs does not): probe a block device or a file on ext4/xfs".into())
            } else {
                fail(format!("cannot open: {e}"))
            }
        })?;
        let bytes = file_size(&file).map_err(|e| fail(format!("cannot tell its size: {e}")))?;
        let sectors = bytes / sector_bytes;
        let buf = AlignedBuf::new(MAX_READ).ok_or_else(|| fail("cannot allocate a read buffer".into()))?;
        let mut t = DeviceTarget { path: name.clone(), file, sectors, sector_bytes, buf, pause: Duration::ZERO };
        // One direct read proves the alignment works.
        if sectors > 0 {
            t.read(0, 1).map_err(|e| fail(format!("a direct read failed ({e}); the device's logical block may be larger than {sector_bytes} bytes (--sector-bytes)")))?;
        }
        Ok(t)
    }
}

fn file_size(file: &File) -> std::io::Result<u64> {
    use std::io::{Seek, SeekFrom};
    // Works for regular files and block devices alike.
    let mut f = file;
    let end = f.seek(SeekFrom::End(0))?;
    f.seek(SeekFrom::Start(0))?;
    Ok(end)
}

impl Target for DeviceTarget {
    fn sectors(&self) -> u64 {
        self.sectors
    }

    fn sector_bytes(&self) -> u64 {
        self.sector_bytes
    }

    fn read(&mut self, lbn: u64, n: u64) -> Result<u64, ProbeError> {
        let len = (n * self.sector_bytes) as usize;
        if len > MAX_READ || lbn + n > self.sectors {
            return Err(ProbeError::Unusable(format!("{}: a read of {n} sectors at {lbn} is beyond the device or the probe's {MAX_READ}-byte buffer", self.path)));
        }
        let start = Instant::now() + std::mem::take(&mut self.pause);
        // Long pauses (waiting out a busy host) sleep; the last millisecond spins, so that
        // the read starts at its rotational phase.
        if let Some(long) = start.checked_duration_since(Instant::now()).and_then(|d| d.checked_sub(Duration::from_millis(1))) {
            std::thread::sleep(long);
        }
        while Instant::now() < start {
            std::hint::spin_loop();
        }
        let t0 = Instant::now();
        let buf = self.buf.slice(len);
        let mut done = 0;
        while done < len {
            let k = self
                .file
                .read_at(&mut buf[done..], lbn * self.sector_bytes + done as u64)
                .map_err(|source| ProbeError::Read { path: self.path.clone(), lbn, sectors: n, source })?;
            if k == 0 {
                return Err(ProbeError::Read { path: self.path.clone(), lbn, sectors: n, source: std::io::ErrorKind::UnexpectedEof.into() });
            }
            done += k;
        }
        Ok(t0.elapsed().as_nanos() as u64)
    }

    fn pause(&mut self, ns: u64) {
        self.pause += Duration::from_nanos(ns);
    }
}
