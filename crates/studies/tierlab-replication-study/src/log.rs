//! An update stream written to an update log file, which a run's `SourceSpec::LogFile`
//! replays: the TPC-C generator's transactions, or a block trace's writes forwarded.

use anyhow::{anyhow, Context};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use tierlab_update_log::{SourceError, Transaction, UpdateSource};
use tierlab_update_stream::{BlockForwarding, ForwardingConfig, TpccConfig, TpccLog};

/// Where the updates come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum LogSource {
    /// The TPC-C generator (its `transactions` is [`LogConfig::transactions`]).
    Tpcc(TpccConfig),
    /// The writes of a block trace, in any format `tierlab_trace` reads.
    Forward { path: PathBuf, compact: bool },
}

/// An update log to write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    pub source: LogSource,
    /// Transactions to write: required for the TPC-C generator, which has no end; a
    /// trace's writes stop at its end or here.
    pub transactions: Option<u64>,
    /// The file written.
    pub output: PathBuf,
}

/// What was written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogReport {
    pub transactions: u64,
    pub records: u64,
    pub log_bytes: u64,
    pub output: PathBuf,
}

/// Why a log could not be written. A `Field` error names the configuration field at fault
/// first, in backticks.
#[derive(Debug, thiserror::Error)]
pub enum WriteLogError {
    #[error("`{field}`: {message}")]
    Field { field: String, message: String },
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// A source cut after `limit` transactions, counting what it yields.
struct Counted<'a> {
    inner: &'a mut dyn UpdateSource,
    limit: Option<u64>,
    transactions: u64,
    records: u64,
    log_bytes: u64,
}

impl UpdateSource for Counted<'_> {
    fn next_transaction(&mut self, out: &mut Transaction) -> Result<bool, SourceError> {
        if self.limit.is_some_and(|l| self.transactions >= l) {
            out.clear();
            return Ok(false);
        }
        let more = self.inner.next_transaction(out)?;
        if more {
            self.transactions += 1;
            self.records += out.records.len() as u64;
            self.log_bytes += out.log_bytes();
        }
        Ok(more)
    }
    fn data_bytes(&self) -> u64 {
        self.inner.data_bytes()
    }
    fn page_bytes(&self) -> u64 {
        self.inner.page_bytes()
    }
}

/// Write the update log `cfg` asks for.
pub fn write_log(cfg: &LogConfig) -> Result<LogReport, WriteLogError> {
    let mut source: Box<dyn UpdateSource> = match &cfg.source {
        LogSource::Forward { path, compact } => {
            let forwarding = ForwardingConfig { compact: *compact, ..ForwardingConfig::default() };
            Box::new(BlockForwarding::open(path, &tierlab_trace::ReadOptions::default(), &forwarding).map_err(|e| anyhow!("{e}"))?)
        }
        LogSource::Tpcc(tpcc) => {
            let Some(n) = cfg.transactions else {
                return Err(WriteLogError::Field {
                    field: "transactions".into(),
                    message: "the TPC-C generator has no end; say how many transactions to write".into(),
                });
            };
            let tpcc = TpccConfig { transactions: Some(n), ..tpcc.clone() };
            if let Err(errors) = tpcc.check() {
                let e = &errors.0[0];
                let field = match e.field {
                    "transactions" => "transactions".to_string(),
                    other => format!("source.{other}"),
                };
                return Err(WriteLogError::Field { field, message: e.message.clone() });
            }
            Box::new(TpccLog::new(tpcc).map_err(|e| anyhow!("TPC-C generator: {e}"))?)
        }
    };
    let mut counted = Counted { inner: &mut *source, limit: cfg.transactions, transactions: 0, records: 0, log_bytes: 0 };
    let out = &cfg.output;
    let file = std::fs::File::create(out).with_context(|| format!("cannot create {}", out.display()))?;
    tierlab_update_log::dump(&mut counted, std::io::BufWriter::new(file)).with_context(|| format!("writing {}", out.display()))?;
    Ok(LogReport { transactions: counted.transactions, records: counted.records, log_bytes: counted.log_bytes, output: out.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(output: PathBuf) -> LogConfig {
        LogConfig { source: LogSource::Tpcc(TpccConfig { warehouses: 2, buffer_pool_bytes: 16 << 20, ..TpccConfig::default() }), transactions: Some(50), output }
    }

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("tierlab-replication-study-{}-{name}", std::process::id()))
    }

    #[test]
    fn configs_round_trip_through_json() {
        let cfg = tiny("updates.log".into());
        assert_eq!(serde_json::from_str::<LogConfig>(&serde_json::to_string(&cfg).unwrap()).unwrap(), cfg);
        let fwd = LogConfig { source: LogSource::Forward { path: "t.csv".into(), compact: true }, transactions: None, output: "o.log".into() };
        assert_eq!(serde_json::from_str::<LogConfig>(&serde_json::to_string(&fwd).unwrap()).unwrap(), fwd);
    }

    #[test]
    fn errors_name_the_field_at_fault() {
        let field = |cfg: LogConfig| match write_log(&cfg) {
            Err(WriteLogError::Field { field, .. }) => field,
            other => panic!("not a field error: {other:?}"),
        };
        assert_eq!(field(LogConfig { transactions: None, ..tiny(temp("none.log")) }), "transactions");
        let none = LogConfig { source: LogSource::Tpcc(TpccConfig { warehouses: 0, ..TpccConfig::default() }), ..tiny(temp("zero.log")) };
        assert_eq!(field(none), "source.warehouses");
    }

    #[test]
    fn a_small_log_counts_what_it_wrote_and_reads_back() {
        let path = temp("small.log");
        let r = write_log(&tiny(path.clone())).unwrap();
        assert_eq!(r.transactions, 50);
        assert!(r.records >= r.transactions && r.log_bytes > 0);
        let mut back = tierlab_update_log::open_log(&path).unwrap();
        let mut t = Transaction::default();
        let mut n = 0;
        while back.next_transaction(&mut t).unwrap() {
            n += 1;
        }
        assert_eq!(n, 50);
        let _ = std::fs::remove_file(path);
    }
}
