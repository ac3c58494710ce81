//! The SSD of a catalog entry (`catalog/ssd`): timed from its internals (`tierlab-ssd`),
//! its write buffer as chosen and the part in use written once, or timed from its data
//! sheet (`tierlab-ssd-datasheet`).

use anyhow::{anyhow, Result};
use tierlab_ssd::{Precondition, Ssd, SsdSpec, WriteBufferSpec};
use tierlab_ssd_datasheet::DatasheetSsd;

/// How the SSD is timed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum SsdTiming {
    /// From its internals: NAND timelines, FTL, garbage collection (`tierlab-ssd`).
    #[default]
    Internals,
    /// From its data sheet: QD1 latency, sequential bandwidth, IOPS at depth
    /// (`tierlab-ssd-datasheet`); the catalog entry needs a `[datasheet]` section.
    Datasheet,
}

/// The write buffer of an SSD timed from its internals (the data-sheet timing already
/// acknowledges writes as the drive does, and ignores this).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SsdWriteBuffer {
    /// As the catalog entry gives it (`[ssd.write_buffer]`); none where it gives none.
    #[default]
    Catalog,
    /// None: every write waits for its NAND program, as in FlashSim.
    Off,
    /// The catalog entry's buffer, holding this many bytes.
    Bytes(u64),
}

impl std::str::FromStr for SsdWriteBuffer {
    type Err = String;
    /// `on` (the catalog's), `off`, or a size in bytes (0 is `off`).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "on" | "catalog" => Ok(SsdWriteBuffer::Catalog),
            "off" => Ok(SsdWriteBuffer::Off),
            _ => match s.parse::<u64>() {
                Ok(0) => Ok(SsdWriteBuffer::Off),
                Ok(bytes) => Ok(SsdWriteBuffer::Bytes(bytes)),
                Err(_) => Err(format!("`{s}`: expected on, off or a size in bytes")),
            },
        }
    }
}

/// The internals of the catalog SSD `id` with the write buffer `write_buffer` chooses, or
/// an error naming the entry when a buffer size is asked of an entry without one.
pub fn ssd_spec(id: &str, write_buffer: SsdWriteBuffer) -> Result<SsdSpec> {
    let mut spec = tierlab_ssd::catalog::builtin(id)?.ssd;
    spec.write_buffer = match write_buffer {
        SsdWriteBuffer::Catalog => spec.write_buffer,
        SsdWriteBuffer::Off => None,
        SsdWriteBuffer::Bytes(bytes) => Some(WriteBufferSpec {
            bytes,
            ..spec.write_buffer.ok_or_else(|| anyhow!("--ssd-write-buffer {bytes}: the catalog entry of SSD `{id}` (catalog/ssd/{id}.toml) has no [ssd.write_buffer] to take its acknowledgment time and host link from; give it one"))?
        }),
    };
    Ok(spec)
}

/// An SSD of `spec` whose first `used_bytes` are already written once: the data a trace
/// reads exists before the trace starts (a fresh model would answer reads of
/// never-written pages without touching flash). Counters start at zero after the fill.
pub fn filled_ssd(spec: SsdSpec, used_bytes: u64) -> Result<Ssd> {
    let capacity = spec.capacity_bytes();
    let mut ssd = Ssd::new(spec)?;
    let occupancy = used_bytes as f64 / capacity.max(1) as f64;
    ssd.precondition(&Precondition { occupancy, random_overwrites: 0.0, seed: 1 })?;
    Ok(ssd)
}

/// The catalog SSD `id` timed from its data sheet (its entry's `[datasheet]`), with its
/// own name, idle power and rated endurance; `capacity_bytes` overrides its capacity (a
/// server models a store of its own size this way).
pub fn datasheet_ssd(id: &str, capacity_bytes: Option<u64>) -> Result<DatasheetSsd> {
    let entry = tierlab_ssd::catalog::builtin(id)?;
    let figures = entry.datasheet.ok_or_else(|| anyhow!("the catalog entry of SSD `{id}` (catalog/ssd/{id}.toml) has no [datasheet] section; give it one, or time the SSD from its internals"))?;
    let spec = entry.ssd;
    Ok(DatasheetSsd::new(&spec.name, capacity_bytes.unwrap_or(spec.capacity_bytes()), &figures, spec.energy.idle_w, spec.rated_endurance_bytes)?)
}
