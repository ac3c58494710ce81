//! A backing store: a file or a block device, read and written at byte offsets.
//!
//! For crash tests, `TIERLAB_POWER_CUT=SEED` makes writes volatile until `sync`, as in a
//! drive's cache with a power cut: written blocks stay in memory, reach the file at random
//! moments and in random order, and only `sync` promises them. A SIGKILL then loses exactly
//! what a power cut may lose.

use crate::layout::{Role, BLOCK_BYTES};
use crate::DriveError;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub struct Store {
    file: File,
    pub path: PathBuf,
    pub role: Role,
    len_bytes: u64,
    volatile: Option<Mutex<Volatile>>,
}

impl Store {
    /// Open `path`; a missing file is created with `create_bytes` (sparse, so all zero).
    /// Returns the store and whether it was created.
    ///
    /// The store is locked (an exclusive `flock`, held until it is dropped, so until the
    /// process exits), and a block device is also opened `O_EXCL`, which the kernel refuses
    /// while it is mounted or in use: two processes never have one store open at once.
    pub fn open(path: &Path, role: Role, create_bytes: Option<u64>) -> Result<(Store, bool), DriveError> {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let io = |e: std::io::Error| DriveError::Io(format!("{}: {e}", path.display()));
        let exists = path.exists();
        let file = if exists {
            let device = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device());
            let mut o = OpenOptions::new();
            o.read(true).write(true);
            if device {
                o.custom_flags(libc::O_EXCL);
            }
            match o.open(path) {
                Ok(f) => f,
                Err(e) if device && e.raw_os_error() == Some(libc::EBUSY) => {
                    return Err(DriveError::InUse(format!("{}: the block device is in use (mounted, or opened exclusively by another program)", path.display())))
                }
                Err(e) => return Err(io(e)),
            }
        } else if let Some(bytes) = create_bytes {
            let f = OpenOptions::new().read(true).write(true).create_new(true).open(path).map_err(io)?;
            f.set_len(bytes).map_err(io)?;
            f
        } else {
            return Err(DriveError::Invalid(format!("{}: no such file (`tierlab serve --format` with --ssd-size and --hdd-size creates a drive on new files)", path.display())));
        };
        lock(&file, path)?;
        // Seeking to the end gives the size of block devices as well as files.
        let len_bytes = (&file).seek(SeekFrom::End(0)).map_err(io)?;
        let volatile = std::env::var("TIERLAB_POWER_CUT").ok().and_then(|s| s.parse::<u64>().ok()).map(|seed| {
            let salt = match role {
                Role::Ssd => 1,
                Role::Hdd => 2,
            };
            Mutex::new(Volatile { blocks: BTreeMap::new(), rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt })
        });
        Ok((Store { file, path: path.to_path_buf(), role, len_bytes, volatile }, !exists))
    }

    /// The first byte that is not zero, if any: a new drive goes only on stores that hold
    /// nothing. Only the data regions of a sparse file are read (SEEK_DATA); a block device
    /// is read whole.
    pub fn first_nonzero(&self) -> Result<Option<u64>, DriveError> {
        use std::os::fd::AsRawFd;
        let fd = self.file.as_raw_fd();
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0u64;
        while at < self.len_bytes {
            // SAFETY: lseek on a descriptor we own; positioned reads below do not use the offset.
            let data = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_DATA) };
            if data < 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::ENXIO) {
                    return Ok(None);
                }
                // No SEEK_DATA here: read everything.
                return self.scan_zero(at, self.len_bytes, &mut buf);
            }
            // SAFETY: as above.
            let hole = unsafe { libc::lseek(fd, data, libc::SEEK_HOLE) };
            let end = if hole < 0 { self.len_bytes } else { (hole as u64).min(self.len_bytes) };
            if let Some(found) = self.scan_zero(data as u64, end, &mut buf)? {
                return Ok(Some(found));
            }
            at = end.max(data as u64 + 1);
        }
        Ok(None)
    }

    fn scan_zero(&self, from: u64, to: u64, buf: &mut [u8]) -> Result<Option<u64>, DriveError> {
        let mut at = from;
        while at < to {
            let n = (buf.len() as u64).min(to - at) as usize;
            self.read_file(at, &mut buf[..n])?;
            if let Some(i) = buf[..n].iter().position(|&b| b != 0) {
                return Ok(Some(at + i as u64));
            }
            at += n as u64;
        }
        Ok(None)
    }

    pub fn len_bytes(&self) -> u64 {
        self.len_bytes
    }

    fn err(&self, what: &str, offset: u64, e: std::io::Error) -> DriveError {
        DriveError::Io(format!("{}: {what} at byte {offset}: {e}", self.path.display()))
    }

    /// Read `buf.len()` bytes at `offset` (bytes past the end read as zero).
    pub fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), DriveError> {
        match &self.volatile {
            None => self.read_file(offset, buf),
            Some(v) => {
                let v = v.lock().map_err(|_| DriveError::Io("volatile cache poisoned".into()))?;
                let mut pos = 0;
                while pos < buf.len() {
                    let at = offset + pos as u64;
                    let (block, within) = (at / BLOCK_BYTES, (at % BLOCK_BYTES) as usize);
                    let n = (BLOCK_BYTES as usize - within).min(buf.len() - pos);
                    match v.blocks.get(&block) {
                        Some(b) => buf[pos..pos + n].copy_from_slice(&b[within..within + n]),
                        None => self.read_file(at, &mut buf[pos..pos + n])?,
                    }
                    pos += n;
                }
                Ok(())
            }
        }
    }

    fn read_file(&self, offset: u64, buf: &mut [u8]) -> Result<(), DriveError> {
        let mut done = 0;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => {
                    buf[done..].fill(0);
                    return Ok(());
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err("read", offset, e)),
            }
        }
        Ok(())
    }

    pub fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), DriveError> {
        if offset.checked_add(data.len() as u64).is_none_or(|end| end > self.len_bytes) {
            return Err(DriveError::Io(format!("{}: write of {} bytes at {offset} past the end ({} bytes)", self.path.display(), data.len(), self.len_bytes)));
        }
        let Some(v) = &self.volatile else {
            return self.file.write_all_at(data, offset).map_err(|e| self.err("write", offset, e));
        };
        let mut v = v.lock().map_err(|_| DriveError::Io("volatile cache poisoned".into()))?;
        let mut pos = 0;
        while pos < data.len() {
            let at = offset + pos as u64;
            let (block, within) = (at / BLOCK_BYTES, (at % BLOCK_BYTES) as usize);
            let n = (BLOCK_BYTES as usize - within).min(data.len() - pos);
            let b = match v.blocks.entry(block) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => {
                    let mut b = vec![0u8; BLOCK_BYTES as usize];
                    self.read_file(block * BLOCK_BYTES, &mut b)?;
                    e.insert(b)
                }
            };
            b[within..within + n].copy_from_slice(&data[pos..pos + n]);
            pos += n;
        }
        // The cache writes some block out on its own now and then, in no particular order.
        if v.next() % 4 == 0 {
            self.spill_one(&mut v)?;
        }
        Ok(())
    }

    fn spill_one(&self, v: &mut Volatile) -> Result<(), DriveError> {
        if v.blocks.is_empty() {
            return Ok(());
        }
        let k = (v.next() % v.blocks.len() as u64) as usize;
        if let Some(&block) = v.blocks.keys().nth(k) {
            if let Some(b) = v.blocks.remove(&block) {
                self.file.write_all_at(&b, block * BLOCK_BYTES).map_err(|e| self.err("write", block * BLOCK_BYTES, e))?;
            }
        }
        Ok(())
    }

    /// Make every write so far durable.
    pub fn sync(&self) -> Result<(), DriveError> {
        if let Some(v) = &self.volatile {
            let mut v = v.lock().map_err(|_| DriveError::Io("volatile cache poisoned".into()))?;
            while !v.blocks.is_empty() {
                self.spill_one(&mut v)?;
            }
        }
        self.file.sync_data().map_err(|e| self.err("sync", 0, e))
    }
}

/// Take the store's exclusive lock, or say who is likely to hold it.
fn lock(file: &File, path: &Path) -> Result<(), DriveError> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) => {
                return Err(DriveError::InUse(format!(
                    "{}: in use by another process (a running `tierlab serve` or `tierlab fsck` holds its lock); stop it first",
                    path.display()
                )))
            }
            _ => return Err(DriveError::Io(format!("{}: cannot lock: {e}", path.display()))),
        }
    }
}

struct Volatile {
    blocks: BTreeMap<u64, Vec<u8>>,
    rng: u64,
}

impl Volatile {
    /// xorshift64*: enough randomness to shuffle write-out order, reproducibly.
    fn next(&mut self) -> u64 {
        let mut x = self.rng | 1;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}
