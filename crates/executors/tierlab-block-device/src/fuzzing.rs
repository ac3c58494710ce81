//! Entry points for the fuzz targets (`fuzz/`): recovery from store images whose metadata
//! has been mutated, and the `tierlab ctl` line protocol. Nothing may panic.

use crate::drive::{CreateSpec, Drive, OpenOptions};
use crate::params::{Created, PolicySettings};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use tierlab_cache::Algorithm;
use tierlab_hybrid_policy::{CachingParams, TieringParams, WritePolicy};

/// Bytes of each store that mutations reach: the superblock, both checkpoint slots, the
/// journal (the metadata region of the drives made here).
pub const METADATA_BYTES: usize = 1 << 20;
const ES: u64 = 64 * 1024;

fn spec(caching: bool) -> CreateSpec {
    let settings = if caching {
        PolicySettings::new(Created::Caching(CachingParams { pt: 1, tw_ns: 60_000_000_000, mcml: 2, write: WritePolicy::WriteBack, replacement: Algorithm::Arc, writeback_queue_cap: 64 }))
    } else {
        PolicySettings::new(Created::Tiering(TieringParams { pt: 1, tw_ns: 60_000_000_000, mcml: 2, lt: 4, ht: 8, reserved_hdd_extents: 16 }))
    };
    CreateSpec { settings, extent_bytes: ES, ssd_bytes: Some(3 << 20), hdd_bytes: Some(8 << 20), journal_bytes: 16 << 10 }
}

/// A drive left as a crash leaves it (mappings in the journal, a checkpoint taken on the
/// way), and the metadata regions of its two stores.
pub struct Template {
    dir: PathBuf,
    metadata: [Vec<u8>; 2],
}

impl Template {
    /// The tiering (or caching) template of this process, made on first use.
    pub fn get(caching: bool) -> &'static Template {
        static T: [OnceLock<Template>; 2] = [OnceLock::new(), OnceLock::new()];
        T[usize::from(caching)].get_or_init(|| Template::make(caching))
    }

    fn make(caching: bool) -> Template {
        let dir = std::env::temp_dir().join(format!("tierlab-fuzz-{}-{}", std::process::id(), if caching { "caching" } else { "tiering" }));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::create_dir_all(&dir);
        let opts = |create| OpenOptions { ssd_path: dir.join("ssd"), hdd_path: dir.join("hdd"), create, migration_threads: 1, ..Default::default() };
        if let Ok(d) = Drive::open(opts(Some(spec(caching)))) {
            let block = |i: u64| vec![(i as u8) | 1; 4096];
            for round in 0..3u64 {
                for i in (0..d.virtual_bytes() / ES).step_by(3) {
                    let _ = d.write(i * ES + round * 4096, &block(i), false);
                }
                let _ = d.flush();
                if round == 0 {
                    let _ = d.set_param("pt", 1.0);
                }
            }
            d.halt();
        }
        let read = |name: &str| {
            let mut b = vec![0u8; METADATA_BYTES];
            if let Ok(f) = std::fs::File::open(dir.join(name)) {
                let _ = f.read_at(&mut b, 0);
            }
            b
        };
        let metadata = [read("ssd"), read("hdd")];
        Template { dir, metadata }
    }

    /// Put the metadata back, mutated by `patches`: each 5 bytes are a store (low bit), an
    /// offset into its metadata (24 bits) and a byte XORed in. Then check, repair and open
    /// the drive, and read from it.
    pub fn recover_mutated(&self, patches: &[u8]) {
        let mut images = self.metadata.clone();
        for p in patches.chunks_exact(5) {
            let at = (usize::from(p[1]) | usize::from(p[2]) << 8 | usize::from(p[3]) << 16) % METADATA_BYTES;
            images[usize::from(p[0] & 1)][at] ^= p[4];
        }
        let (ssd, hdd) = (self.dir.join("ssd"), self.dir.join("hdd"));
        for (path, image) in [(&ssd, &images[0]), (&hdd, &images[1])] {
            let Ok(f) = std::fs::OpenOptions::new().write(true).open(path) else { return };
            if f.write_all_at(image, 0).is_err() {
                return;
            }
        }
        let _ = crate::fsck::fsck(&ssd, &hdd, false);
        if patches.first().is_some_and(|b| b & 2 != 0) {
            let _ = crate::fsck::fsck_with(&ssd, &hdd, true, patches.first().is_some_and(|b| b & 4 != 0));
        }
        let opts = OpenOptions { ssd_path: ssd, hdd_path: hdd, migration_threads: 1, ..Default::default() };
        if let Ok(d) = Drive::open(opts) {
            let mut b = vec![0u8; 4096];
            for i in 0..8 {
                let _ = d.read(i * ES, &mut b);
            }
            d.halt();
        }
    }
}

/// The drive `ctl` requests are answered by (tiering, made on first use).
pub fn ctl_drive() -> Option<&'static Arc<Drive>> {
    static D: OnceLock<Option<Arc<Drive>>> = OnceLock::new();
    D.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("tierlab-fuzz-{}-ctl", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::create_dir_all(&dir);
        Drive::open(OpenOptions { ssd_path: dir.join("ssd"), hdd_path: dir.join("hdd"), create: Some(spec(false)), migration_threads: 1, ..Default::default() }).ok()
    })
    .as_ref()
}

/// Answer each line of `input` as the ctl socket would.
pub fn ctl_lines(input: &[u8]) {
    let Some(d) = ctl_drive() else { return };
    for line in String::from_utf8_lossy(input).lines() {
        let _ = crate::admin::answer(d, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutated_images_and_ctl_lines_are_handled() {
        for caching in [false, true] {
            let t = Template::get(caching);
            t.recover_mutated(&[]);
            t.recover_mutated(&[0, 2, 0, 0, 0xff]);
            t.recover_mutated(&[3, 0x10, 0x10, 0, 0x01, 7, 0, 0x20, 0, 0x80]);
        }
        ctl_lines(b"{\"cmd\":\"get\"}\n{\"cmd\":\"set\",\"name\":\"pt\",\"value\":1e308}\nnonsense\n{\"cmd\":\"table\"}");
    }
}
