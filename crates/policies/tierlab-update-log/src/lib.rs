//! Remote replication as data, with no clock and no I/O: what a primary ships to its
//! secondary, how the secondary compacts and applies it, and how long the secondary's
//! data volume may sleep between applies (power-aware remote replication after Goda and
//! Kitsuregawa, USENIX ATC 2008).
//!
//! Modules (everything is also re-exported at the crate root):
//!
//! * `record`: the shipped unit ([`UpdateRecord`]: LSN, op, key, address, lengths), the
//!   primary's own I/O, transactions, and the [`UpdateSource`] trait every generator or
//!   trace implements.
//! * `buffer_pool`: a write-back LRU page cache ([`BufferPool`]) for the primary's buffer
//!   and the secondary's apply-side cache.
//! * [`fold`]: log folding. The per-key fold table of the log variant (insert, update,
//!   update becomes one insert of the last image; insert then delete cancels; anomalies
//!   counted) and the sector interval map of the block variant (last writer wins).
//! * [`compact`]: eager compaction of one window: fold, sort by address, one I/O per
//!   page, optional merging of adjacent pages ([`Compactor`], [`Batch`]); with folding and
//!   sorting off it is plain LSN-order redo, the conventional baseline.
//! * [`image`]: the reference data image ([`DataImage`]) that in-order redo and compacted
//!   batches are compared on.
//! * [`logfile`]: a text format for transaction streams; [`LogWriter`] / [`dump`] write
//!   any source, [`LogReader`] replays it as an [`UpdateSource`] with errors that name the
//!   file, line and field.
//! * [`plan`](mod@plan): the batch planner: cycle length T_wnd and apply time T_apl from R_gen,
//!   R_apl and the RTO (the paper's formulas and a strict mode that also covers spin-up),
//!   feasibility, worst recovery over a cycle, break-even time, start/stop budget and the
//!   analytic power model.

mod buffer_pool;
pub mod compact;
pub mod fold;
pub mod image;
pub mod logfile;
pub mod plan;
mod record;

pub use buffer_pool::{BufferPool, Reference};
pub use compact::{ApplyIo, Batch, CompactError, CompactionConfig, CompactionStats, Compactor};
pub use fold::{
    fold_rule, sector_span, BlockExtent, ExtentMap, FoldRule, NetEntry, RowFolder, RowOp,
    SECTOR_BYTES,
};
pub use image::{DataImage, RowImage, SectorImage};
pub use logfile::{dump, open_log, DumpError, Found, LogError, LogReader, LogWriter, LOG_HEADER};
pub use plan::{
    analytic_power, break_even_s, check_window, days_to_cycles, plan, r_from_t_wnd, t_apl,
    t_apl_strict, t_wnd, t_wnd_strict, worst_recovery_paper_s, AnalyticPower, BatchPlan, PlanError,
    PlanMode, PowerInputs, StandbyCosts, Transition, DEFAULT_DATA_FRACTION, FIVE_NINES_S_PER_YEAR,
    SECONDS_PER_DAY, SECONDS_PER_YEAR,
};
pub use record::{
    PrimaryIo, PrimaryVolume, RecordKey, SourceError, Transaction, UpdateOp, UpdateRecord,
    UpdateSource,
};
