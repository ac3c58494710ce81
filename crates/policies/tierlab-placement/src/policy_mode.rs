//! Policy mode: a hybrid-drive [`Policy`] (tiering or caching) replayed without devices.
//!
//! Each request is routed, its I/O completes at once (`done`), and then every migration
//! the policy asks for completes at once too (`next_migration` → `migration_copied` →
//! `migration_done`, all at the request's time), until it asks for none. So nothing is
//! ever in flight between requests, and the counts show the policy's decisions alone.
//!
//! A request's data is served from where the first piece of each extent it touches goes:
//! the SSD or the RAM copy of a moving extent is a hit, the HDD a miss (a write-through
//! write to both is a hit). Objects are 4 KiB blocks.

use crate::{Counts, PlacementError, Replay};
use serde::Serialize;
use tierlab_hybrid_policy::{Piece, Place, Policy, PolicyStats, Routing, EXTENT_ALIGN_BYTES};
use tierlab_types::IoRequest;

/// The results of a policy replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyReport {
    pub policy: String,
    pub counts: Counts,
    /// The policy's own counts: promotions, demotions, prefetches, evictions,
    /// write-backs, bytes moved, cancelled migrations…
    pub stats: PolicyStats,
    /// Migrations started (and completed) by the replay.
    pub migrations: u64,
}

/// Replays requests through a policy with instantaneous I/O and migrations.
pub struct PolicyReplay<P: Policy> {
    policy: P,
    counts: Counts,
    pieces: Vec<Piece>,
    migrations: u64,
    /// The one volume the drive serves (the first request's).
    volume: Option<u32>,
    /// The most migrations one request may set off before the policy is taken to loop.
    max_migrations_per_request: u64,
}

impl<P: Policy> PolicyReplay<P> {
    pub fn new(policy: P) -> Self {
        // Every migration moves one extent; more than one move per physical extent after
        // a single request means the policy keeps undoing its own work.
        let max_migrations_per_request = 2 * u64::from(policy.geometry().physical_extents()) + 16;
        PolicyReplay { policy, counts: Counts::default(), pieces: Vec::new(), migrations: 0, volume: None, max_migrations_per_request }
    }

    pub fn policy(&self) -> &P {
        &self.policy
    }

    pub fn report(&self) -> PolicyReport {
        PolicyReport { policy: self.policy.name().to_string(), counts: self.counts, stats: self.policy.stats(), migrations: self.migrations }
    }

    /// Completes every migration the policy wants to start at `now_ns`.
    fn drain_migrations(&mut self, now_ns: u64) -> Result<(), PlacementError> {
        let mut started = 0;
        while let Some(m) = self.policy.next_migration(now_ns) {
            started += 1;
            if started > self.max_migrations_per_request {
                return Err(PlacementError::request(
                    "time_ns",
                    format!("a policy that settles after at most {} migrations", self.max_migrations_per_request),
                    format!("more at time {now_ns} ns (policy `{}`)", self.policy.name()),
                ));
            }
            self.policy.migration_copied(m.id);
            self.policy.migration_done(now_ns, m.id, true);
            self.migrations += 1;
        }
        Ok(())
    }
}

/// 4 KiB blocks covered by `piece` (its offset is block-aligned wherever its extent is).
fn blocks_of(piece: &Piece) -> u64 {
    let first = piece.device_offset_bytes / EXTENT_ALIGN_BYTES;
    let last = (piece.device_offset_bytes + piece.len_bytes - 1) / EXTENT_ALIGN_BYTES;
    last - first + 1
}

impl<P: Policy> Replay for PolicyReplay<P> {
    fn access(&mut self, req: &IoRequest) -> Result<(), PlacementError> {
        match self.volume {
            None => self.volume = Some(req.volume),
            Some(v) if v != req.volume => {
                return Err(PlacementError::request(
                    "volume",
                    format!("volume {v} only (a drive serves one volume: select it when reading the trace)"),
                    req.volume.to_string(),
                ))
            }
            Some(_) => {}
        }
        let routing = self
            .policy
            .route(req.time_ns, req.op, req.offset_bytes, req.len_bytes, &mut self.pieces)
            .map_err(|e| PlacementError::request("offset_bytes", "a request the policy accepts", e.to_string()))?;
        if let Routing::Wait(id) = routing {
            // Nothing is in flight between requests, so there is nothing to wait for.
            return Err(PlacementError::request(
                "time_ns",
                "a policy that never delays a request while no migration runs",
                format!("a wait for migration {id} (policy `{}`)", self.policy.name()),
            ));
        }
        let (mut objects, mut hits) = (0, 0);
        let mut last_extent = None;
        for p in &self.pieces {
            if last_extent == Some(p.extent) {
                continue; // a second copy of the same data (write-through)
            }
            last_extent = Some(p.extent);
            let blocks = blocks_of(p);
            objects += blocks;
            if p.place != Place::Hdd {
                hits += blocks;
            }
        }
        self.counts.record(req.op, objects, hits);
        self.policy.done(&self.pieces);
        self.drain_migrations(req.time_ns)
    }
}
