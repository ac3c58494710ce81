//! `tierlab catalog …`: every kind of catalog entry — HDDs (`catalog/hdd`), SSDs
//! (`catalog/ssd`), storage controllers and disk enclosures (`catalog/system`), and the
//! device types of the planning catalogs (`catalog/plan`) — listed with key figures and
//! sources, and any one shown with all its figures and citations. Reading and listing the
//! entries is `tierlab_render::catalog`'s; this module turns flags into its arguments.

use anyhow::{anyhow, Result};
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;
use tierlab_render::catalog::{entries, find, render_list, render_show, Kind};

#[derive(Subcommand)]
pub enum CatalogCommand {
    /// List every catalog entry — HDDs, SSDs, storage controllers, disk enclosures and
    /// planning device types — with its key figures and sources ("?" where the catalog
    /// marks a figure unknown).
    List {
        /// Only entries of this kind.
        #[arg(long, value_enum)]
        kind: Option<Kind>,
        /// Read entries from this directory's `hdd/`, `ssd/`, `system/controller/`,
        /// `system/enclosure/` and `plan/` folders, in place of the built-in entries of each
        /// kind whose folder it has.
        #[arg(long, value_name = "DIR")]
        catalog: Option<PathBuf>,
        /// Print the entries as a JSON array of `{kind, id, name, file, figures, sources,
        /// entry}` objects.
        #[arg(long)]
        json: bool,
    },
    /// Print one entry (of any kind) with all its figures and the citation of each source.
    Show {
        /// The entry's id, as `catalog list` gives it (a planning device:
        /// `CATALOG/DEVICE`, e.g. `hybridstore-2009/x25m`, or the device id alone).
        id: String,
        /// Look among entries of this kind only (for an id two kinds share).
        #[arg(long, value_enum)]
        kind: Option<Kind>,
        #[arg(long, value_name = "DIR")]
        catalog: Option<PathBuf>,
        /// Print the entry as one JSON object (as `list --json` gives it).
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: CatalogCommand) -> Result<()> {
    let mut out = tierlab_commands::session::stdout();
    match cmd {
        CatalogCommand::List { kind, catalog: dir, json } => {
            let all = entries(dir.as_deref(), kind)?;
            if json {
                serde_json::to_writer_pretty(&mut out, &all)?;
                writeln!(out)?;
            } else if all.is_empty() {
                return Err(anyhow!("no catalog entries{}", dir.map(|d| format!(" under {}", d.display())).unwrap_or_default()));
            } else {
                write!(out, "{}", render_list(&all))?;
            }
        }
        CatalogCommand::Show { id, kind, catalog: dir, json } => {
            let e = find(entries(dir.as_deref(), kind)?, &id)?;
            if json {
                serde_json::to_writer_pretty(&mut out, &e)?;
                writeln!(out)?;
            } else {
                write!(out, "{}", render_show(&e))?;
            }
        }
    }
    Ok(())
}
