//! Physical block forwarding: a block trace's writes, shipped as they are.
//!
//! The block variant of remote replication mirrors a volume below the database: each
//! write the primary issues is forwarded to the secondary, which has no log to read and
//! applies the bytes themselves. Any trace tierlab reads becomes such a stream:
//!
//! - the trace's (volume, offset) addresses become one data volume with
//!   [`tierlab_trace::AddressMap`], as the array runs map them: volumes end to end at
//!   1 MiB-aligned bases, or, with `compact`, the touched `chunk_bytes` chunks packed
//!   densely in address order. The map is learnt in one pass over the trace when the
//!   source is opened; [`BlockForwarding::reopen`] re-reads the trace with the same map;
//! - each request is one [`Transaction`] whose only primary I/O is the request itself on
//!   the data volume (the primary's disk work is the trace);
//! - a write ships one record: op `Write`, key `Block`, the mapped extent, `value` = its
//!   LSN (1, 2, 3, … over the writes); a read ships nothing;
//! - a record's `log_bytes` is its payload plus `header_bytes` of framing. The default,
//!   64 bytes, is an estimate for a forwarding protocol's per-write framing: an
//!   iSCSI-style 48-byte basic header segment plus a 4-byte header digest, a 4-byte data
//!   digest and an 8-byte write sequence number for ordering at the secondary;
//! - the apply grain ([`UpdateSource::page_bytes`]) is the 512-byte sector.
//!
//! A trace's errors (bad line, unreadable file) stop the stream with a [`SourceError`]
//! carrying the reader's file and line message.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tierlab_trace::AddressMap;
use tierlab_update_log::{
    PrimaryIo, PrimaryVolume, RecordKey, SourceError, Transaction, UpdateOp, UpdateRecord,
    UpdateSource,
};
use tierlab_trace::{ReadOptions, TraceReader};
use tierlab_types::Op;

/// The sector: the grain block folding works in.
pub const SECTOR_BYTES: u64 = 512;

/// How a trace is forwarded. Every field has a default; unknown keys are rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ForwardingConfig {
    /// Pack the touched chunks densely instead of laying volumes end to end.
    pub compact: bool,
    /// The compaction grain (> 0). Default 1 MiB, the alignment of the end-to-end map, so
    /// both keep distances within a MiB.
    pub chunk_bytes: u64,
    /// Framing bytes shipped with every write. Default 64.
    pub header_bytes: u32,
}

impl Default for ForwardingConfig {
    fn default() -> Self {
        ForwardingConfig {
            compact: false,
            chunk_bytes: 1 << 20,
            header_bytes: 64,
        }
    }
}

/// What has been forwarded so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ForwardingStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// Payload bytes of the writes.
    pub write_bytes: u64,
    /// Σ `log_bytes` of the records (payload and framing).
    pub log_bytes: u64,
}

/// A trace's writes as an [`UpdateSource`].
pub struct BlockForwarding {
    path: PathBuf,
    read_options: ReadOptions,
    config: ForwardingConfig,
    map: Arc<AddressMap>,
    reader: TraceReader,
    next_lsn: u64,
    stats: ForwardingStats,
}

fn open_trace(path: &Path, options: &ReadOptions) -> Result<TraceReader, SourceError> {
    tierlab_trace::open(path, options).map_err(|e| SourceError::new(e.to_string()))
}

impl BlockForwarding {
    /// Learn the address map from one pass over the trace at `path`, then open it again
    /// for the stream.
    pub fn open(
        path: &Path,
        read_options: &ReadOptions,
        config: &ForwardingConfig,
    ) -> Result<BlockForwarding, SourceError> {
        if config.chunk_bytes == 0 {
            return Err(SourceError::new(
                "block forwarding setting `chunk_bytes`: expected more than 0, found 0",
            ));
        }
        read_options
            .validate()
            .map_err(|e| SourceError::new(e.to_string()))?;
        let map = AddressMap::learn(
            config.compact,
            config.chunk_bytes,
            open_trace(path, read_options)?,
        )
        .map_err(|e| SourceError::new(e.to_string()))?;
        BlockForwarding::with_map(path, read_options, config, Arc::new(map))
    }

    fn with_map(
        path: &Path,
        read_options: &ReadOptions,
        config: &ForwardingConfig,
        map: Arc<AddressMap>,
    ) -> Result<BlockForwarding, SourceError> {
        Ok(BlockForwarding {
            reader: open_trace(path, read_options)?,
            path: path.to_path_buf(),
            read_options: read_options.clone(),
            config: config.clone(),
            map,
            next_lsn: 1,
            stats: ForwardingStats::default(),
        })
    }

    /// The same stream from its start, without learning the map again.
    pub fn reopen(&self) -> Result<BlockForwarding, SourceError> {
        BlockForwarding::with_map(
            &self.path,
            &self.read_options,
            &self.config,
            Arc::clone(&self.map),
        )
    }

    pub fn config(&self) -> &ForwardingConfig {
        &self.config
    }

    pub fn stats(&self) -> &ForwardingStats {
        &self.stats
    }
}

impl UpdateSource for BlockForwarding {
    fn next_transaction(&mut self, out: &mut Transaction) -> Result<bool, SourceError> {
        out.clear();
        let request = match self.reader.next() {
            None => return Ok(false),
            Some(Err(e)) => return Err(SourceError::new(e.to_string())),
            Some(Ok(r)) => self.map.map(r),
        };
        out.primary_ios.push(PrimaryIo {
            volume: PrimaryVolume::Data,
            op: request.op,
            offset_bytes: request.offset_bytes,
            len_bytes: request.len_bytes,
        });
        self.stats.requests += 1;
        if request.op == Op::Read {
            self.stats.reads += 1;
            return Ok(true);
        }
        let too_long = || {
            SourceError::new(format!(
                "{}:{}: a write of {} bytes does not fit a record (at most {} bytes with {} of framing)",
                self.reader.name(),
                self.reader.line(),
                request.len_bytes,
                u64::from(u32::MAX) - u64::from(self.config.header_bytes),
                self.config.header_bytes
            ))
        };
        let len_bytes = u32::try_from(request.len_bytes).map_err(|_| too_long())?;
        let log_bytes = len_bytes
            .checked_add(self.config.header_bytes)
            .ok_or_else(too_long)?;
        out.records.push(UpdateRecord {
            lsn: self.next_lsn,
            op: UpdateOp::Write,
            key: RecordKey::Block,
            addr_bytes: request.offset_bytes,
            len_bytes,
            log_bytes,
            value: self.next_lsn,
        });
        self.next_lsn += 1;
        self.stats.writes += 1;
        self.stats.write_bytes += u64::from(len_bytes);
        self.stats.log_bytes += u64::from(log_bytes);
        Ok(true)
    }

    fn data_bytes(&self) -> u64 {
        self.map.capacity_bytes()
    }

    fn page_bytes(&self) -> u64 {
        SECTOR_BYTES
    }
}

#[cfg(test)]
mod tests;
