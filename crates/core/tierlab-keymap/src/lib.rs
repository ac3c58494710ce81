//! A hash map from `u64` keys to `u32` values (slab indices) for caches under steady
//! insert and remove: open addressing with linear probing, where a remove shifts the
//! entries after it back instead of leaving a deleted-slot marker. A swiss table used this
//! way fills with such markers until it rehashes, and every lookup between rehashes probes
//! past them; here a lookup's probe length depends only on the entries present, so the
//! cost of an access stays the same however long the trace (however many keys have come
//! and gone).
//!
//! The table is a power of two in size and at most half full (it doubles when an insert
//! would pass half); it never shrinks, so its memory follows the most keys ever present at
//! once: 16 bytes a slot, 32 to 64 bytes a key. Keys are spread by Fibonacci hashing (the
//! high bits of the key times 2^64/φ), which keeps runs of consecutive block numbers apart.

/// A slot's value when it holds no entry (never a slab index: the slab is smaller).
const EMPTY: u32 = u32::MAX;
/// 2^64 / φ, odd.
const FIB: u64 = 0x9E37_79B9_7F4A_7C15;
/// The table's size when the first key arrives.
const MIN_BITS: u32 = 4;

#[derive(Clone, Copy, Debug)]
struct Slot {
    key: u64,
    value: u32,
}

const VACANT: Slot = Slot { key: 0, value: EMPTY };

/// `u64` → `u32`, with no deleted-slot markers (see the module's documentation). Values
/// must be below `u32::MAX`.
#[derive(Clone, Debug, Default)]
pub struct KeyMap {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: the shift that turns a hash into a slot number.
    shift: u32,
    len: usize,
}

impl KeyMap {
    pub fn new() -> Self {
        KeyMap::default()
    }

    /// A map that holds `n` keys without growing.
    pub fn with_capacity(n: usize) -> Self {
        let mut m = KeyMap::default();
        if n > 0 {
            m.resize(bits_for(n));
        }
        m
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(FIB) >> self.shift) as usize
    }

    /// The slot holding `key`, or the empty slot where it would go.
    #[inline]
    fn find(&self, key: u64) -> (usize, bool) {
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s.value == EMPTY {
                return (i, false);
            }
            if s.key == key {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, key: &u64) -> Option<&u32> {
        if self.len == 0 {
            return None;
        }
        match self.find(*key) {
            (i, true) => Some(&self.slots[i].value),
            _ => None,
        }
    }

    #[inline]
    pub fn contains_key(&self, key: &u64) -> bool {
        self.get(key).is_some()
    }

    /// Ask the processor to start loading the slot where a lookup of `key` begins (a
    /// hint: it changes nothing, and a later lookup that finds the slot loaded skips a
    /// wait on memory).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        if self.slots.is_empty() {
            return;
        }
        prefetch(self.slots.as_ptr().wrapping_add(self.home(key)));
    }

    /// Set `key`'s value; returns the value it replaced.
    pub fn insert(&mut self, key: u64, value: u32) -> Option<u32> {
        debug_assert!(value != EMPTY, "KeyMap values must be below u32::MAX");
        if (self.len + 1) * 2 > self.slots.len() {
            self.resize(bits_for(self.len + 1));
        }
        let (i, found) = self.find(key);
        if found {
            return Some(std::mem::replace(&mut self.slots[i].value, value));
        }
        self.slots[i] = Slot { key, value };
        self.len += 1;
        None
    }

    /// `key`'s value and `true` if it is present (the map unchanged); otherwise `value()`
    /// becomes its value, and that and `false` are returned. One probe where a lookup
    /// followed by [`KeyMap::insert`] takes two.
    #[inline]
    pub fn insert_with(&mut self, key: u64, value: impl FnOnce() -> u32) -> (u32, bool) {
        let (mut i, found) = if self.slots.is_empty() { (0, false) } else { self.find(key) };
        if found {
            return (self.slots[i].value, true);
        }
        if (self.len + 1) * 2 > self.slots.len() {
            self.resize(bits_for(self.len + 1));
            i = self.find(key).0;
        }
        let value = value();
        debug_assert!(value != EMPTY, "KeyMap values must be below u32::MAX");
        self.slots[i] = Slot { key, value };
        self.len += 1;
        (value, false)
    }

    /// Remove `key`, returning its value. The entries after it in its probe run move back
    /// to close the gap (no marker is left).
    pub fn remove(&mut self, key: &u64) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let (mut hole, found) = self.find(*key);
        if !found {
            return None;
        }
        let value = self.slots[hole].value;
        let mask = self.mask();
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let s = self.slots[j];
            if s.value == EMPTY {
                break;
            }
            // An entry may fill the hole when its home is not in (hole, j] (cyclically):
            // it would then still be found from its home by probing forward.
            let home = self.home(s.key);
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = s;
                hole = j;
            }
        }
        self.slots[hole] = VACANT;
        self.len -= 1;
        Some(value)
    }

    /// Remove every entry, keeping the table (its memory and size).
    pub fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill(VACANT);
            self.len = 0;
        }
    }

    /// Every entry, in no particular order, leaving the map empty (its table kept).
    pub fn drain(&mut self) -> std::vec::IntoIter<(u64, u32)> {
        let mut out = Vec::with_capacity(self.len);
        for s in &mut self.slots {
            if s.value != EMPTY {
                out.push((s.key, s.value));
                *s = VACANT;
            }
        }
        self.len = 0;
        out.into_iter()
    }

    /// Bytes of memory the table takes.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
    }

    fn resize(&mut self, bits: u32) {
        let old = std::mem::replace(&mut self.slots, vec![VACANT; 1 << bits]);
        self.shift = 64 - bits;
        for s in old {
            if s.value != EMPTY {
                let (i, _) = self.find(s.key);
                self.slots[i] = s;
            }
        }
    }
}

/// Ask the processor to start loading the cache line at `slot` (a hint: it reads
/// nothing and changes nothing, whatever the address). For the tables here and for
/// callers' own (the NVRAM's slots).
#[inline]
pub fn prefetch<T>(slot: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it dereferences nothing, so no address
    // can fault.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch(slot.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

/// log2 of the table size for `n` keys at most half full.
fn bits_for(n: usize) -> u32 {
    (n.saturating_mul(2)).next_power_of_two().trailing_zeros().max(MIN_BITS)
}

/// `u64` → `u32` for keys that are small numbers (0, 1, 2, … as a numbering hands them
/// out): a plain array indexed by the key, so a lookup, insert or remove is one load or
/// store with no hashing and no probing. Its memory is 4 bytes for every number up to the
/// largest key ever inserted, present or not, so it suits keys that are dense. Values
/// must be below `u32::MAX`.
#[derive(Clone, Debug, Default)]
pub struct DenseMap {
    slots: Vec<u32>,
    len: usize,
}

impl DenseMap {
    pub fn new() -> Self {
        DenseMap::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, key: &u64) -> Option<&u32> {
        let v = self.slots.get(usize::try_from(*key).ok()?)?;
        (*v != EMPTY).then_some(v)
    }

    #[inline]
    pub fn contains_key(&self, key: &u64) -> bool {
        self.get(key).is_some()
    }

    /// Start loading `key`'s slot (a hint; see [`KeyMap::prefetch`]).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        if key >= self.slots.len() as u64 {
            return;
        }
        prefetch(self.slots.as_ptr().wrapping_add(key as usize));
    }

    /// The slot of `key`, the array grown to hold it.
    #[inline]
    fn slot_mut(&mut self, key: u64) -> &mut u32 {
        let i = usize::try_from(key).expect("DenseMap keys are array indices");
        if i >= self.slots.len() {
            let len = (i + 1).max(self.slots.len() * 2).max(16);
            self.slots.resize(len, EMPTY);
        }
        &mut self.slots[i]
    }

    /// Set `key`'s value; returns the value it replaced.
    pub fn insert(&mut self, key: u64, value: u32) -> Option<u32> {
        debug_assert!(value != EMPTY, "DenseMap values must be below u32::MAX");
        let old = std::mem::replace(self.slot_mut(key), value);
        if old == EMPTY {
            self.len += 1;
            None
        } else {
            Some(old)
        }
    }

    /// As [`KeyMap::insert_with`].
    #[inline]
    pub fn insert_with(&mut self, key: u64, value: impl FnOnce() -> u32) -> (u32, bool) {
        let slot = self.slot_mut(key);
        if *slot != EMPTY {
            return (*slot, true);
        }
        let v = value();
        debug_assert!(v != EMPTY, "DenseMap values must be below u32::MAX");
        *slot = v;
        self.len += 1;
        (v, false)
    }

    /// Remove `key`, returning its value.
    #[inline]
    pub fn remove(&mut self, key: &u64) -> Option<u32> {
        let slot = self.slots.get_mut(usize::try_from(*key).ok()?)?;
        if *slot == EMPTY {
            return None;
        }
        self.len -= 1;
        Some(std::mem::replace(slot, EMPTY))
    }

    /// Bytes of memory the array takes.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<u32>()
    }

    /// Every entry, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.slots.iter().enumerate().filter(|(_, &v)| v != EMPTY).map(|(k, &v)| (k as u64, v))
    }
}

/// Either map behind one type: a [`KeyMap`] for any keys, or a [`DenseMap`] for keys that
/// are small dense numbers. The two give the same answers; the array skips the hashing
/// and probing. The default is a `KeyMap`.
#[derive(Clone, Debug)]
pub enum KeyIndex {
    Hashed(KeyMap),
    Dense(DenseMap),
}

impl Default for KeyIndex {
    fn default() -> Self {
        KeyIndex::Hashed(KeyMap::default())
    }
}

/// `$body` with `$m` bound to the map inside `$index`.
macro_rules! either {
    ($index:expr, $m:ident => $body:expr) => {
        match $index {
            KeyIndex::Hashed($m) => $body,
            KeyIndex::Dense($m) => $body,
        }
    };
}

impl KeyIndex {
    #[inline]
    pub fn get(&self, key: &u64) -> Option<&u32> {
        either!(self, m => m.get(key))
    }
    #[inline]
    pub fn contains_key(&self, key: &u64) -> bool {
        either!(self, m => m.contains_key(key))
    }
    #[inline]
    pub fn insert(&mut self, key: u64, value: u32) -> Option<u32> {
        either!(self, m => m.insert(key, value))
    }
    #[inline]
    pub fn insert_with(&mut self, key: u64, value: impl FnOnce() -> u32) -> (u32, bool) {
        either!(self, m => m.insert_with(key, value))
    }
    #[inline]
    pub fn remove(&mut self, key: &u64) -> Option<u32> {
        either!(self, m => m.remove(key))
    }
    #[inline]
    pub fn prefetch(&self, key: u64) {
        either!(self, m => m.prefetch(key))
    }
    pub fn len(&self) -> usize {
        either!(self, m => m.len())
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Every entry, in no particular order, leaving the index empty.
    pub fn take_entries(&mut self) -> Vec<(u64, u32)> {
        match self {
            KeyIndex::Hashed(m) => m.drain().collect(),
            KeyIndex::Dense(m) => std::mem::take(m).iter().collect(),
        }
    }
}

/// A set of `u64` keys on [`KeyMap`]'s table (no deleted-slot markers).
#[derive(Clone, Debug, Default)]
pub struct KeySet {
    map: KeyMap,
}

impl KeySet {
    pub fn new() -> Self {
        KeySet::default()
    }
    /// Add `key`; returns whether it was absent.
    pub fn insert(&mut self, key: u64) -> bool {
        self.map.insert(key, 0).is_none()
    }
    /// Remove `key`; returns whether it was present.
    pub fn remove(&mut self, key: &u64) -> bool {
        self.map.remove(key).is_some()
    }
    pub fn contains(&self, key: &u64) -> bool {
        self.map.contains_key(key)
    }
    pub fn len(&self) -> usize {
        self.map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
    /// Every key, in no particular order, leaving the set empty.
    pub fn drain(&mut self) -> std::vec::IntoIter<u64> {
        self.map.drain().map(|(k, _)| k).collect::<Vec<_>>().into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Any sequence of inserts and removes leaves the map agreeing with std's.
        #[test]
        fn agrees_with_std(ops in proptest::collection::vec((0u8..4, 0u64..64, 0u32..1000), 0..2000)) {
            let mut m = KeyMap::new();
            let mut std_map = HashMap::new();
            for (op, key, value) in ops {
                // Keys spread over a few clusters that collide at small table sizes.
                let key = key.wrapping_mul(1 << 40) ^ (key & 7);
                match op {
                    0 => prop_assert_eq!(m.insert(key, value), std_map.insert(key, value)),
                    1 => {
                        let before = std_map.get(&key).copied();
                        prop_assert_eq!(m.insert_with(key, || value), (before.unwrap_or(value), before.is_some()));
                        std_map.entry(key).or_insert(value);
                    }
                    2 => prop_assert_eq!(m.remove(&key), std_map.remove(&key)),
                    // Now and then everything goes.
                    _ if value < 5 => {
                        m.clear();
                        std_map.clear();
                    }
                    _ => prop_assert_eq!(m.get(&key), std_map.get(&key)),
                }
                prop_assert_eq!(m.len(), std_map.len());
            }
            for (k, v) in &std_map {
                prop_assert_eq!(m.get(k), Some(v));
            }
            let mut drained: Vec<_> = m.drain().collect();
            drained.sort_unstable();
            let mut expected: Vec<_> = std_map.into_iter().collect();
            expected.sort_unstable();
            prop_assert_eq!(drained, expected);
            prop_assert!(m.is_empty());
        }
    }

    proptest! {
        /// The same for the array map, over small keys.
        #[test]
        fn dense_agrees_with_std(ops in proptest::collection::vec((0u8..3, 0u64..300, 0u32..1000), 0..2000)) {
            let mut m = DenseMap::new();
            let mut std_map = HashMap::new();
            for (op, key, value) in ops {
                match op {
                    0 => prop_assert_eq!(m.insert(key, value), std_map.insert(key, value)),
                    1 => {
                        let before = std_map.get(&key).copied();
                        prop_assert_eq!(m.insert_with(key, || value), (before.unwrap_or(value), before.is_some()));
                        std_map.entry(key).or_insert(value);
                    }
                    _ => prop_assert_eq!(m.remove(&key), std_map.remove(&key)),
                }
                prop_assert_eq!(m.len(), std_map.len());
            }
            for key in 0..310u64 {
                prop_assert_eq!(m.get(&key), std_map.get(&key));
            }
            prop_assert!(m.heap_bytes() <= 4 * 600, "{} bytes for keys below 300", m.heap_bytes());
        }
    }

    /// A cache's steady insert-one, remove-oldest leaves the table as it started: no
    /// probe gets longer (the table stays the size its peak population asked for, and
    /// an absent key's probe ends within the run its home starts).
    #[test]
    fn steady_churn_does_not_grow_probes() {
        let mut m = KeyMap::new();
        let n = 10_000u64;
        for k in 0..n {
            m.insert(k * 4096, k as u32);
        }
        let bytes = m.heap_bytes();
        let probes = |m: &KeyMap| (0..n).map(|k| m.find((n * 64 + k) * 4096).0.wrapping_sub(m.home((n * 64 + k) * 4096)) & m.mask()).sum::<usize>();
        let before = probes(&m);
        for k in n..n * 40 {
            m.insert(k * 4096, (k % u64::from(u32::MAX - 1)) as u32);
            assert!(m.remove(&((k - n) * 4096)).is_some());
        }
        assert_eq!(m.len(), n as usize);
        assert_eq!(m.heap_bytes(), bytes);
        // Absent keys probe about as far as before the churn (not past markers).
        assert!(probes(&m) < before * 3 + n as usize, "{} against {before}", probes(&m));
    }
}
