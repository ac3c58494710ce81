//! Where a replicated primary's updates come from: two deterministic
//! [`tierlab_update_log::UpdateSource`]s.
//!
//! - [`TpccLog`]: a TPC-C physical log generator standing in for the paper's database
//!   log (TPC-C on a commercial database, whose log is not available). It yields the
//!   update records the primary ships and the primary's own disk I/O — buffer-pool misses
//!   and dirty write-backs on the data volume, one log append per committing transaction
//!   — for a replay of the primary at saturation. See the [`tpcc`] module.
//! - [`BlockForwarding`]: the writes of any block trace tierlab reads, forwarded as they
//!   are (replication below the database). See the [`block`] module.
//!
//! Both are pure functions of their construction: building one again yields the same
//! transactions byte for byte, so an executor can read a stream twice instead of keeping
//! it. Neither holds state that grows with the number of transactions.

pub mod block;
pub mod tpcc;

pub use block::{BlockForwarding, ForwardingConfig, ForwardingStats};
pub use tpcc::{TpccConfig, TpccDescription, TpccLog, TpccStats};
