//! The catalog's entries of every kind — HDDs (`catalog/hdd`), SSDs (`catalog/ssd`),
//! storage controllers and disk enclosures (`catalog/system`), and the device types of the
//! planning catalogs (`catalog/plan`) — read through each catalog's own parser and listed
//! with their key figures and sources ([`entries`]), one found by id ([`find`]), and
//! rendered as a table per kind ([`render_list`]) or one entry with all its figures and
//! citations ([`render_show`]).

use anyhow::{anyhow, Context, Result};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tierlab_report::Table;

/// The kinds of catalog entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Hdd,
    Ssd,
    Controller,
    Enclosure,
    /// A device type of a planning catalog (`tierlab plan --catalog`).
    Plan,
}

impl Kind {
    pub fn heading(self) -> &'static str {
        match self {
            Kind::Hdd => "HDDs (catalog/hdd; --device, --disk)",
            Kind::Ssd => "SSDs (catalog/ssd; --ssd)",
            Kind::Controller => "storage controllers (catalog/system/controller; --system files)",
            Kind::Enclosure => "disk enclosures (catalog/system/enclosure; --system files)",
            Kind::Plan => "planning device types (catalog/plan; tierlab plan --catalog)",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Hdd => "HDD",
            Kind::Ssd => "SSD",
            Kind::Controller => "storage controller",
            Kind::Enclosure => "disk enclosure",
            Kind::Plan => "planning device type",
        }
    }
}

/// One catalog entry, as `list` and `show` give it.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub kind: Kind,
    pub id: String,
    /// What it is (vendor and model, or the file's description).
    pub name: String,
    /// The file it was read from (a repository path for built-in entries).
    pub file: String,
    /// Key figures, in the order `list` prints them: (column, value); an object in JSON.
    #[serde(serialize_with = "in_order")]
    pub figures: Vec<(String, String)>,
    /// Source key (or cited figure) → citation.
    pub sources: BTreeMap<String, String>,
    /// The whole entry, every figure.
    pub entry: Value,
}

fn in_order<S: serde::Serializer>(pairs: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| format!("{x:.decimals$}")).unwrap_or_else(|| "?".into())
}

fn figures<const N: usize>(pairs: [(&str, String); N]) -> Vec<(String, String)> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// `*.toml` files of `dir` in name order, as (path, text); `None` when `dir` is absent.
fn tomls(dir: &Path) -> Result<Option<Vec<(String, String)>>> {
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let text = std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        out.push((p.display().to_string(), text));
    }
    Ok(Some(out))
}

fn hdds(dir: Option<&Path>) -> Result<Vec<Entry>> {
    let cat = match dir {
        Some(d) if !d.join("hdd").is_dir() => return Ok(Vec::new()),
        _ => tierlab_devices::catalog(dir)?,
    };
    let mut out = Vec::new();
    for e in cat.hdds() {
        let idle = e.default_power().map(|p| p.spec.idle_w);
        let profiles: Vec<&str> = e.power_profiles.iter().map(|p| p.name.as_str()).collect();
        let mut sources = e.sources.clone();
        sources.retain(|_, v| !v.is_empty());
        out.push(Entry {
            kind: Kind::Hdd,
            id: e.id.clone(),
            name: format!("{} {}", e.vendor, e.model),
            file: cat.hdd_file(&e.id).unwrap_or_default().to_string(),
            figures: figures([
                ("GB", format!("{:.1}", e.capacity_bytes as f64 / 1e9)),
                ("rpm", e.rpm.to_string()),
                ("seek ms", opt(e.seek.average_read_ms, 1)),
                ("MB/s", opt(e.transfer.sustained_max_mb_s, 0)),
                ("idle W", opt(idle, 2)),
                ("power profiles", if profiles.is_empty() { "none".into() } else { profiles.join(", ") }),
                ("source", e.source.clone()),
            ]),
            sources,
            entry: serde_json::to_value(e)?,
        });
    }
    Ok(out)
}

fn ssds(dir: Option<&Path>) -> Result<Vec<Entry>> {
    let files: Vec<(String, String)> = match dir {
        Some(d) => match tomls(&d.join("ssd"))? {
            Some(files) => files,
            None => return Ok(Vec::new()),
        },
        None => tierlab_ssd::catalog::BUILTIN.iter().map(|(id, text)| (format!("catalog/ssd/{id}.toml"), text.to_string())).collect(),
    };
    let mut out = Vec::new();
    for (file, text) in files {
        let e = tierlab_ssd::catalog::parse_catalog(&text, &file)?;
        let s = &e.ssd;
        let id = Path::new(&file).file_stem().map(|x| x.to_string_lossy().into_owned()).unwrap_or_default();
        let iops = match (&s.host, &e.datasheet) {
            (_, Some(d)) => format!("{:.0}/{:.0}", d.read_iops, d.write_iops),
            (Some(h), None) => format!("{}/{}", h.read_iops.map_or("?".into(), |x| x.to_string()), h.write_iops.map_or("?".into(), |x| x.to_string())),
            (None, None) => "?".into(),
        };
        let estimates = e.sources.values().filter(|v| v.trim_start().starts_with("estimate")).count();
        out.push(Entry {
            kind: Kind::Ssd,
            id,
            name: e.description.clone(),
            file,
            figures: figures([
                ("GB", format!("{:.1}", s.capacity_bytes() as f64 / 1e9)),
                ("FTL", s.ftl.kind.name().to_string()),
                ("IOPS r/w", iops),
                ("idle W", format!("{:.2}", s.energy.idle_w)),
                ("TBW", opt(s.rated_endurance_bytes.map(|b| b as f64 / 1e12), 1)),
                ("P/E", s.pe_cycle_limit.to_string()),
                ("sheet", if e.datasheet.is_some() { "yes" } else { "no" }.to_string()),
                ("sources", format!("{} cited, {estimates} est.", e.sources.len() - estimates)),
            ]),
            sources: e.sources.clone(),
            entry: json!({ "description": e.description, "ssd": s, "datasheet": e.datasheet, "sources": e.sources }),
        });
    }
    Ok(out)
}

fn system(dir: Option<&Path>) -> Result<Vec<Entry>> {
    let cat = match dir {
        None => tierlab_system_power::builtin(),
        Some(d) => {
            let controllers = tomls(&d.join("system/controller"))?.unwrap_or_default();
            let enclosures = tomls(&d.join("system/enclosure"))?.unwrap_or_default();
            let mut c = tierlab_system_power::SystemCatalog::default();
            c.add_texts(controllers.iter().map(|(f, t)| (f.as_str(), t.as_str())), enclosures.iter().map(|(f, t)| (f.as_str(), t.as_str())))?;
            c
        }
    };
    let files = |prefix: &str, id: &str| match dir {
        None => format!("catalog/system/{prefix}/{id}.toml"),
        Some(d) => d.join("system").join(prefix).join(format!("{id}.toml")).display().to_string(),
    };
    let mut out = Vec::new();
    for c in cat.controllers() {
        let rise = c.load_rise.as_ref().and_then(|r| r.workloads.get(&r.default).map(|x| format!("{:.0} % ({})", x * 100.0, r.default)));
        out.push(Entry {
            kind: Kind::Controller,
            id: c.id.clone(),
            name: format!("{} {}", c.vendor, c.model),
            file: files("controller", &c.id),
            figures: figures([
                ("idle W", format!("{:.0}", c.idle_w)),
                ("loaded rise", rise.unwrap_or_else(|| "?".into())),
                ("max TB", opt(c.max_capacity_tb, 0)),
                ("shipped", c.ship_year.map_or("?".into(), |y| y.to_string())),
                ("source", c.source.clone()),
            ]),
            sources: c.sources.clone(),
            entry: serde_json::to_value(c)?,
        });
    }
    for e in cat.enclosures() {
        out.push(Entry {
            kind: Kind::Enclosure,
            id: e.id.clone(),
            name: format!("{} {}", e.vendor, e.model),
            file: files("enclosure", &e.id),
            figures: figures([
                ("slots", e.slots.to_string()),
                ("idle W", format!("{:.0}", e.idle_w)),
                ("spun down W", format!("{:.0}", e.spun_down_w)),
                ("powered down W", opt(e.powered_down_w, 0)),
                ("slot power-down", if e.power_down { "yes" } else { "no" }.to_string()),
                ("source", e.source.clone()),
            ]),
            sources: e.sources.clone(),
            entry: serde_json::to_value(e)?,
        });
    }
    Ok(out)
}

fn plan(dir: Option<&Path>) -> Result<Vec<Entry>> {
    let files: Vec<(String, String)> = match dir {
        Some(d) => tomls(&d.join("plan"))?.unwrap_or_default(),
        None => tierlab_mixplan::catalog::BUILTIN.iter().map(|(id, text)| (format!("catalog/plan/{id}.toml"), text.to_string())).collect(),
    };
    let mut out = Vec::new();
    for (file, text) in files {
        let cat: tierlab_mixplan::catalog::PlanCatalog = tierlab_config::parse_toml_validated(&text, &file)?;
        for d in &cat.devices {
            let model = match &d.model {
                tierlab_mixplan::catalog::ModelRef::Ssd(id) => format!("ssd {id}"),
                tierlab_mixplan::catalog::ModelRef::Hdd(id) => format!("hdd {id}"),
                tierlab_mixplan::catalog::ModelRef::HddDatasheet(_) => "hdd from data sheet".into(),
                tierlab_mixplan::catalog::ModelRef::Datasheet(_) => "ssd from data sheet".into(),
            };
            let sources = cat.sources.iter().filter(|(k, _)| **k == d.source).map(|(k, v)| (k.clone(), v.clone())).collect();
            out.push(Entry {
                kind: Kind::Plan,
                id: format!("{}/{}", cat.id, d.id),
                name: d.name.clone(),
                file: file.clone(),
                figures: figures([
                    ("type", format!("{:?}", d.kind).to_lowercase()),
                    ("GB", format!("{:.0}", d.capacity_gb)),
                    ("$/GB", opt(d.price_usd_per_gb, 2)),
                    ("MB/s r/w", format!("{:.0}/{:.0}", d.read_mb_s, d.write_mb_s)),
                    ("W+extra", format!("{:.1}+{:.1}", d.device_w, d.supplement_w)),
                    ("timed by", model),
                    ("source", d.source.clone()),
                ]),
                sources,
                entry: serde_json::to_value(d)?,
            });
        }
    }
    Ok(out)
}

/// Every entry of the catalog (the built-in one, or `dir`'s), HDDs first.
pub fn entries(dir: Option<&Path>, kind: Option<Kind>) -> Result<Vec<Entry>> {
    let mut all = Vec::new();
    let want = |k: Kind| kind.is_none_or(|x| x == k);
    if want(Kind::Hdd) {
        all.extend(hdds(dir)?);
    }
    if want(Kind::Ssd) {
        all.extend(ssds(dir)?);
    }
    if want(Kind::Controller) || want(Kind::Enclosure) {
        all.extend(system(dir)?.into_iter().filter(|e| want(e.kind)));
    }
    if want(Kind::Plan) {
        all.extend(plan(dir)?);
    }
    Ok(all)
}

/// The entry `id` names: an exact id, or a planning device's id without its catalog when
/// only one catalog has it. The error lists the ids there are.
pub fn find(all: Vec<Entry>, id: &str) -> Result<Entry> {
    let known = || all.iter().map(|e| e.id.as_str()).collect::<Vec<_>>().join(", ");
    let mut hits: Vec<&Entry> = all.iter().filter(|e| e.id == id).collect();
    if hits.is_empty() {
        hits = all.iter().filter(|e| e.kind == Kind::Plan && e.id.rsplit_once('/').is_some_and(|(_, d)| d == id)).collect();
    }
    match hits.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(anyhow!("no catalog entry `{id}`; known ids: {}", known())),
        many => Err(anyhow!(
            "`{id}` names {} entries ({}); give --kind or the full id",
            many.len(),
            many.iter().map(|e| format!("{} {}", e.kind.name(), e.id)).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// `value`'s leaves as `key.path = value` lines, sources left out (they are printed apart).
fn leaves(value: &Value, prefix: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                if prefix.is_empty() && (k == "sources" || k == "id") {
                    continue;
                }
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                leaves(v, &p, out);
            }
        }
        Value::Array(a) if a.iter().any(|v| v.is_object()) => {
            for (i, v) in a.iter().enumerate() {
                let name = v.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| i.to_string());
                leaves(v, &format!("{prefix}[{name}]"), out);
            }
        }
        Value::Array(a) if a.is_empty() => {}
        Value::Array(a) if a.iter().all(|v| scalar(v).chars().count() <= 40) => out.push((prefix.to_string(), a.iter().map(scalar).collect::<Vec<_>>().join(", "))),
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                out.push((format!("{prefix}[{i}]"), scalar(v)));
            }
        }
        Value::Null => {}
        v => out.push((prefix.to_string(), scalar(v))),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(scalar).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// The entry as people read it: what it is, its file, every figure, every citation.
pub fn render_show(e: &Entry) -> String {
    let mut s = format!("{} `{}`: {}\nfile: {}\n\nfigures\n", e.kind.name(), e.id, e.name, e.file);
    let mut rows = Vec::new();
    leaves(&e.entry, "", &mut rows);
    let width = rows.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    for (k, v) in rows {
        s.push_str(&format!("  {k:<width$}  {v}\n"));
    }
    if !e.sources.is_empty() {
        s.push_str("\nsources\n");
        for (k, v) in &e.sources {
            s.push_str(&format!("  {k}: {v}\n"));
        }
    }
    s
}

/// The entries as one table per kind.
pub fn render_list(all: &[Entry]) -> String {
    let mut s = String::new();
    let mut kinds: Vec<Kind> = all.iter().map(|e| e.kind).collect();
    kinds.dedup();
    for kind in kinds {
        let rows: Vec<&Entry> = all.iter().filter(|e| e.kind == kind).collect();
        let mut header = vec!["id".to_string()];
        header.extend(rows[0].figures.iter().map(|(k, _)| k.clone()));
        let mut t = Table::new(header);
        for e in rows {
            let mut row = vec![e.id.clone()];
            row.extend(e.figures.iter().map(|(_, v)| v.clone()));
            t.row(row);
        }
        if !s.is_empty() {
            s.push('\n');
        }
        s.push_str(&format!("{}\n{}", kind.heading(), t.render()));
    }
    s.push_str("\n`tierlab catalog show ID` prints an entry's every figure and the citation of each source.\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: Kind, id: &str) -> Entry {
        Entry { kind, id: id.into(), name: format!("the {id}"), file: format!("{id}.toml"), figures: figures([("GB", "1.0".into())]), sources: BTreeMap::new(), entry: json!({ "id": id, "a": { "b": 2 }, "sources": {} }) }
    }

    #[test]
    fn find_takes_a_planning_device_without_its_catalog_and_names_ambiguity() {
        let all = vec![entry(Kind::Hdd, "x25m"), entry(Kind::Plan, "one/x25m"), entry(Kind::Plan, "one/disk"), entry(Kind::Plan, "two/disk")];
        assert_eq!(find(all.clone(), "x25m").map(|e| e.kind).ok(), Some(Kind::Hdd), "an exact id first");
        assert_eq!(find(all.clone(), "one/x25m").map(|e| e.id).ok().as_deref(), Some("one/x25m"));
        let e = find(all.clone(), "disk").unwrap_err().to_string();
        assert!(e.contains("names 2 entries") && e.contains("planning device type one/disk"), "{e}");
        let e = find(all, "nothing").unwrap_err().to_string();
        assert!(e.contains("known ids: x25m, one/x25m"), "{e}");
    }

    #[test]
    fn show_lists_leaves_without_id_or_sources_and_list_groups_by_kind() {
        let shown = render_show(&entry(Kind::Ssd, "s"));
        assert!(shown.starts_with("SSD `s`: the s\nfile: s.toml\n\nfigures\n  a.b  2\n"), "{shown}");
        assert!(!shown.contains("sources"), "{shown}");
        let list = render_list(&[entry(Kind::Hdd, "h"), entry(Kind::Ssd, "s")]);
        assert!(list.starts_with(Kind::Hdd.heading()) && list.contains(&format!("\n\n{}", Kind::Ssd.heading())), "{list}");
    }

    #[test]
    fn the_built_in_catalog_lists_every_kind() {
        let all = entries(None, None).unwrap_or_else(|e| panic!("{e:#}"));
        for kind in [Kind::Hdd, Kind::Ssd, Kind::Controller, Kind::Enclosure, Kind::Plan] {
            assert!(all.iter().any(|e| e.kind == kind), "no {kind:?}");
        }
        assert!(entries(None, Some(Kind::Ssd)).unwrap().iter().all(|e| e.kind == Kind::Ssd));
    }
}
