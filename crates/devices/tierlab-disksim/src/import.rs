//! Build an `HddSpec` from a DiskSim drive description (`.parv` → `.diskspecs` →
//! `.model` → `.seek`).
//!
//! What is read, and how DiskSim's settings map onto the tierlab model:
//! - Geometry and layout (`dm_disk`, `dm_layout_g1`): surfaces, cylinders, zones, skews
//!   (sectors or revolutions), spares, slips, defects, mapping schemes 0–2, sparing
//!   schemes 0 (none), 1 (spare tracks per zone), 2 (sectors per cylinder), 3 (per
//!   track), 8 (per cylinder range), 9 (per zone) exactly; scheme 7 (spares at the end of
//!   the disk) as "per zone, the zone's slips slide to its end" — the same block count as
//!   DiskSim. Schemes 4, 5, 6 and 10 are rejected.
//! - The zones may map more blocks than `Block count`: DiskSim's layout then uses the
//!   zones' total as the drive's size, and so does the import (with a note), so every
//!   block DiskSim can address maps exactly as in DiskSim. A `Block count` above the
//!   zones' total is an error.
//! - Mechanics (`dm_mech_g1`): seek types `extracted` (the `.seek` table),
//!   `hpl`/`hplplus10` (the Ruemmler–Wilkes equation, with the first ten seeks),
//!   `constant`, and `linear`/`curve` (fitted through single/average/full as a datasheet
//!   would be); head switch, write settle (negative values shorten write positioning, as
//!   in DiskSim), rpm. Only the `trackSwitchPlusRotation` access-time type is accepted
//!   (the others replace the mechanics by averages).
//! - Firmware (`disksim_disk`): the eight command overheads; completion, data
//!   preparation, first/other reselect and read disconnect (after a read, after a write)
//!   overheads; the extra write
//!   disconnect family (except its second-disconnect overhead, which runs in parallel
//!   with the media); minimum seek delay of non-sequential writes; per-request overhead
//!   and time scale; bus time per sector = max(disk, attached bus, controller), as DiskSim
//!   takes it; cache segments and size, write-segment limit, separate write segment;
//!   read-ahead scheme (`Buffer continuous read` 0–4), maximum read-ahead, read-ahead over
//!   requested / on idle hit, read (high) watermark, read any free blocks; fast write
//!   level (1 and 2 are both write-back: with one request outstanding their difference
//!   does not arise); zero-latency read/write; read hits on write data; never
//!   disconnect.
//! - Not modelled; a non-default value is reported, with its file and line, in
//!   `Imported::notes`: minimum read-ahead, rpm error, write (low) watermark and write
//!   disconnect overhead (DiskSim uses both only when a write's data does not fit its
//!   buffer segment, or, with fast writes, when it arrives while the media is busy),
//!   sneaky/almost read hits, preseeking, write prebuffering, bus arbitration time.
//! - Tolerated like DiskSim does, with a note: slip lists out of order (sorted), zones
//!   reaching beyond `Number of cylinders` (the count is extended), flags written as -1.

use crate::error::Error;
use crate::params::{all_blocks, parse_file, Block, Entry, Item, TopoNode, Value};
use serde::Serialize;
use std::path::{Path, PathBuf};
use tierlab_hdd::{CacheSpec, ExtraWriteDisconnect, HddSpec, LbnMapping, Overheads, ReadAheadMode, SeekModel, Sparing, ZoneSpec};

/// A drive read from DiskSim files.
#[derive(Clone, Debug)]
pub struct Imported {
    pub spec: HddSpec,
    /// The `.parv` file the drive was found through.
    pub parv: PathBuf,
    /// Settings present with a non-default value that the model does not reproduce.
    pub notes: Vec<String>,
}

/// Whose behaviour the import follows where DiskSim 4.0's code and the validated drives
/// part ways (VALIDATION.md, "Two semantics").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Semantics {
    /// As the validation traces show the drives behave (the default).
    #[default]
    Drive,
    /// As DiskSim 4.0's code times the same files.
    Disksim,
}

impl Imported {
    /// The drive as DiskSim 4.0 times it. Four settings change, each noted:
    /// - a write after any write (not only an appending one) pays the "after write" figures;
    /// - with a maximum read-ahead, the read-ahead runs that far past the request even when
    ///   "Read-ahead over requested" is off, and the segment wraps over the request's blocks;
    /// - reads get no zero-latency access ("Immediate buffer read" has no effect on DiskSim
    ///   4.0's timing of reads in the validation traces);
    /// - a write-back write waits for the media once "Maximum number of write segments"
    ///   hold data not yet written, not only once every segment does.
    pub fn with_semantics(mut self, semantics: Semantics) -> Imported {
        if semantics == Semantics::Drive {
            return self;
        }
        let parv = self.parv.display().to_string();
        let o = &mut self.spec.overheads;
        if o.write_hit_after_write_ms != o.write_hit_after_read_ms || o.write_miss_after_write_ms != o.write_miss_after_read_ms {
            self.notes.push(format!("{parv}: DiskSim semantics: every write after a write pays the \"after write\" figures"));
        }
        o.after_write_figures_for_appends_only = false;
        let c = &mut self.spec.cache;
        if c.max_read_ahead_blocks > 0 && !c.read_ahead_over_requested && c.read_ahead != ReadAheadMode::TrackAhead {
            c.read_ahead_over_requested = true;
            self.notes.push(format!("{parv}: DiskSim semantics: read-ahead runs its maximum past the request and may drop the request's blocks"));
        }
        if c.zero_latency_read {
            c.zero_latency_read = false;
            self.notes.push(format!("{parv}: DiskSim semantics: reads wait for their first block (no zero-latency access)"));
        }
        if c.write_back && !c.separate_write_segment && c.max_write_segments < c.segments {
            self.notes.push(format!(
                "{parv}: DiskSim semantics: a write-back write waits for the media once {} of the {} segments hold data not yet written",
                c.max_write_segments, c.segments
            ));
        }
        c.write_back_in_every_segment = false;
        self
    }
}

fn loc_err(e: &Entry, msg: impl Into<String>) -> Error {
    Error::new(e.loc.file.clone(), e.loc.line, e.key.clone(), msg)
}

fn block_err(b: &Block, field: &str, msg: impl Into<String>) -> Error {
    Error::new(b.loc.file.clone(), b.loc.line, field, msg)
}

fn entry<'a>(b: &'a Block, key: &str) -> Result<&'a Entry, Error> {
    b.get(key).ok_or_else(|| block_err(b, key, format!("missing parameter in `{}` block", b.type_name)))
}

/// Where `key` is set in `b`: `file:line`.
fn at(b: &Block, key: &str) -> String {
    b.get(key).map_or_else(|| key.to_string(), |e| format!("{}:{}", e.loc.file, e.loc.line))
}

fn num(b: &Block, key: &str) -> Result<f64, Error> {
    let e = entry(b, key)?;
    match &e.value {
        Value::Number(x) => Ok(*x),
        _ => Err(loc_err(e, "expected a number")),
    }
}

fn num_or(b: &Block, key: &str, default: f64) -> Result<f64, Error> {
    if b.get(key).is_some() {
        num(b, key)
    } else {
        Ok(default)
    }
}

/// A time in ms (default 0 when absent) within the model's bounds, checked where it is set.
fn time_ms(b: &Block, key: &str) -> Result<f64, Error> {
    let x = num_or(b, key, 0.0)?;
    if (0.0..=tierlab_hdd::MAX_PARAMETER_MS).contains(&x) {
        Ok(x)
    } else {
        Err(loc_err(entry(b, key)?, format!("expected a time in ms from 0 to {}, got {x}", tierlab_hdd::MAX_PARAMETER_MS)))
    }
}

fn int(b: &Block, key: &str) -> Result<u64, Error> {
    let x = num(b, key)?;
    if x >= 0.0 && x.fract() == 0.0 && x < 9.0e15 {
        Ok(x as u64)
    } else {
        Err(entry(b, key).map_or_else(|e| e, |e| loc_err(e, format!("expected a non-negative integer, got {x}"))))
    }
}

fn int_or(b: &Block, key: &str, default: u64) -> Result<u64, Error> {
    if b.get(key).is_some() {
        int(b, key)
    } else {
        Ok(default)
    }
}

/// A DiskSim on/off setting: any integer, non-zero meaning on (some files use -1).
fn flag(b: &Block, key: &str, default: bool) -> Result<bool, Error> {
    if b.get(key).is_none() {
        return Ok(default);
    }
    let x = num(b, key)?;
    if x.fract() == 0.0 {
        Ok(x != 0.0)
    } else {
        Err(entry(b, key).map_or_else(|e| e, |e| loc_err(e, format!("expected an integer flag, got {x}"))))
    }
}

fn u32_of(b: &Block, key: &str) -> Result<u32, Error> {
    let v = int(b, key)?;
    u32::try_from(v).map_err(|_| entry(b, key).map_or_else(|e| e, |e| loc_err(e, "value too large")))
}

fn text<'a>(b: &'a Block, key: &str) -> Result<&'a str, Error> {
    let e = entry(b, key)?;
    match &e.value {
        Value::Text(s) => Ok(s),
        _ => Err(loc_err(e, "expected a word or string")),
    }
}

fn sub_block<'a>(b: &'a Block, key: &str) -> Result<&'a Block, Error> {
    let e = entry(b, key)?;
    match &e.value {
        Value::Block(x) => Ok(x),
        Value::Source { items, .. } => all_blocks(items).into_iter().next().ok_or_else(|| loc_err(e, "the sourced file holds no block")),
        _ => Err(loc_err(e, "expected a block")),
    }
}

fn list<'a>(b: &'a Block, key: &str) -> Result<&'a [Value], Error> {
    let e = entry(b, key)?;
    match &e.value {
        Value::List(v) => Ok(v),
        _ => Err(loc_err(e, "expected a list `[ ... ]`")),
    }
}

fn int_list(b: &Block, key: &str) -> Result<Vec<u64>, Error> {
    if b.get(key).is_none() {
        return Ok(Vec::new());
    }
    let e = entry(b, key)?;
    list(b, key)?
        .iter()
        .map(|v| match v {
            Value::Number(x) if *x >= 0.0 && x.fract() == 0.0 && *x < 9.0e15 => Ok(*x as u64),
            _ => Err(loc_err(e, "expected a list of non-negative integers")),
        })
        .collect()
}

/// Find the `.parv` of a drive directory (the one named after the directory, else the
/// only one), or accept a `.parv` path as is.
pub fn find_parv(path: &Path) -> Result<PathBuf, Error> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    let rd = std::fs::read_dir(path).map_err(|e| Error::new(path.display().to_string(), 0, "", format!("cannot list directory: {e}")))?;
    let mut parvs: Vec<PathBuf> = rd
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parv"))
        .collect();
    parvs.sort();
    let dir_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(p) = parvs.iter().find(|p| p.file_stem().is_some_and(|s| s.to_string_lossy() == dir_name)) {
        return Ok(p.clone());
    }
    match parvs.len() {
        1 => Ok(parvs.remove(0)),
        0 => Err(Error::new(path.display().to_string(), 0, "", "no .parv file in the directory")),
        _ => Err(Error::new(path.display().to_string(), 0, "", "several .parv files and none named after the directory")),
    }
}

/// The path from a topology root down to the node named `name` (inclusive).
fn topo_path<'a>(node: &'a TopoNode, name: &str, path: &mut Vec<&'a TopoNode>) -> bool {
    path.push(node);
    if node.name == name {
        return true;
    }
    for c in &node.children {
        if topo_path(c, name, path) {
            return true;
        }
    }
    path.pop();
    false
}

fn flatten_items(items: &[Item]) -> Vec<&Item> {
    let mut out = Vec::new();
    for it in items {
        match it {
            Item::Source { items, .. } => out.extend(flatten_items(items)),
            _ => out.push(it),
        }
    }
    out
}

/// Read the drive described by `path` (a drive directory or a `.parv` file).
pub fn import_drive(path: &Path) -> Result<Imported, Error> {
    let parv = find_parv(path)?;
    let items = parse_file(&parv)?;
    let flat = flatten_items(&items);
    let blocks = all_blocks(&items);
    let by_name = |n: &str| blocks.iter().copied().find(|b| b.name.as_deref() == Some(n));
    let instance_of = |inst: &str| {
        flat.iter().find_map(|it| match it {
            Item::Instantiate { names, as_name, .. } if names.iter().any(|x| x == inst) => Some(as_name.clone()),
            _ => None,
        })
    };
    let parv_name = parv.display().to_string();
    // The disk: through the topology and `instantiate`, else the only disksim_disk block.
    let topo: Vec<&TopoNode> = flat.iter().filter_map(|it| if let Item::Topology(t) = it { Some(t) } else { None }).collect();
    let mut disk_path: Vec<&TopoNode> = Vec::new();
    let mut disk_block: Option<&Block> = None;
    'outer: for root in &topo {
        let mut stack = vec![*root];
        while let Some(n) = stack.pop() {
            if n.type_name == "disksim_disk" {
                let mut p = Vec::new();
                if topo_path(root, &n.name, &mut p) {
                    if let Some(b) = instance_of(&n.name).and_then(|s| by_name(&s)) {
                        disk_path = p;
                        disk_block = Some(b);
                        break 'outer;
                    }
                }
            }
            stack.extend(n.children.iter());
        }
    }
    let disk = match disk_block {
        Some(b) => b,
        None => {
            let disks: Vec<&Block> = blocks.iter().copied().filter(|b| b.type_name == "disksim_disk").collect();
            match disks.as_slice() {
                [one] => *one,
                [] => return Err(Error::new(parv_name, 0, "", "no disksim_disk block found (through `source`s)")),
                _ => return Err(Error::new(parv_name, 0, "", "several disksim_disk blocks and no topology naming one")),
            }
        }
    };
    // Bus and controller transfer times along the path to the disk.
    let mut bus_read = time_ms(disk, "Bulk sector transfer time")?;
    let mut bus_write = bus_read;
    let mut notes = Vec::new();
    for node in disk_path.iter().rev().skip(1).take(2) {
        let Some(b) = instance_of(&node.name).and_then(|s| by_name(&s)) else { continue };
        match node.type_name.as_str() {
            "disksim_bus" => {
                bus_read = bus_read.max(time_ms(b, "Read block transfer time")?);
                bus_write = bus_write.max(time_ms(b, "Write block transfer time")?);
                if num_or(b, "Arbitration time", 0.0)? != 0.0 {
                    notes.push(format!("bus `{}`: arbitration time is not modelled", node.name));
                }
            }
            "disksim_ctlr" => {
                let c = time_ms(b, "Bulk sector transfer time")?;
                bus_read = bus_read.max(c);
                bus_write = bus_write.max(c);
            }
            _ => {}
        }
    }
    let model = sub_block(disk, "Model")?;
    let spec = build_spec(disk, model, bus_read, bus_write, &mut notes)?;
    spec.validate().map_err(|e| spec_error(disk, model, e))?;
    Ok(Imported { spec, parv, notes })
}

/// Which DiskSim parameter sets each field of the spec `build_spec` makes, and in which
/// block: `Disk` (the `disksim_disk`), `Model`, `Layout` or `Mech` (its sub-blocks).
/// Alternatives are separated by `|`: the first the block sets is named.
const SPEC_FIELDS: [(&str, Holder, &str); 42] = [
    ("surfaces", Holder::Model, "Number of data surfaces"),
    ("cylinders", Holder::Model, "Number of cylinders"),
    ("block_count", Holder::Model, "Block count"),
    ("sparing.range_cylinders", Holder::Layout, "Rangesize for sparing"),
    ("rpm", Holder::Mech, "Rotation speed (in rpms)"),
    ("head_switch_ms", Holder::Mech, "Head switch time"),
    ("write_settle_ms", Holder::Mech, "Add. write settling delay"),
    ("seek", Holder::Mech, "Seek type"),
    ("seek.points", Holder::Mech, "Full seek curve|Constant seek time"),
    ("seek.boundary_cyl", Holder::Mech, "HPL seek equation values"),
    ("seek.sqrt", Holder::Mech, "HPL seek equation values"),
    ("seek.linear", Holder::Mech, "HPL seek equation values"),
    ("seek.single_cyl_ms", Holder::Mech, "Single cylinder seek time"),
    ("seek.first_ten_ms", Holder::Mech, "First ten seek times"),
    ("seek.single_track_ms", Holder::Mech, "Single cylinder seek time"),
    ("seek.average_ms", Holder::Mech, "Average seek time"),
    ("seek.full_stroke_ms", Holder::Mech, "Full strobe seek time"),
    ("bus_read_ms_per_sector", Holder::Disk, "Bulk sector transfer time"),
    ("bus_write_ms_per_sector", Holder::Disk, "Bulk sector transfer time"),
    ("overheads.read_hit_after_read_ms", Holder::Disk, "Read hit over. after read"),
    ("overheads.read_hit_after_write_ms", Holder::Disk, "Read hit over. after write"),
    ("overheads.read_miss_after_read_ms", Holder::Disk, "Read miss over. after read"),
    ("overheads.read_miss_after_write_ms", Holder::Disk, "Read miss over. after write"),
    ("overheads.write_hit_after_read_ms", Holder::Disk, "Write hit over. after read"),
    ("overheads.write_hit_after_write_ms", Holder::Disk, "Write hit over. after write"),
    ("overheads.write_miss_after_read_ms", Holder::Disk, "Write miss over. after read"),
    ("overheads.write_miss_after_write_ms", Holder::Disk, "Write miss over. after write"),
    ("overheads.read_completion_ms", Holder::Disk, "Read completion overhead"),
    ("overheads.write_completion_ms", Holder::Disk, "Write completion overhead"),
    ("overheads.data_prep_ms", Holder::Disk, "Data preparation overhead"),
    ("overheads.per_request_ms", Holder::Disk, "Per-request overhead time"),
    ("overheads.reselect_ms", Holder::Disk, "First reselect overhead"),
    ("overheads.reselect_other_ms", Holder::Disk, "Other reselect overhead"),
    ("overheads.read_disconnect_ms", Holder::Disk, "Read disconnect afterread"),
    ("overheads.read_disconnect_after_write_ms", Holder::Disk, "Read disconnect afterwrite"),
    ("overheads.write_disconnect_ms", Holder::Disk, "Write disconnect overhead"),
    ("overheads.min_write_access_ms", Holder::Disk, "Minimum seek delay"),
    ("overheads.time_scale", Holder::Disk, "Time scale for overheads"),
    ("overheads.extra_write_disconnect", Holder::Disk, "Extra write disconnect"),
    ("cache.segments", Holder::Disk, "Number of buffer segments"),
    ("cache.segment_blocks", Holder::Disk, "Segment size (in blks)"),
    ("cache.read_watermark", Holder::Disk, "High (read) water mark"),
];

/// The same for the fields of a zone (`zones[i].<field>`), in the zone's own block.
const ZONE_FIELDS: [(&str, &str); 10] = [
    ("first_cylinder", "First cylinder number"),
    ("last_cylinder", "Last cylinder number"),
    ("blocks_per_track", "Blocks per track"),
    ("first_block_offset_sectors", "Offset of first block"),
    ("reserved_front_blocks", "Empty space at zone front"),
    ("track_skew_sectors", "Skew for track switch"),
    ("cylinder_skew_sectors", "Skew for cylinder switch"),
    ("spares", "Number of spares"),
    ("slips", "slips"),
    ("defects", "defects"),
];

#[derive(Clone, Copy)]
enum Holder {
    Disk,
    Model,
    Layout,
    Mech,
}

/// A spec the model refuses, reported where the files set the offending value: the file
/// and line of the DiskSim parameter (or of its block when the file leaves it to its
/// default), named as the file names it, with the model's field beside the problem.
fn spec_error(disk: &Block, model: &Block, e: tierlab_hdd::SpecError) -> Error {
    let problem = format!("{} ({})", e.problem, e.parameter);
    let located = |b: &Block, keys: &str| match keys.split('|').find_map(|k| b.get(k)) {
        Some(entry) => loc_err(entry, problem.clone()),
        None => block_err(b, keys.split('|').next().unwrap_or(keys), problem.clone()),
    };
    let layout = sub_block(model, "Layout Model").ok();
    if let Some(rest) = e.parameter.strip_prefix("zones[") {
        let zone = rest.split_once(']').and_then(|(i, field)| Some((i.parse::<usize>().ok()?, field.trim_start_matches('.'))));
        let zones = layout.and_then(|l| list(l, "Zones").ok()).unwrap_or_default();
        if let Some((i, field)) = zone {
            if let Some(Value::Block(z)) = zones.get(i) {
                let key = ZONE_FIELDS.iter().find(|(f, _)| field.starts_with(f)).map_or("Blocks per track", |(_, k)| k);
                return located(z, key);
            }
        }
    }
    let field = SPEC_FIELDS.iter().filter(|(f, _, _)| e.parameter.starts_with(f)).max_by_key(|(f, _, _)| f.len());
    if let Some(&(_, holder, key)) = field {
        let block = match holder {
            Holder::Disk => Some(disk),
            Holder::Model => Some(model),
            Holder::Layout => layout,
            Holder::Mech => sub_block(model, "Mechanical Model").ok(),
        };
        if let Some(b) = block {
            return located(b, key);
        }
    }
    block_err(model, &e.parameter, e.problem)
}

fn build_spec(disk: &Block, model: &Block, bus_read: f64, bus_write: f64, notes: &mut Vec<String>) -> Result<HddSpec, Error> {
    let surfaces = u32_of(model, "Number of data surfaces")?;
    let cylinders = u32_of(model, "Number of cylinders")?;
    let block_count = int(model, "Block count")?;
    let layout = sub_block(model, "Layout Model")?;
    if layout.type_name != "dm_layout_g1" {
        return Err(block_err(layout, "Layout Model", format!("only dm_layout_g1 is supported, found `{}`", layout.type_name)));
    }
    let mapping = match int(layout, "LBN-to-PBN mapping scheme")? {
        0 => LbnMapping::Conventional,
        1 => LbnMapping::SerpentinePerZone,
        2 => LbnMapping::SerpentineGlobal,
        m => return Err(loc_err(entry(layout, "LBN-to-PBN mapping scheme")?, format!("expected 0, 1 or 2, got {m}"))),
    };
    let scheme = int(layout, "Sparing scheme used")?;
    let range = int_or(layout, "Rangesize for sparing", 1)?;
    let sparing = match scheme {
        0 => Sparing::None,
        1 => Sparing::TracksPerZone,
        2 => Sparing::SectorsPerCylinder,
        3 => Sparing::SectorsPerTrack,
        7 | 9 => Sparing::SectorsPerZone,
        8 => Sparing::SectorsPerRange { range_cylinders: u32::try_from(range).unwrap_or(u32::MAX) },
        s => return Err(loc_err(entry(layout, "Sparing scheme used")?, format!("sparing scheme {s} is not supported (0, 1, 2, 3, 7, 8, 9 are)"))),
    };
    let revolutions = |b: &Block| -> Result<Option<bool>, Error> {
        Ok(match b.get("Skew units") {
            None => None,
            Some(_) => Some(match text(b, "Skew units")? {
                "revolutions" => true,
                "sectors" => false,
                other => return Err(loc_err(entry(b, "Skew units")?, format!("expected `sectors` or `revolutions`, got `{other}`"))),
            }),
        })
    };
    let layout_revs = revolutions(layout)?.unwrap_or(false);
    let zl = list(layout, "Zones")?;
    let mut zones = Vec::with_capacity(zl.len());
    let zones_entry = entry(layout, "Zones")?;
    for v in zl {
        let Value::Block(z) = v else { return Err(loc_err(zones_entry, "expected a list of dm_layout_g1_zone blocks")) };
        let spt = u32_of(z, "Blocks per track")?;
        let revs = revolutions(z)?.unwrap_or(layout_revs);
        let skew = |k: &str| -> Result<f64, Error> {
            let x = num_or(z, k, 0.0)?;
            Ok(if revs { x * f64::from(spt) } else { x })
        };
        let mut slips = int_list(z, "slips")?;
        if slips.windows(2).any(|w| w[0] >= w[1]) {
            slips.sort_unstable();
            slips.dedup();
            notes.push(format!("{}:{}: slips sorted into ascending order", z.loc.file, z.loc.line));
        }
        let flat_defects = int_list(z, "defects")?;
        if flat_defects.len() % 2 == 1 {
            return Err(loc_err(entry(z, "defects")?, "expected (defect, remap) pairs: an even number of values"));
        }
        let spares = if scheme == 7 { slips.len() as u64 } else { int(z, "Number of spares")? };
        zones.push(ZoneSpec {
            first_cylinder: u32_of(z, "First cylinder number")?,
            last_cylinder: u32_of(z, "Last cylinder number")?,
            blocks_per_track: spt,
            first_block_offset_sectors: skew("Offset of first block")?,
            reserved_front_blocks: int_or(z, "Empty space at zone front", 0)?,
            track_skew_sectors: skew("Skew for track switch")?,
            cylinder_skew_sectors: skew("Skew for cylinder switch")?,
            spares,
            slips,
            defects: flat_defects.chunks(2).map(|c| (c[0], c[1])).collect(),
            surface_blocks_per_track: Vec::new(),
        });
    }
    let mut cylinders = cylinders;
    if let Some(last) = zones.iter().map(|z| z.last_cylinder).max() {
        if last >= cylinders {
            notes.push(format!("zones reach cylinder {last}, beyond `Number of cylinders = {cylinders}`; the drive is taken to have {} cylinders", last + 1));
            cylinders = last + 1;
        }
    }
    let mech = sub_block(model, "Mechanical Model")?;
    let access = text(mech, "Access time type")?;
    if access != "trackSwitchPlusRotation" {
        return Err(loc_err(entry(mech, "Access time type")?, format!("only trackSwitchPlusRotation is supported, got `{access}`")));
    }
    let seek = seek_model(mech)?;
    if num_or(mech, "Percent error in rpms", 0.0)? != 0.0 {
        notes.push(format!("{}: `Percent error in rpms` is not modelled (the nominal rpm is used)", at(mech, "Percent error in rpms")));
    }
    let overheads = Overheads {
        read_hit_after_read_ms: num(disk, "Read hit over. after read")?,
        read_hit_after_write_ms: num(disk, "Read hit over. after write")?,
        read_miss_after_read_ms: num(disk, "Read miss over. after read")?,
        read_miss_after_write_ms: num(disk, "Read miss over. after write")?,
        write_hit_after_read_ms: num(disk, "Write hit over. after read")?,
        write_hit_after_write_ms: num(disk, "Write hit over. after write")?,
        write_miss_after_read_ms: num(disk, "Write miss over. after read")?,
        write_miss_after_write_ms: num(disk, "Write miss over. after write")?,
        read_completion_ms: num_or(disk, "Read completion overhead", 0.0)?,
        write_completion_ms: num_or(disk, "Write completion overhead", 0.0)?,
        data_prep_ms: num_or(disk, "Data preparation overhead", 0.0)?,
        per_request_ms: num_or(disk, "Per-request overhead time", 0.0)?,
        reselect_ms: num_or(disk, "First reselect overhead", 0.0)?,
        reselect_other_ms: num_or(disk, "Other reselect overhead", 0.0)?,
        min_write_access_ms: num_or(disk, "Minimum seek delay", 0.0)?,
        extra_write_disconnect: if int_or(disk, "Extra write disconnect", 0)? != 0 {
            Some(ExtraWriteDisconnect {
                command_ms: num(disk, "Extradisc command overhead")?,
                disconnect_ms: num(disk, "Extradisc disconnect overhead")?,
                inter_disconnect_ms: num(disk, "Extradisc inter-disconnect delay")?,
                seek_delta_ms: num(disk, "Extradisc seek delta")?,
                buffered_before_write_blocks: ExtraWriteDisconnect::DISKSIM_BUFFERED_BLOCKS,
                buffered_before_large_write_blocks: ExtraWriteDisconnect::DISKSIM_BUFFERED_BLOCKS_LARGE,
                large_write_blocks: ExtraWriteDisconnect::DISKSIM_LARGE_WRITE_BLOCKS,
            })
        } else {
            None
        },
        read_disconnect_ms: num_or(disk, "Read disconnect afterread", 0.0)?,
        read_disconnect_after_write_ms: num_or(disk, "Read disconnect afterwrite", 0.0)?,
        write_disconnect_ms: num_or(disk, "Write disconnect overhead", 0.0)?,
        time_scale: num_or(disk, "Time scale for overheads", 1.0)?,
        never_disconnect: flag(disk, "Never disconnect", false)?,
        after_write_figures_for_appends_only: true,
    };
    let read_ahead = match int_or(disk, "Buffer continuous read", 0)? {
        0 => ReadAheadMode::None,
        1 => ReadAheadMode::TrackEnd,
        2 => ReadAheadMode::CylinderEnd,
        3 => ReadAheadMode::SegmentFull,
        4 => ReadAheadMode::TrackAhead,
        m => return Err(loc_err(entry(disk, "Buffer continuous read")?, format!("expected 0..=4, got {m}"))),
    };
    let segments = u32_of(disk, "Number of buffer segments")?;
    let cache = CacheSpec {
        enabled: flag(disk, "Enable caching in buffer", true)?,
        segments,
        segment_blocks: int(disk, "Segment size (in blks)")?,
        max_write_segments: u32::try_from(int_or(disk, "Maximum number of write segments", u64::from(segments))?.clamp(1, u64::from(segments.max(1))))
            .unwrap_or(1),
        separate_write_segment: flag(disk, "Use separate write segment", false)?,
        read_ahead,
        max_read_ahead_blocks: int_or(disk, "Maximum read-ahead (blks)", 0)?,
        read_ahead_over_requested: flag(disk, "Read-ahead over requested", false)?,
        read_ahead_on_idle_hit: flag(disk, "Read-ahead on idle hit", false)?,
        write_back: flag(disk, "Fast write level", false)?,
        read_hits_on_write_data: flag(disk, "Allow read hits on write data", true)?,
        read_free_blocks: flag(disk, "Read any free blocks", false)?,
        read_watermark: num_or(disk, "High (read) water mark", 0.0)?,
        watermark_by_request: flag(disk, "Set watermark by reqsize", true)?,
        zero_latency_read: flag(disk, "Immediate buffer read", false)?,
        zero_latency_write: flag(disk, "Immediate buffer write", false)?,
        stop_prefetch_in_sector: flag(disk, "Stop prefetch in sector", true)?,
        read_ahead_continues: false,
        write_back_in_every_segment: true,
    };
    for (key, default) in [
        ("Minimum read-ahead (blks)", 0.0),
        ("Allow almost read hits", 0.0),
        ("Allow sneaky full read hits", 0.0),
        ("Allow sneaky partial read hits", 0.0),
        ("Allow sneaky intermediate read hits", 0.0),
        ("Allow write prebuffering", 0.0),
        ("Preseeking level", 0.0),
        ("Low (write) water mark", 0.0),
        ("Extradisc 2nd disconnect overhead", 0.0),
    ] {
        let v = num_or(disk, key, default)?;
        if v != default {
            notes.push(format!("{}: `{key} = {v}` is not modelled", at(disk, key)));
        }
    }
    if !cache.write_back && overheads.write_disconnect_ms != 0.0 {
        let key = "Write disconnect overhead";
        notes.push(format!(
            "{}: `{key} = {}` is charged only to a write-back write that waits for a write segment; on this write-through drive it is not modelled (DiskSim charges it when a write larger than its segment disconnects)",
            at(disk, key),
            overheads.write_disconnect_ms
        ));
    }

    let settle = num_or(mech, "Add. write settling delay", 0.0)?;
    let name = disk.name.clone().unwrap_or_else(|| "disk".into());
    let mut spec = HddSpec {
        name,
        surfaces,
        cylinders,
        block_count,
        sector_bytes: 512,
        rpm: num(mech, "Rotation speed (in rpms)")?,
        mapping,
        sparing,
        zones,
        seek,
        head_switch_ms: num_or(mech, "Head switch time", 0.0)?,
        write_settle_ms: settle,
        overheads,
        bus_read_ms_per_sector: bus_read,
        bus_write_ms_per_sector: bus_write,
        cache,
    };
    let sum: i128 = spec.zones.iter().map(|z| spec.zone_blocks(z)).sum();
    if sum < i128::from(block_count) {
        return Err(loc_err(entry(model, "Block count")?, format!("is {block_count} but the zones provide only {sum} blocks")));
    }
    if sum > i128::from(block_count) {
        // DiskSim's layout replaces `Block count` by the count its zones map, so every
        // mapped block is addressable (the HP C3323A's validation trace addresses blocks
        // beyond its `Block count`).
        spec.block_count = u64::try_from(sum).unwrap_or(u64::MAX);
        notes.push(format!("the zones map {sum} blocks, more than `Block count = {block_count}`; as in DiskSim all {sum} are addressable"));
    }
    Ok(spec)
}

fn seek_model(mech: &Block) -> Result<SeekModel, Error> {
    let kind = text(mech, "Seek type")?;
    let hpl = |with_ten: bool| -> Result<SeekModel, Error> {
        let e = entry(mech, "HPL seek equation values")?;
        let v: Vec<f64> = list(mech, "HPL seek equation values")?
            .iter()
            .map(|x| if let Value::Number(n) = x { Ok(*n) } else { Err(loc_err(e, "expected numbers")) })
            .collect::<Result<_, _>>()?;
        if v.len() != 6 {
            return Err(loc_err(e, format!("expected 6 values (boundary, sqrt const, sqrt mult, linear const, linear mult, single-cylinder flag), got {}", v.len())));
        }
        let first_ten = if with_ten {
            let fe = entry(mech, "First ten seek times")?;
            let f: Vec<f64> = list(mech, "First ten seek times")?
                .iter()
                .map(|x| if let Value::Number(n) = x { Ok(*n) } else { Err(loc_err(fe, "expected numbers")) })
                .collect::<Result<_, _>>()?;
            if f.len() != 10 {
                return Err(loc_err(fe, format!("expected 10 values, got {}", f.len())));
            }
            Some(f)
        } else {
            None
        };
        let single = if v[5] != -1.0 && !with_ten { Some(num(mech, "Single cylinder seek time")?) } else { None };
        Ok(SeekModel::Equation {
            boundary_cyl: v[0],
            sqrt_const_ms: v[1],
            sqrt_mult_ms: v[2],
            linear_const_ms: v[3],
            linear_mult_ms: v[4],
            single_cyl_ms: single,
            first_ten_ms: first_ten,
        })
    };
    match kind {
        "extracted" => {
            let e = entry(mech, "Full seek curve")?;
            let name = text(mech, "Full seek curve")?;
            let dir = Path::new(&e.loc.file).parent().map(Path::to_path_buf).unwrap_or_default();
            read_seek_table(&dir.join(name)).map(|points| SeekModel::Table { points })
        }
        "hpl" => hpl(false),
        "hplplus10" => hpl(true),
        "constant" => Ok(SeekModel::Table { points: vec![(1, num(mech, "Constant seek time")?)] }),
        "linear" | "curve" => Ok(SeekModel::Datasheet {
            single_track_ms: num(mech, "Single cylinder seek time")?,
            average_ms: num(mech, "Average seek time")?,
            full_stroke_ms: num(mech, "Full strobe seek time")?,
        }),
        other => Err(loc_err(entry(mech, "Seek type")?, format!("unknown seek type `{other}`"))),
    }
}

/// Read a DiskSim extracted seek curve: an optional `Seek distances measured: N` line,
/// then `distance, time_ms[, stdev]` lines.
pub fn read_seek_table(path: &Path) -> Result<Vec<(u32, f64)>, Error> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::new(file.clone(), 0, "", format!("cannot read seek curve: {e}")))?;
    let mut points: Vec<(u32, f64)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let ln = i as u64 + 1;
        let l = line.trim();
        if l.is_empty() || l.starts_with("Seek distances measured") || l.starts_with('#') {
            continue;
        }
        let mut f = l.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty());
        let d = f.next().and_then(|s| s.parse::<u32>().ok()).ok_or_else(|| Error::new(file.clone(), ln, "distance", "expected a whole number of cylinders"))?;
        let t = f
            .next()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|t| t.is_finite() && (0.0..=tierlab_hdd::MAX_PARAMETER_MS).contains(t))
            .ok_or_else(|| Error::new(file.clone(), ln, "time", format!("expected a seek time in ms (0 to {})", tierlab_hdd::MAX_PARAMETER_MS)))?;
        if points.last().is_some_and(|p| p.0 >= d) || d == 0 {
            return Err(Error::new(file.clone(), ln, "distance", "distances must be >= 1 and ascending"));
        }
        points.push((d, t));
    }
    if points.is_empty() {
        return Err(Error::new(file, 0, "", "the seek curve has no points"));
    }
    Ok(points)
}
