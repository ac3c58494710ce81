//! A synthetic TPC-C physical log, with the primary's own disk work.
//!
//! The paper ran TPC-C (16 and 160 warehouses, 10⁶ transactions, 512 MB buffer, no think
//! time) on a commercial database and shipped its log; that log is not available, so this
//! generator produces the same kind of stream from the benchmark's published rules.
//!
//! # Sources
//!
//! Schema, cardinalities, mix and transaction profiles come from the TPC Benchmark C
//! Standard Specification, revision 5.11 (the clause of each fact is on its constant);
//! nothing here comes from the paper. What is approximate:
//!
//! - row sizes are averages over Clause 1.3's column lists (variable-length columns at
//!   their mean), not any database's on-disk format;
//! - there are no indexes: a row is found at its place directly, so index pages cost
//!   neither buffer space nor I/O;
//! - the 1 % of New-Orders the specification rolls back (unused item id) commit normally;
//! - each transaction has a home warehouse and district drawn uniformly (many terminals,
//!   no think time); Delivery runs as an ordinary transaction over the 10 districts of its
//!   warehouse and skips a district with no undelivered order, as Clause 2.7.4.2 allows;
//! - the NURand run-time constants C are derived from the seed; the load/run C-delta rule
//!   of Clause 2.1.6.1 does not apply, since there is no separate load phase;
//! - an order's contents (its line count, uniform 5..=15; its customer, NURand(1023); each
//!   line's item, NURand(8191); each line's supplying warehouse, remote 1 % of the time)
//!   are a hash of (seed, district, order id, line). New-Order draws them that way, and
//!   Delivery, Order-Status and Stock-Level recompute them, so no per-order state is kept.
//!   The initial orders get theirs the same way (the specification's permutation of
//!   customers over the initial orders becomes NURand);
//! - by-last-name selection reads the three customers sharing the name — the one of the
//!   first thousand whose name is its id, and two hashed among the other 2000 — and uses
//!   the middle one;
//! - Order-Status's "last order of the customer" is an order drawn uniformly among the
//!   district's 3000 most recent (in steady state each customer has one among them); it
//!   is read-only, so this only shapes its buffer references.
//!
//! # Layout (see [`TableLayout`])
//!
//! Each table has one contiguous page range, in the order WAREHOUSE, DISTRICT, CUSTOMER,
//! HISTORY, NEW-ORDER, ORDER, ORDER-LINE, ITEM, STOCK; rows per page are
//! `page_bytes / row_bytes`, rounded down. Fixed tables hold their rows in key order
//! (STOCK by warehouse then item, CUSTOMER by district then id). The growing tables are
//! circular regions sized `initial rows × (1 + growth_room)`:
//!
//! - ORDER, NEW-ORDER and ORDER-LINE have one region per district, in order-id order, as
//!   a clustered (warehouse, district, order) key keeps them: order `o` sits at slot
//!   `(o − 1) mod capacity`, its lines follow the previous order's;
//! - HISTORY has no key: one region for the whole table, with one append point.
//!
//! When a region fills, inserts reuse its oldest slots: the rows there are taken to have
//! been purged. The default room (1.0) holds the paper's runs (10⁶ transactions at 16 or
//! 160 warehouses) without reuse: at 16 warehouses the fullest district ends at 99.6 % of
//! its ORDER-LINE region. Delivery and Stock-Level only touch rows the regions
//! still hold (a region holds at least the undelivered backlog and the last 20 orders;
//! read-only Order-Status may read a reused slot when the room is small). A
//! district whose NEW-ORDER queue is full when an order arrives drops its oldest entry (a
//! Delete of that row; counted in [`TpccStats::new_order_queue_overflows`]): the backlog
//! grows by about 5 orders per 100 transactions, since New-Order adds 45 and Delivery
//! removes up to 40. `data_bytes` is fixed at construction.
//!
//! # Records
//!
//! Physical redo logging of after-images (the commercial database's log format is not
//! published): every row modification is one [`UpdateRecord`] with `lsn` 1, 2, 3, …;
//! `key` = (table, page, slot); `addr_bytes` = the page's first byte; `len_bytes` = the
//! row size (0 for a delete); `log_bytes` = header + the whole row for an insert or update,
//! the header alone for a delete; the commit record is added to the transaction's last
//! record; `value` = `lsn`. The default header, 40 bytes, is the sum of the fields an
//! ARIES-style physical record carries: LSN 8, previous LSN of the transaction 8,
//! transaction id 8, page id 8, record type 2, slot 2, length 2, checksum 2. The default
//! commit record, 48 bytes, is such a header plus an 8-byte commit timestamp. Undo
//! images are not shipped.
//!
//! # Primary I/O
//!
//! Every row access references its page in a [`BufferPool`] of `buffer_pool_bytes /
//! page_bytes` pages (LRU, write-back); a read does not dirty the page, an insert, update
//! or delete does. A dirty victim becomes a data write of its page, then a miss becomes a
//! data read of the page (with a zero-page pool: read, then write through). A transaction
//! that logged anything ends with one log write of its log bytes rounded up to 512 at the
//! log region's current offset; the region (`log_volume_bytes`, default 1 GiB) is
//! circular, and an append that would cross its end starts again at 0. Read-only
//! transactions issue their reads (and any write-backs) only.
//!
//! # Memory
//!
//! Four counters per district, the buffer pool, and the layout: nothing grows with the
//! number of transactions ([`TpccLog::memory`]). Construction sums the initial orders'
//! line counts (3000 hashes per district), so building it again to re-read the stream is
//! cheap ([`TpccLog::restart`]).

mod config;
mod layout;
mod schema;
#[cfg(test)]
mod tests;

pub use config::{
    ConfigError, ConfigErrors, TpccConfig, MAX_GROWTH_ROOM, MAX_RECORD_OVERHEAD_BYTES,
    MAX_WAREHOUSES, MIN_LOG_VOLUME_BYTES,
};
pub use layout::{Partitioning, TableLayout};
pub use schema::{
    Table, TxnType, BY_LAST_NAME_PERCENT, CUSTOMERS_PER_DISTRICT, CUSTOMERS_PER_LAST_NAME,
    DISTRICTS_PER_WAREHOUSE, INITIAL_NEW_ORDERS_PER_DISTRICT, INITIAL_ORDERS_PER_DISTRICT, ITEMS,
    LARGEST_ROW_BYTES, LAST_NAMES, MAX_ORDER_LINES, MIN_ORDER_LINES, MIX_PERCENT,
    NURAND_A_CUSTOMER, NURAND_A_ITEM, NURAND_A_LAST, PAYMENT_REMOTE_CUSTOMER_PERCENT,
    REMOTE_SUPPLY_PERCENT, STOCK_LEVEL_ORDERS, TABLES,
};

use layout::Layout;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tierlab_update_log::{
    BufferPool, PrimaryIo, PrimaryVolume, RecordKey, SourceError, Transaction, UpdateOp,
    UpdateRecord, UpdateSource,
};
use tierlab_types::Op;

/// The log is written in 512-byte sectors.
const LOG_SECTOR_BYTES: u64 = 512;

/// The NURand run-time constants C (Clause 2.1.6), derived from the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct NurandConstants {
    /// For C_LAST, in 0..=255.
    pub c_last: u64,
    /// For C_ID, in 0..=1023.
    pub c_id: u64,
    /// For OL_I_ID, in 0..=8191.
    pub ol_i_id: u64,
}

/// Transactions by type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TxnCounts {
    pub new_order: u64,
    pub payment: u64,
    pub order_status: u64,
    pub delivery: u64,
    pub stock_level: u64,
}

impl TxnCounts {
    pub fn total(&self) -> u64 {
        self.new_order + self.payment + self.order_status + self.delivery + self.stock_level
    }

    pub fn get(&self, t: TxnType) -> u64 {
        match t {
            TxnType::NewOrder => self.new_order,
            TxnType::Payment => self.payment,
            TxnType::OrderStatus => self.order_status,
            TxnType::Delivery => self.delivery,
            TxnType::StockLevel => self.stock_level,
        }
    }

    fn bump(&mut self, t: TxnType) {
        let c = match t {
            TxnType::NewOrder => &mut self.new_order,
            TxnType::Payment => &mut self.payment,
            TxnType::OrderStatus => &mut self.order_status,
            TxnType::Delivery => &mut self.delivery,
            TxnType::StockLevel => &mut self.stock_level,
        };
        *c += 1;
    }
}

/// Update records by operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OpCounts {
    pub insert: u64,
    pub update: u64,
    pub delete: u64,
}

impl OpCounts {
    pub fn total(&self) -> u64 {
        self.insert + self.update + self.delete
    }
}

/// What the generator has produced so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TpccStats {
    pub transactions: TxnCounts,
    pub records: OpCounts,
    /// Σ `log_bytes` of the records (commit records included).
    pub log_bytes: u64,
    /// Log writes at commit, and their bytes (rounded up to 512 each).
    pub log_writes: u64,
    pub log_write_bytes: u64,
    /// Data-volume page reads (buffer misses) and writes (dirty evictions).
    pub data_reads: u64,
    pub data_writes: u64,
    /// Page references that found the page resident.
    pub buffer_hits: u64,
    /// ORDER-LINE rows New-Order inserted.
    pub order_lines: u64,
    pub delivered_orders: u64,
    /// Districts a Delivery found with no undelivered order.
    pub delivery_skipped_districts: u64,
    /// NEW-ORDER entries dropped because the district's queue region was full.
    pub new_order_queue_overflows: u64,
}

impl TpccStats {
    /// Share of page references that hit the buffer (0 before any reference).
    pub fn buffer_hit_ratio(&self) -> f64 {
        let refs = self.buffer_hits + self.data_reads;
        if refs == 0 {
            0.0
        } else {
            self.buffer_hits as f64 / refs as f64
        }
    }
}

/// The parameters and the derived sizes, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TpccDescription {
    pub config: TpccConfig,
    pub buffer_pool_pages: u64,
    pub nurand: NurandConstants,
    pub data_pages: u64,
    pub data_bytes: u64,
    pub tables: Vec<TableLayout>,
}

/// What the generator holds, to show it does not grow with the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TpccMemory {
    /// Entries and allocated capacity of the per-district state (fixed: 10 per warehouse).
    pub district_states: usize,
    pub district_states_capacity: usize,
    pub buffer_pool_capacity_pages: usize,
    pub buffer_resident_pages: usize,
    pub buffer_dirty_pages: usize,
}

/// One district's order bookkeeping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DistrictState {
    /// The next order id New-Order assigns.
    next_o_id: u64,
    /// The oldest undelivered order (equal to `next_o_id` when there is none).
    head_o_id: u64,
    /// ORDER-LINE row counter of the next inserted line (slot = counter mod capacity).
    next_ol_pos: u64,
    /// ORDER-LINE row counter of the oldest undelivered order's first line.
    head_ol_pos: u64,
}

/// How a row is touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Read,
    Write(UpdateOp),
}

/// A row a transaction touches, waiting for the transaction to have drawn all of them.
#[derive(Clone, Copy, Debug)]
struct PendingTouch {
    table: Table,
    page: u64,
    slot: u16,
    access: Access,
}

/// Hash salts, one per derived quantity.
const SALT_OL_CNT: usize = 0;
const SALT_ORDER_CUSTOMER: usize = 1;
const SALT_ITEM: usize = 2;
const SALT_SUPPLY: usize = 3;
const SALT_NAME: usize = 4;
const SALT_C: usize = 5;
const SALTS: usize = 6;

/// SplitMix64's finaliser: a bijection of u64 with good avalanche.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// NURand(A, x, y) (Clause 2.1.6) from two uniform draws `r1` in 0..=A and `r2` in
/// x..=y.
fn nurand(x: u64, y: u64, c: u64, r1: u64, r2: u64) -> u64 {
    let span = y - x + 1;
    (((r1 | r2) + c) % span) + x
}

/// The TPC-C physical log generator: an [`UpdateSource`].
pub struct TpccLog {
    config: TpccConfig,
    layout: Layout,
    warehouses: u64,
    salts: [u64; SALTS],
    nurand_c: NurandConstants,
    rng: ChaCha8Rng,
    pool: BufferPool,
    /// The current transaction's touches, in order ([`TpccLog::touch_pending`]).
    pending: Vec<PendingTouch>,
    /// Model the primary's buffer and its data I/O (off for a reader that wants only the
    /// log: [`UpdateSource::records_only`]).
    primary_io: bool,
    districts: Vec<DistrictState>,
    history_next: u64,
    next_lsn: u64,
    log_offset_bytes: u64,
    stats: TpccStats,
}

impl TpccLog {
    /// A generator for `config`, or every setting out of range.
    pub fn new(config: TpccConfig) -> Result<TpccLog, ConfigErrors> {
        config.check()?;
        Ok(TpccLog::build(config))
    }

    /// A fresh generator with the same configuration: it yields the same stream again.
    pub fn restart(&self) -> TpccLog {
        TpccLog::build(self.config.clone())
    }

    fn build(config: TpccConfig) -> TpccLog {
        let warehouses = u64::from(config.warehouses.max(1));
        let page_bytes = config.page_bytes.max(1);
        let layout = Layout::new(warehouses, page_bytes, config.growth_room);
        let seed_key = mix(config.seed);
        let salts: [u64; SALTS] = std::array::from_fn(|i| mix(seed_key ^ mix(i as u64 + 1)));
        let c = |k: u64, a: u64| mix(salts[SALT_C] ^ k) % (a + 1);
        let nurand_c = NurandConstants {
            c_last: c(0, NURAND_A_LAST),
            c_id: c(1, NURAND_A_CUSTOMER),
            ol_i_id: c(2, NURAND_A_ITEM),
        };
        let districts_n = warehouses * DISTRICTS_PER_WAREHOUSE;
        let first_new_order = INITIAL_ORDERS_PER_DISTRICT - INITIAL_NEW_ORDERS_PER_DISTRICT + 1;
        let districts = (0..districts_n)
            .map(|dist| {
                let base = mix(salts[SALT_OL_CNT] ^ dist);
                let cnt = |o: u64| {
                    MIN_ORDER_LINES + mix(base ^ o) % (MAX_ORDER_LINES - MIN_ORDER_LINES + 1)
                };
                let head_ol_pos: u64 = (1..first_new_order).map(cnt).sum();
                let next_ol_pos = head_ol_pos
                    + (first_new_order..=INITIAL_ORDERS_PER_DISTRICT)
                        .map(cnt)
                        .sum::<u64>();
                DistrictState {
                    next_o_id: INITIAL_ORDERS_PER_DISTRICT + 1,
                    head_o_id: first_new_order,
                    next_ol_pos,
                    head_ol_pos,
                }
            })
            .collect();
        let pool_pages =
            usize::try_from(config.buffer_pool_bytes / page_bytes).unwrap_or(usize::MAX);
        TpccLog {
            layout,
            warehouses,
            salts,
            nurand_c,
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            pool: BufferPool::new(pool_pages),
            pending: Vec::new(),
            primary_io: true,
            districts,
            history_next: districts_n * CUSTOMERS_PER_DISTRICT,
            next_lsn: 1,
            log_offset_bytes: 0,
            stats: TpccStats::default(),
            config,
        }
    }

    pub fn config(&self) -> &TpccConfig {
        &self.config
    }

    /// What has been generated so far.
    pub fn stats(&self) -> &TpccStats {
        &self.stats
    }

    /// The parameters and derived sizes.
    pub fn describe(&self) -> TpccDescription {
        TpccDescription {
            config: self.config.clone(),
            buffer_pool_pages: self.pool.capacity_pages() as u64,
            nurand: self.nurand_c,
            data_pages: self.layout.total_pages,
            data_bytes: self.data_bytes(),
            tables: self.layout.describe(),
        }
    }

    /// The generator's retained state.
    pub fn memory(&self) -> TpccMemory {
        TpccMemory {
            district_states: self.districts.len(),
            district_states_capacity: self.districts.capacity(),
            buffer_pool_capacity_pages: self.pool.capacity_pages(),
            buffer_resident_pages: self.pool.resident_pages(),
            buffer_dirty_pages: self.pool.dirty_pages(),
        }
    }

    // ---- derived order contents -------------------------------------------------------

    fn hash(&self, salt: usize, a: u64, b: u64, c: u64) -> u64 {
        mix(mix(mix(self.salts[salt] ^ a) ^ b) ^ c)
    }

    /// Lines of order `o` of district `dist`, uniform in 5..=15.
    fn ol_cnt(&self, dist: u64, o: u64) -> u64 {
        let base = mix(self.salts[SALT_OL_CNT] ^ dist);
        MIN_ORDER_LINES + mix(base ^ o) % (MAX_ORDER_LINES - MIN_ORDER_LINES + 1)
    }

    /// The customer (1..=3000) who placed order `o`: NURand(1023, 1, 3000).
    fn order_customer(&self, dist: u64, o: u64) -> u64 {
        let r1 = self.hash(SALT_ORDER_CUSTOMER, dist, o, 0) % (NURAND_A_CUSTOMER + 1);
        let r2 = 1 + self.hash(SALT_ORDER_CUSTOMER, dist, o, 1) % CUSTOMERS_PER_DISTRICT;
        nurand(1, CUSTOMERS_PER_DISTRICT, self.nurand_c.c_id, r1, r2)
    }

    /// The item (1..=100000) of line `l` of order `o`: NURand(8191, 1, 100000).
    fn line_item(&self, dist: u64, o: u64, l: u64) -> u64 {
        let key = (o << 4) | l;
        let r1 = self.hash(SALT_ITEM, dist, key, 0) % (NURAND_A_ITEM + 1);
        let r2 = 1 + self.hash(SALT_ITEM, dist, key, 1) % ITEMS;
        nurand(1, ITEMS, self.nurand_c.ol_i_id, r1, r2)
    }

    /// The warehouse (0-based) supplying line `l` of order `o` of home warehouse `w`:
    /// another one 1 % of the time when there is another.
    fn line_supply(&self, w: u64, dist: u64, o: u64, l: u64) -> u64 {
        let h = self.hash(SALT_SUPPLY, dist, (o << 4) | l, 0);
        if self.warehouses > 1 && h % 100 < REMOTE_SUPPLY_PERCENT {
            (w + 1 + (h / 100) % (self.warehouses - 1)) % self.warehouses
        } else {
            w
        }
    }

    /// The customers of district `dist` named `name` (0..=999): the one among the first
    /// thousand whose id is `name + 1`, and two hashed among ids 1001..=3000.
    fn customers_named(&self, dist: u64, name: u64) -> [u64; CUSTOMERS_PER_LAST_NAME] {
        std::array::from_fn(|k| {
            if k == 0 {
                name + 1
            } else {
                LAST_NAMES
                    + 1
                    + self.hash(SALT_NAME, dist, name, k as u64)
                        % (CUSTOMERS_PER_DISTRICT - LAST_NAMES)
            }
        })
    }

    /// The ORDER-LINE row counter of order `o`'s first line: the lines of the orders from
    /// `o` to the newest precede the district's insertion point.
    fn first_line_pos(&self, dist: u64, state: &DistrictState, o: u64) -> u64 {
        let later: u64 = (o..state.next_o_id).map(|k| self.ol_cnt(dist, k)).sum();
        state.next_ol_pos.saturating_sub(later)
    }

    // ---- drawing from the stream ------------------------------------------------------

    fn nurand_rng(&mut self, a: u64, x: u64, y: u64, c: u64) -> u64 {
        let r1 = self.rng.gen_range(0..=a);
        let r2 = self.rng.gen_range(x..=y);
        nurand(x, y, c, r1, r2)
    }

    fn draw_type(&mut self) -> TxnType {
        let mut r = self.rng.gen_range(0..100u32);
        for (t, share) in MIX_PERCENT {
            if r < share {
                return t;
            }
            r -= share;
        }
        TxnType::NewOrder
    }

    /// A customer of district `dist` selected by last name (60 %) or id: the rows read to
    /// find it, and the chosen one (ids 1..=3000).
    fn draw_customer(&mut self, dist: u64) -> ([u64; CUSTOMERS_PER_LAST_NAME], usize, u64) {
        if self.rng.gen_range(0..100u32) < BY_LAST_NAME_PERCENT {
            let name = self.nurand_rng(NURAND_A_LAST, 0, LAST_NAMES - 1, self.nurand_c.c_last);
            let rows = self.customers_named(dist, name);
            let chosen = rows[CUSTOMERS_PER_LAST_NAME / 2];
            (rows, CUSTOMERS_PER_LAST_NAME, chosen)
        } else {
            let c = self.nurand_rng(
                NURAND_A_CUSTOMER,
                1,
                CUSTOMERS_PER_DISTRICT,
                self.nurand_c.c_id,
            );
            ([c; CUSTOMERS_PER_LAST_NAME], 1, c)
        }
    }

    // ---- row access -------------------------------------------------------------------

    fn customer_row(dist: u64, c: u64) -> u64 {
        dist * CUSTOMERS_PER_DISTRICT + c.saturating_sub(1)
    }

    fn stock_row(w: u64, item: u64) -> u64 {
        w * ITEMS + item.saturating_sub(1)
    }

    /// Touch row `index` of `partition` of `table`: reference its page in the buffer
    /// (recording the I/O that costs, unless the log alone is wanted) and, for a
    /// modification, log it.
    ///
    /// The touch is carried out, in order, when the transaction has drawn all of its rows
    /// ([`TpccLog::touch_pending`]): the buffer pool can then start loading the index
    /// entries of the next few pages while it looks one up.
    fn access(
        &mut self,
        table: Table,
        partition: u64,
        index: u64,
        access: Access,
    ) {
        let (page, slot) = self.layout.region(table).locate(partition, index);
        self.pending.push(PendingTouch { table, page, slot, access });
    }

    /// Carry out the transaction's touches in the order it drew them.
    fn touch_pending(&mut self, out: &mut Transaction) {
        /// Touches ahead whose index entries are loaded.
        const AHEAD: usize = 4;
        // (A reader of the log alone has an empty pool, where prefetching does nothing.)
        let pending = std::mem::take(&mut self.pending);
        for t in pending.iter().take(AHEAD) {
            self.pool.prefetch(t.page);
        }
        for (i, &t) in pending.iter().enumerate() {
            if let Some(ahead) = pending.get(i + AHEAD) {
                self.pool.prefetch(ahead.page);
            }
            self.touch(out, t);
        }
        self.pending = pending;
        self.pending.clear();
    }

    fn touch(&mut self, out: &mut Transaction, t: PendingTouch) {
        let PendingTouch { table, page, slot, access } = t;
        let page_bytes = self.config.page_bytes;
        let modify = access != Access::Read;
        if self.primary_io {
            let r = self.pool.reference(page, modify);
            let io = |op: Op, p: u64| PrimaryIo {
                volume: PrimaryVolume::Data,
                op,
                offset_bytes: p * page_bytes,
                len_bytes: page_bytes,
            };
            let write_through = r.write_back == Some(page);
            if let Some(victim) = r.write_back.filter(|_| !write_through) {
                out.primary_ios.push(io(Op::Write, victim));
                self.stats.data_writes += 1;
            }
            if r.miss {
                out.primary_ios.push(io(Op::Read, page));
                self.stats.data_reads += 1;
            } else {
                self.stats.buffer_hits += 1;
            }
            if write_through {
                out.primary_ios.push(io(Op::Write, page));
                self.stats.data_writes += 1;
            }
        }
        if let Access::Write(op) = access {
            let len_bytes = if op == UpdateOp::Delete {
                0
            } else {
                table.row_bytes()
            };
            let log_bytes = self
                .config
                .log_record_header_bytes
                .saturating_add(len_bytes);
            out.records.push(UpdateRecord {
                lsn: self.next_lsn,
                op,
                key: RecordKey::Row {
                    table: table.id(),
                    page,
                    slot,
                },
                addr_bytes: page * page_bytes,
                len_bytes,
                log_bytes,
                value: self.next_lsn,
            });
            self.next_lsn += 1;
            match op {
                UpdateOp::Insert => self.stats.records.insert += 1,
                UpdateOp::Delete => self.stats.records.delete += 1,
                _ => self.stats.records.update += 1,
            }
        }
    }

    /// Add the commit record and append the transaction's log to the log region.
    fn commit(&mut self, out: &mut Transaction) {
        let Some(last) = out.records.last_mut() else {
            return;
        };
        last.log_bytes = last
            .log_bytes
            .saturating_add(self.config.commit_record_bytes);
        let log_bytes = out.log_bytes();
        let len_bytes = log_bytes.div_ceil(LOG_SECTOR_BYTES) * LOG_SECTOR_BYTES;
        if self.log_offset_bytes.saturating_add(len_bytes) > self.config.log_volume_bytes {
            self.log_offset_bytes = 0;
        }
        out.primary_ios.push(PrimaryIo {
            volume: PrimaryVolume::Log,
            op: Op::Write,
            offset_bytes: self.log_offset_bytes,
            len_bytes,
        });
        self.log_offset_bytes += len_bytes;
        if self.log_offset_bytes >= self.config.log_volume_bytes {
            self.log_offset_bytes = 0;
        }
        self.stats.log_bytes += log_bytes;
        self.stats.log_writes += 1;
        self.stats.log_write_bytes += len_bytes;
    }

    // ---- the five transactions --------------------------------------------------------

    fn new_order(&mut self, w: u64, dist: u64) {
        use Access::{Read, Write};
        self.access(Table::Warehouse, 0, w, Read);
        self.access(Table::District, 0, dist, Write(UpdateOp::Update));
        let mut s = self.districts[dist as usize];
        let o = s.next_o_id;
        let c = self.order_customer(dist, o);
        self.access(Table::Customer, 0, Self::customer_row(dist, c), Read);
        s.next_o_id += 1;
        let queue = self.layout.region(Table::NewOrder).partition_rows;
        if o - s.head_o_id >= queue {
            // The queue region is full: its oldest entry leaves to make room.
            let head = s.head_o_id;
            self.access(
                Table::NewOrder,
                dist,
                head - 1,
                Write(UpdateOp::Delete),
            );
            s.head_ol_pos += self.ol_cnt(dist, head);
            s.head_o_id += 1;
            self.stats.new_order_queue_overflows += 1;
        }
        self.access(Table::Order, dist, o - 1, Write(UpdateOp::Insert));
        self.access(Table::NewOrder, dist, o - 1, Write(UpdateOp::Insert));
        for l in 1..=self.ol_cnt(dist, o) {
            let item = self.line_item(dist, o, l);
            let supply = self.line_supply(w, dist, o, l);
            self.access(Table::Item, 0, item - 1, Read);
            self.access(
                Table::Stock,
                0,
                Self::stock_row(supply, item),
                Write(UpdateOp::Update),
            );
            self.access(
                Table::OrderLine,
                dist,
                s.next_ol_pos,
                Write(UpdateOp::Insert),
            );
            s.next_ol_pos += 1;
            self.stats.order_lines += 1;
        }
        self.districts[dist as usize] = s;
    }

    fn payment(&mut self, w: u64, dist: u64) {
        use Access::{Read, Write};
        self.access(Table::Warehouse, 0, w, Write(UpdateOp::Update));
        self.access(Table::District, 0, dist, Write(UpdateOp::Update));
        let customer_dist = if self.warehouses > 1
            && self.rng.gen_range(0..100u32) < PAYMENT_REMOTE_CUSTOMER_PERCENT
        {
            let other = (w + self.rng.gen_range(1..self.warehouses)) % self.warehouses;
            other * DISTRICTS_PER_WAREHOUSE + self.rng.gen_range(0..DISTRICTS_PER_WAREHOUSE)
        } else {
            dist
        };
        let (rows, n, chosen) = self.draw_customer(customer_dist);
        if n > 1 {
            for &c in &rows[..n] {
                self.access(
                    Table::Customer,
                    0,
                    Self::customer_row(customer_dist, c),
                    Read,
                );
            }
        }
        self.access(
            Table::Customer,
            0,
            Self::customer_row(customer_dist, chosen),
            Write(UpdateOp::Update),
        );
        let h = self.history_next;
        self.history_next += 1;
        self.access(Table::History, 0, h, Write(UpdateOp::Insert));
    }

    fn order_status(&mut self, dist: u64) {
        let (rows, n, _) = self.draw_customer(dist);
        for &c in &rows[..n] {
            self.access(
                Table::Customer,
                0,
                Self::customer_row(dist, c),
                Access::Read,
            );
        }
        let s = self.districts[dist as usize];
        let recent = (s.next_o_id - 1).clamp(1, CUSTOMERS_PER_DISTRICT);
        let o = s.next_o_id - 1 - self.rng.gen_range(0..recent);
        self.access(Table::Order, dist, o - 1, Access::Read);
        let first = self.first_line_pos(dist, &s, o);
        for k in 0..self.ol_cnt(dist, o) {
            self.access(Table::OrderLine, dist, first + k, Access::Read);
        }
    }

    fn delivery(&mut self, w: u64) {
        use Access::Write;
        // The carrier id is drawn as the profile does, though the image does not depend
        // on it.
        let _carrier: u32 = self.rng.gen_range(1..=10);
        for d in 0..DISTRICTS_PER_WAREHOUSE {
            let dist = w * DISTRICTS_PER_WAREHOUSE + d;
            let mut s = self.districts[dist as usize];
            if s.head_o_id >= s.next_o_id {
                self.stats.delivery_skipped_districts += 1;
                continue;
            }
            let o = s.head_o_id;
            self.access(Table::NewOrder, dist, o - 1, Write(UpdateOp::Delete));
            self.access(Table::Order, dist, o - 1, Write(UpdateOp::Update));
            let cnt = self.ol_cnt(dist, o);
            for k in 0..cnt {
                self.access(
                    Table::OrderLine,
                    dist,
                    s.head_ol_pos + k,
                    Write(UpdateOp::Update),
                );
            }
            let c = self.order_customer(dist, o);
            self.access(
                Table::Customer,
                0,
                Self::customer_row(dist, c),
                Write(UpdateOp::Update),
            );
            s.head_ol_pos += cnt;
            s.head_o_id += 1;
            self.districts[dist as usize] = s;
            self.stats.delivered_orders += 1;
        }
    }

    fn stock_level(&mut self, w: u64, dist: u64) {
        self.access(Table::District, 0, dist, Access::Read);
        let s = self.districts[dist as usize];
        let first_order = s.next_o_id.saturating_sub(STOCK_LEVEL_ORDERS).max(1);
        let mut pos = self.first_line_pos(dist, &s, first_order);
        for o in first_order..s.next_o_id {
            for l in 1..=self.ol_cnt(dist, o) {
                self.access(Table::OrderLine, dist, pos, Access::Read);
                pos += 1;
                let item = self.line_item(dist, o, l);
                self.access(Table::Stock, 0, Self::stock_row(w, item), Access::Read);
            }
        }
    }
}

impl UpdateSource for TpccLog {
    fn records_only(&mut self) {
        self.primary_io = false;
        self.pool = BufferPool::new(0);
    }

    fn next_transaction(&mut self, out: &mut Transaction) -> Result<bool, SourceError> {
        out.clear();
        if self
            .config
            .transactions
            .is_some_and(|n| self.stats.transactions.total() >= n)
        {
            return Ok(false);
        }
        let t = self.draw_type();
        let w = self.rng.gen_range(0..self.warehouses);
        let dist = w * DISTRICTS_PER_WAREHOUSE + self.rng.gen_range(0..DISTRICTS_PER_WAREHOUSE);
        match t {
            TxnType::NewOrder => self.new_order(w, dist),
            TxnType::Payment => self.payment(w, dist),
            TxnType::OrderStatus => self.order_status(dist),
            TxnType::Delivery => self.delivery(w),
            TxnType::StockLevel => self.stock_level(w, dist),
        }
        self.touch_pending(out);
        self.commit(out);
        self.stats.transactions.bump(t);
        Ok(true)
    }

    fn data_bytes(&self) -> u64 {
        self.layout.total_pages * self.config.page_bytes
    }

    fn page_bytes(&self) -> u64 {
        self.config.page_bytes
    }
}
