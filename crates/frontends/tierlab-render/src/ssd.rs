//! The SSD catalog listed (`tierlab ssd list`): each drive's capacity, FTL, rated
//! endurance and, where it has them, its data-sheet figures.

use anyhow::Result;
use serde::Serialize;
use tierlab_report::Table;

/// One catalog SSD, as `ssd list --json` gives it.
#[derive(Clone, Debug, Serialize)]
pub struct Listed {
    pub id: &'static str,
    pub description: String,
    pub capacity_bytes: u64,
    pub ftl: &'static str,
    pub rated_endurance_bytes: Option<u64>,
    pub datasheet: Option<tierlab_ssd_datasheet::DatasheetSpec>,
}

/// Every built-in catalog SSD, in the catalog's order.
pub fn list() -> Result<Vec<Listed>> {
    let mut listed = Vec::new();
    for (id, _) in tierlab_ssd::catalog::BUILTIN {
        let e = tierlab_ssd::catalog::builtin(id)?;
        listed.push(Listed {
            id,
            description: e.description,
            capacity_bytes: e.ssd.capacity_bytes(),
            ftl: e.ssd.ftl.kind.name(),
            rated_endurance_bytes: e.ssd.rated_endurance_bytes,
            datasheet: e.datasheet,
        });
    }
    Ok(listed)
}

/// The listed SSDs as one table.
pub fn render_list(listed: &[Listed]) -> String {
    let mut t = Table::new(["id", "capacity (GB)", "FTL", "rated (TBW)", "QD1 r/w (us)", "seq r/w (MB/s)", "4K IOPS r/w (k)"]);
    for l in listed {
        let pair = |r: u64, w: u64, unit: f64| format!("{}/{}", r as f64 / unit, w as f64 / unit);
        let [latency, bandwidth, iops] = match &l.datasheet {
            Some(d) => [
                pair(d.read_latency_ns, d.write_latency_ns, 1e3),
                pair(d.read_bytes_per_s, d.write_bytes_per_s, 1e6),
                pair(d.read_iops, d.write_iops, 1e3),
            ],
            None => ["-".to_string(), "-".to_string(), "-".to_string()],
        };
        t.row([
            l.id.to_string(),
            format!("{:.1}", l.capacity_bytes as f64 / 1e9),
            l.ftl.to_string(),
            l.rated_endurance_bytes.map_or("?".into(), |b| format!("{:.1}", b as f64 / 1e12)),
            latency,
            bandwidth,
            iops,
        ]);
    }
    t.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_ssd_is_listed_with_its_sheet_figures_where_it_has_them() {
        let listed = list().unwrap();
        assert_eq!(listed.len(), tierlab_ssd::catalog::BUILTIN.len());
        let text = render_list(&listed);
        for l in &listed {
            let row = text.lines().find(|r| r.starts_with(l.id)).unwrap_or_else(|| panic!("no {} in\n{text}", l.id));
            assert_eq!(row.contains(" - "), l.datasheet.is_none(), "{row}");
        }
    }
}
