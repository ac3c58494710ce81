//! Where every row lives on the data volume: one contiguous page range per table, in
//! [`TABLES`] order; the growing tables' ranges split into circular partitions.

use serde::Serialize;

use super::schema::{
    Table, CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE, INITIAL_NEW_ORDERS_PER_DISTRICT,
    INITIAL_ORDERS_PER_DISTRICT, ITEMS, TABLES,
};

/// One table's page range: `partitions` equal partitions of `partition_pages` pages, each
/// holding `partition_rows` rows from its first page on (a partition starts on a page of
/// its own, so no page is shared between partitions or tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Region {
    pub first_page: u64,
    pub rows_per_page: u64,
    pub partitions: u64,
    pub partition_rows: u64,
    pub partition_pages: u64,
}

impl Region {
    fn new(first_page: u64, rows_per_page: u64, partitions: u64, partition_rows: u64) -> Self {
        let rows_per_page = rows_per_page.max(1);
        Region {
            first_page,
            rows_per_page,
            partitions,
            partition_rows: partition_rows.max(1),
            partition_pages: partition_rows.max(1).div_ceil(rows_per_page),
        }
    }

    pub fn pages(&self) -> u64 {
        self.partitions.saturating_mul(self.partition_pages)
    }

    /// Page and slot of row `index` of `partition`. The index wraps around the
    /// partition's capacity: a circular region reuses its oldest slots.
    pub fn locate(&self, partition: u64, index: u64) -> (u64, u16) {
        let index = index % self.partition_rows;
        let page = self.first_page
            + (partition % self.partitions.max(1)) * self.partition_pages
            + index / self.rows_per_page;
        // rows_per_page ≤ 65536 / 8, so the slot fits.
        let slot = u16::try_from(index % self.rows_per_page).unwrap_or(u16::MAX);
        (page, slot)
    }
}

/// How a table's rows are partitioned on the volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partitioning {
    /// Fixed rows in key order, never growing.
    Fixed,
    /// One circular insertion region for the whole table (a heap with one append point).
    Global,
    /// One circular insertion region per district, in order-id order.
    PerDistrict,
}

/// One table's place on the data volume, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableLayout {
    pub table: Table,
    pub name: &'static str,
    pub id: u16,
    pub row_bytes: u32,
    pub rows_per_page: u64,
    pub partitioning: Partitioning,
    pub partitions: u64,
    /// Rows one partition holds (for a growing table, its capacity before reuse).
    pub rows_per_partition: u64,
    /// Rows present at the start.
    pub initial_rows: u64,
    pub first_page: u64,
    pub pages: u64,
}

/// Every table's region.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Layout {
    pub regions: [Region; 9],
    pub total_pages: u64,
    pub warehouses: u64,
}

/// `rows × (1 + growth_room)`, rounded up, and at least `rows`.
fn with_room(rows: u64, growth_room: f64) -> u64 {
    let grown = (rows as f64 * (1.0 + growth_room)).ceil();
    if grown.is_finite() && grown >= rows as f64 {
        // Within u64 for every accepted configuration (≤ 3·10^10).
        grown as u64
    } else {
        rows
    }
}

impl Layout {
    /// The layout of a checked configuration.
    pub fn new(warehouses: u64, page_bytes: u64, growth_room: f64) -> Layout {
        let districts = warehouses * DISTRICTS_PER_WAREHOUSE;
        let mut next_page = 0u64;
        let regions = TABLES.map(|table| {
            let rows_per_page = page_bytes / u64::from(table.row_bytes());
            let (partitions, rows) = match table {
                Table::Warehouse => (1, warehouses),
                Table::District => (1, districts),
                Table::Customer => (1, districts * CUSTOMERS_PER_DISTRICT),
                Table::Item => (1, ITEMS),
                Table::Stock => (1, warehouses * ITEMS),
                Table::History => (
                    1,
                    with_room(districts * CUSTOMERS_PER_DISTRICT, growth_room),
                ),
                Table::NewOrder => (
                    districts,
                    with_room(INITIAL_NEW_ORDERS_PER_DISTRICT, growth_room),
                ),
                Table::Order => (
                    districts,
                    with_room(INITIAL_ORDERS_PER_DISTRICT, growth_room),
                ),
                Table::OrderLine => (
                    districts,
                    with_room(INITIAL_ORDERS_PER_DISTRICT * 10, growth_room),
                ),
            };
            let region = Region::new(next_page, rows_per_page, partitions, rows);
            next_page = next_page.saturating_add(region.pages());
            region
        });
        Layout {
            regions,
            total_pages: next_page,
            warehouses,
        }
    }

    pub fn region(&self, table: Table) -> &Region {
        &self.regions[table as usize]
    }

    pub fn describe(&self) -> Vec<TableLayout> {
        TABLES
            .iter()
            .map(|&table| {
                let r = self.region(table);
                let partitioning = match table {
                    Table::History => Partitioning::Global,
                    Table::NewOrder | Table::Order | Table::OrderLine => Partitioning::PerDistrict,
                    _ => Partitioning::Fixed,
                };
                let initial_rows = match table {
                    Table::Item => ITEMS,
                    t => t.initial_rows_per_warehouse() * self.warehouses,
                };
                TableLayout {
                    table,
                    name: table.name(),
                    id: table.id(),
                    row_bytes: table.row_bytes(),
                    rows_per_page: r.rows_per_page,
                    partitioning,
                    partitions: r.partitions,
                    rows_per_partition: r.partition_rows,
                    initial_rows,
                    first_page: r.first_page,
                    pages: r.pages(),
                }
            })
            .collect()
    }
}
