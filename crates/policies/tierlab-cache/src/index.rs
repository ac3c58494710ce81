//! A cache's index from a key to its node in the slab: a hash map for any keys
//! ([`KeyMap`]), or an array for keys that are small dense numbers ([`DenseMap`]; see
//! [`crate::AnyCache::use_dense_keys`]). The two give the same answers; the array skips
//! the hashing and probing.

use crate::list::Slab;
use tierlab_keymap::{DenseMap, KeyMap};

#[derive(Clone, Debug)]
pub(crate) enum Index {
    Hashed(KeyMap),
    Dense(DenseMap),
}

impl Default for Index {
    fn default() -> Self {
        Index::Hashed(KeyMap::default())
    }
}

/// `$body` with `$m` bound to the map inside `$index`.
macro_rules! either {
    ($index:expr, $m:ident => $body:expr) => {
        match $index {
            Index::Hashed($m) => $body,
            Index::Dense($m) => $body,
        }
    };
}

impl Index {
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

    /// Every key `k` becomes `rename(k)`, in the index and in its node, and the index
    /// becomes a hash map (the new keys need not be dense).
    pub fn rekey(&mut self, slab: &mut Slab, rename: &dyn Fn(u64) -> u64) {
        let entries: Vec<(u64, u32)> = match self {
            Index::Hashed(m) => m.drain().collect(),
            Index::Dense(m) => m.iter().collect(),
        };
        let mut map = KeyMap::with_capacity(entries.len());
        for (key, node) in entries {
            let key = rename(key);
            slab.nodes[node as usize].key = key;
            map.insert(key, node);
        }
        *self = Index::Hashed(map);
    }
}

/// What [`crate::AnyCache`] needs of an algorithm to change how it indexes its keys, which
/// it does between whole references only.
pub(crate) trait Indexed {
    /// Its index and the slab of its nodes.
    fn index_parts(&mut self) -> (&mut Index, &mut Slab);
    /// Forget what an access left for the insert that would follow it (a ghost hit): the
    /// reference it belonged to is over.
    fn end_reference(&mut self) {}
}
