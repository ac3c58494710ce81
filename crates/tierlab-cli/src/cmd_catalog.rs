//! `tierlab catalog …`

use crate::devices::catalog;
use anyhow::{anyhow, Result};
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;
use tierlab_report::Table;

#[derive(Subcommand)]
pub enum CatalogCommand {
    /// List the drives with their headline figures ("?" where the catalog marks a figure unknown).
    List {
        /// Read the catalog from this directory instead of the built-in one.
        #[arg(long, value_name = "DIR")]
        catalog: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Print one drive's catalog file, with every value's source.
    Show {
        id: String,
        #[arg(long, value_name = "DIR")]
        catalog: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map(|x| format!("{x:.decimals$}")).unwrap_or_else(|| "?".into())
}

pub fn run(cmd: CatalogCommand) -> Result<()> {
    let mut out = crate::session::stdout();
    match cmd {
        CatalogCommand::List { catalog: dir, json } => {
            let cat = catalog(dir.as_deref())?;
            if json {
                let entries: Vec<_> = cat.hdds().collect();
                serde_json::to_writer_pretty(&mut out, &entries)?;
                writeln!(out)?;
                return Ok(());
            }
            let mut t = Table::new(["id", "rpm", "capacity (GB)", "avg seek (ms)", "transfer (MB/s)", "idle (W)", "power profiles"]);
            for e in cat.hdds() {
                let profile = e.default_power();
                t.row([
                    e.id.clone(),
                    e.rpm.to_string(),
                    format!("{:.1}", e.capacity_bytes as f64 / 1e9),
                    opt(e.seek.average_read_ms, 1),
                    opt(e.transfer.sustained_max_mb_s, 0),
                    opt(profile.map(|p| p.spec.idle_w), 2),
                    e.power_profiles.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
                ]);
            }
            write!(out, "{}", t.render())?;
        }
        CatalogCommand::Show { id, catalog: dir, json } => {
            let cat = catalog(dir.as_deref())?;
            let entry = cat.hdd(&id)?;
            if json {
                serde_json::to_writer_pretty(&mut out, entry)?;
                writeln!(out)?;
            } else {
                let text = cat.hdd_file(&id).ok_or_else(|| anyhow!("no file text kept for `{id}`"))?;
                write!(out, "{text}")?;
            }
        }
    }
    Ok(())
}
