//! tierlab's reports rendered from the report types the studies return: text tables, CSV,
//! and self-contained HTML pages whose charts are inline SVG ([`charts`]). The command line
//! and the Python package print what this crate writes; nothing here runs a study.
//!
//! One module per study and form: `catalog` (the catalog's entries of every kind, listed
//! and shown) and `ssd` (the SSD catalog); `overview`; `simulate`; `compare` (text, CSV
//! and the cells its HTML shares) and `compare_html`; `array` and `array_html`; `cache`
//! and `cache_html`; `hdd`; `plan` and `plan_html`; `replicate` and `replicate_html`;
//! `system` and `system_html`; `trace` (a trace's data classes); `validate` (DiskSim
//! drives validated); `drive` (the block device's `ctl` answers and `fsck` findings).
//! `doc` is a report of lines and tables written once and printed as text or HTML.

pub mod array;
pub mod array_html;
pub mod cache;
pub mod cache_html;
pub mod catalog;
pub mod charts;
pub mod compare;
pub mod compare_html;
pub mod doc;
pub mod drive;
pub mod hdd;
pub mod overview;
pub mod plan;
pub mod plan_html;
pub mod replicate;
pub mod replicate_html;
pub mod simulate;
pub mod ssd;
pub mod system;
pub mod system_html;
pub mod trace;
pub mod validate;
