//! How [`crate::AnyCache`] changes the way an algorithm indexes its keys: each algorithm
//! finds a key's node in its slab through a [`KeyIndex`], a hash map for any keys or an
//! array for keys that are small dense numbers (see [`crate::AnyCache::use_dense_keys`]).

use crate::list::Slab;
use tierlab_keymap::{KeyIndex, KeyMap};

/// What [`crate::AnyCache`] needs of an algorithm to change how it indexes its keys, which
/// it does between whole references only.
pub(crate) trait Indexed {
    /// Its index and the slab of its nodes.
    fn index_parts(&mut self) -> (&mut KeyIndex, &mut Slab);
    /// Forget what an access left for the insert that would follow it (a ghost hit): the
    /// reference it belonged to is over.
    fn end_reference(&mut self) {}
}

/// Every key `k` of `index` becomes `rename(k)`, in the index and in its node, and the
/// index becomes a hash map (the new keys need not be dense).
pub(crate) fn rekey(index: &mut KeyIndex, slab: &mut Slab, rename: &dyn Fn(u64) -> u64) {
    let entries = index.take_entries();
    let mut map = KeyMap::with_capacity(entries.len());
    for (key, node) in entries {
        let key = rename(key);
        slab.nodes[node as usize].key = key;
        map.insert(key, node);
    }
    *index = KeyIndex::Hashed(map);
}
