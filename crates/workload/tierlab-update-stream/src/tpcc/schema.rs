//! TPC-C schema facts (TPC Benchmark C Standard Specification, revision 5.11): the nine
//! tables, their row sizes and initial cardinalities, and the constants of the transaction
//! profiles.

use serde::Serialize;

/// A TPC-C table; its number is the `table` of [`tierlab_update_log::RecordKey::Row`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Table {
    Warehouse = 0,
    District = 1,
    Customer = 2,
    History = 3,
    NewOrder = 4,
    Order = 5,
    OrderLine = 6,
    Item = 7,
    Stock = 8,
}

/// Every table, in layout order on the data volume.
pub const TABLES: [Table; 9] = [
    Table::Warehouse,
    Table::District,
    Table::Customer,
    Table::History,
    Table::NewOrder,
    Table::Order,
    Table::OrderLine,
    Table::Item,
    Table::Stock,
];

/// The largest row (CUSTOMER): the smallest page must hold it.
pub const LARGEST_ROW_BYTES: u32 = 655;

impl Table {
    /// The number in [`tierlab_update_log::RecordKey::Row`].
    pub fn id(self) -> u16 {
        self as u16
    }

    /// The table with number `id`, if any.
    pub fn from_id(id: u16) -> Option<Table> {
        TABLES.get(usize::from(id)).copied()
    }

    pub fn name(self) -> &'static str {
        match self {
            Table::Warehouse => "WAREHOUSE",
            Table::District => "DISTRICT",
            Table::Customer => "CUSTOMER",
            Table::History => "HISTORY",
            Table::NewOrder => "NEW-ORDER",
            Table::Order => "ORDER",
            Table::OrderLine => "ORDER-LINE",
            Table::Item => "ITEM",
            Table::Stock => "STOCK",
        }
    }

    /// Average row size in bytes: the column lists of Clause 1.3 with variable-length
    /// columns at their mean length (approximate).
    pub fn row_bytes(self) -> u32 {
        match self {
            Table::Warehouse => 89,
            Table::District => 95,
            Table::Customer => LARGEST_ROW_BYTES,
            Table::History => 46,
            Table::NewOrder => 8,
            Table::Order => 24,
            Table::OrderLine => 54,
            Table::Item => 82,
            Table::Stock => 306,
        }
    }

    /// Rows per warehouse in the initial population (Clause 4.3.3.1; ITEM is fixed and
    /// not per warehouse: see [`ITEMS`]). ORDER-LINE's count is the mean (10 lines per
    /// order); the generator derives each order's lines itself.
    pub fn initial_rows_per_warehouse(self) -> u64 {
        match self {
            Table::Warehouse => 1,
            Table::District => DISTRICTS_PER_WAREHOUSE,
            Table::Customer => DISTRICTS_PER_WAREHOUSE * CUSTOMERS_PER_DISTRICT,
            Table::History => DISTRICTS_PER_WAREHOUSE * CUSTOMERS_PER_DISTRICT,
            Table::NewOrder => DISTRICTS_PER_WAREHOUSE * INITIAL_NEW_ORDERS_PER_DISTRICT,
            Table::Order => DISTRICTS_PER_WAREHOUSE * INITIAL_ORDERS_PER_DISTRICT,
            Table::OrderLine => DISTRICTS_PER_WAREHOUSE * INITIAL_ORDERS_PER_DISTRICT * 10,
            Table::Item => 0,
            Table::Stock => ITEMS,
        }
    }
}

/// Districts per warehouse (Clause 1.2).
pub const DISTRICTS_PER_WAREHOUSE: u64 = 10;
/// Customers per district (Clause 1.2).
pub const CUSTOMERS_PER_DISTRICT: u64 = 3000;
/// Items, fixed whatever the scale (Clause 1.2); every warehouse stocks each of them.
pub const ITEMS: u64 = 100_000;
/// Orders per district in the initial population, one per customer (Clause 4.3.3.1).
pub const INITIAL_ORDERS_PER_DISTRICT: u64 = 3000;
/// The last 900 initial orders of each district (2101..=3000) are undelivered: they have
/// NEW-ORDER rows (Clause 4.3.3.1).
pub const INITIAL_NEW_ORDERS_PER_DISTRICT: u64 = 900;
/// Order lines per order: uniform in 5..=15 (Clause 2.4.1.3, and 4.3.3.1 for the initial
/// orders).
pub const MIN_ORDER_LINES: u64 = 5;
pub const MAX_ORDER_LINES: u64 = 15;
/// Stock-Level examines the order lines of the district's last 20 orders (Clause 2.8.2.2).
pub const STOCK_LEVEL_ORDERS: u64 = 20;
/// Customer last names are numbers 0..=999 (the syllable index of Clause 4.3.2.3).
pub const LAST_NAMES: u64 = 1000;

/// NURand's A for C_LAST (last names, Clause 2.1.6).
pub const NURAND_A_LAST: u64 = 255;
/// NURand's A for C_ID (Clause 2.1.6).
pub const NURAND_A_CUSTOMER: u64 = 1023;
/// NURand's A for OL_I_ID (Clause 2.1.6).
pub const NURAND_A_ITEM: u64 = 8191;

/// The transaction mix, in percent (Clause 5.2.3 fixes the minimum shares of Payment 43,
/// Order-Status, Delivery and Stock-Level 4 each; New-Order takes the rest, 45).
pub const MIX_PERCENT: [(TxnType, u32); 5] = [
    (TxnType::NewOrder, 45),
    (TxnType::Payment, 43),
    (TxnType::OrderStatus, 4),
    (TxnType::Delivery, 4),
    (TxnType::StockLevel, 4),
];

/// The five TPC-C transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TxnType {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

impl TxnType {
    pub fn name(self) -> &'static str {
        match self {
            TxnType::NewOrder => "New-Order",
            TxnType::Payment => "Payment",
            TxnType::OrderStatus => "Order-Status",
            TxnType::Delivery => "Delivery",
            TxnType::StockLevel => "Stock-Level",
        }
    }
}

/// Payment's customer belongs to a remote warehouse 15 % of the time (Clause 2.5.1.2).
pub const PAYMENT_REMOTE_CUSTOMER_PERCENT: u32 = 15;
/// Payment and Order-Status select the customer by last name 60 % of the time, by id
/// otherwise (Clauses 2.5.1.2 and 2.6.1.2).
pub const BY_LAST_NAME_PERCENT: u32 = 60;
/// Each New-Order line is supplied by a remote warehouse 1 % of the time (Clause 2.4.1.5).
pub const REMOTE_SUPPLY_PERCENT: u64 = 1;
/// Customers sharing a last name in a district: 3000 customers over 1000 names.
pub const CUSTOMERS_PER_LAST_NAME: usize = 3;
