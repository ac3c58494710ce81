//! Streaming readers for real block I/O traces, turning every format into
//! [`tierlab_types::IoRequest`], and trace statistics.
//!
//! ```no_run
//! use tierlab_trace::{open, ReadOptions};
//! let reader = open("trace.csv.bz2".as_ref(), &ReadOptions::default())?;
//! for request in reader {
//!     let request = request?;
//!     println!("{} {} {}", request.time_ns, request.offset_bytes, request.op);
//! }
//! # Ok::<(), tierlab_trace::TraceError>(())
//! ```
//!
//! - Formats: see [`Format`]; detected from the content ([`detect`] module docs) unless
//!   [`ReadOptions::format`] is set.
//! - Compression (gzip, bzip2, xz, zstd) is recognised by magic bytes and undone while
//!   streaming, on a second thread so that decoding and parsing overlap.
//! - Output times are nanoseconds from the first request of the trace (in time order);
//!   the original first timestamp is [`TraceReader::first_timestamp_ns`].
//! - Memory does not grow with the trace: lines are parsed from one reused buffer
//!   without allocating, and the optional sort window is bounded.
//! - Bad input is a [`TraceError`] naming file, line and field, never a panic.
//!
//! # How each format maps onto `IoRequest`
//!
//! | format | time | volume | offset / length |
//! |---|---|---|---|
//! | `disksim` | arrival, whole ns | devno | sectors / sectors |
//! | `disksim-ms` | arrival, decimal ms | devno | sectors / sectors |
//! | `ssd-replay` | ts, decimal ms | devno | bytes / bytes |
//! | `cloudphysics` | seconds | 0 | lbn sectors / bytes |
//! | `blkreplay` | decimal seconds | 0 | sectors / sectors |
//! | `fiu` | whole ns | `major << 20 \| minor` | sectors / sectors |
//! | `msr` | FILETIME (100 ns ticks) | DiskNumber | bytes / bytes |
//! | `tencent-cbs` | seconds | volume_id | sectors / sectors |
//! | `umass-spc` | decimal seconds | ASU | sectors / bytes |
//! | `blkparse` | decimal seconds of the chosen event (`D` by default) | `major << 20 \| minor` | sectors / sectors |
//! | `fio-iolog` | v3: µs; v2: sum of `wait` delays (0 without) | file index, in order of appearance | bytes / bytes |
//! | `disksim-validate` | sum of the previous lines' measured service + gap (µs) | 0 | sectors / sectors |
//! | `systor17` | decimal seconds (Unix), always sorted within the window | LUN | bytes / bytes |
//! | `alibaba-block` | µs (Unix) | device_id | bytes / bytes |
//! | `oracle-general` | clock_time, seconds | 0 | object id × 512 / obj_size bytes |
//! | `binary-u32`, `binary-u64` (and `-be`) | record index, as ns (one request per ns) | 0 | object id × 512 / 512 |
//!
//! Sectors are 512 bytes. Blank lines and lines starting with `#` are skipped in every
//! text format. Zero or negative sizes, sizes above [`MAX_REQUEST_BYTES`], non-numeric or
//! missing fields, extra fields (where the format fixes their number) and unknown
//! operation codes are errors. Exceptions, each following the trace's own documentation:
//! `systor17` lines with a blank IOType ("no response message") and `oracle-general`
//! records of size 0 (which libCacheSim skips) carry no request and are skipped.
//!
//! CSV formats with a header (`cloudphysics`, `systor17`) may have a free-text preamble
//! before it, skipped when the header is among the first [`detect::PREAMBLE_MAX_LINES`]
//! lines.
//!
//! libCacheSim's binary formats are object traces: every object request is a read on
//! volume 0 whose 512-byte sector number is the object id, so `tierlab-placement`'s
//! `request` objects are exactly the trace's objects (see [`Format::OracleGeneral`]). In their errors the "line" is the 1-based record number.
//! `oracle-general` is detected from a `.oracleGeneral` file name or binary content that
//! reads as plausible records; `binary-u32`, `binary-u64`, `binary-u32-be` and
//! `binary-u64-be` need [`ReadOptions::format`] (`--format`).
//!
//! Where several formats read a file and disagree (the DiskSim family: ns or ms, sectors
//! or bytes), detection rules out implausible readings and otherwise refuses, naming
//! each reading, rather than guess ([`detect`]).

mod address_map;
mod compact;
mod decompress;
pub mod detect;
mod error;
mod fields;
mod format;
mod formats;
mod lines;
mod options;
mod reader;
mod stats;
mod threaded;

pub use address_map::AddressMap;
pub use compact::Compactor;
pub use decompress::Compression;
pub use error::TraceError;
pub use fields::MAX_REQUEST_BYTES;
pub use format::Format;
pub use options::{BlkparseAction, ReadOptions, SORT_MAX_RECORDS};
pub use reader::TraceReader;
pub use stats::{
    render_text, stats, stats_with_progress, SizeDistribution, StatsBuilder, TraceStats,
    VolumeStats, WORKING_SET_BLOCK_BYTES,
};

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

/// Size of the read buffer on a trace file.
const FILE_BUFFER_BYTES: usize = 256 * 1024;

/// Reads the whole file at `path` as text, undoing any gzip, bzip2, xz or zstd
/// compression (recognised by magic bytes, as [`open`] does), and says which it was. For
/// small files a caller parses itself (DiskSim's validation traces with their measured
/// times, which [`open`] does not keep). Not UTF-8, unreadable or corrupt input is an
/// [`TraceError::Io`] naming the file.
pub fn read_to_string(path: &Path) -> Result<(Compression, String), TraceError> {
    use std::io::Read;
    let name = path.display().to_string();
    let io_err = |context: &str, source| TraceError::Io { file: name.clone(), line: 0, context: context.into(), source };
    let file = File::open(path).map_err(|e| io_err("cannot open the file", e))?;
    let (compression, mut input) = decompress::decompress(Box::new(BufReader::with_capacity(FILE_BUFFER_BYTES, file)))
        .map_err(|e| io_err("cannot read (or decompress) the file", e))?;
    let mut text = String::new();
    input.read_to_string(&mut text).map_err(|e| io_err("cannot read (or decompress) the file", e))?;
    Ok((compression, text))
}

/// Opens the trace at `path` for streaming. The path (as given) names it in errors.
pub fn open(path: &Path, opts: &ReadOptions) -> Result<TraceReader, TraceError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|source| TraceError::Io {
        file: name.clone(),
        line: 0,
        context: "cannot open the trace".into(),
        source,
    })?;
    TraceReader::from_bufread(
        BufReader::with_capacity(FILE_BUFFER_BYTES, file),
        name,
        opts,
    )
}
