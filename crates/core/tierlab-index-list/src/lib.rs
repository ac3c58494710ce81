//! Doubly linked lists threaded through a slab (a `Vec` of nodes) by `u32` index: push at
//! the head, unlink and move to the head in O(1), with no allocation per node and 8 bytes
//! of links a node. Several lists may share one slab, each node on at most one of them at
//! a time (a cache's clean and dirty blocks, ARC's four lists). The caches of tierlab keep
//! their recency and age orders this way: the block cache's replacement algorithms, the
//! array controller's NVRAM, the replication buffer pools.
//!
//! A list is its [`Ends`]; a node holds its [`Links`] and says where through [`Linked`].
//! The list operations take the slab as a slice, so the owner keeps the slab and the
//! lists side by side and borrows them separately.

/// The index that links to nothing.
pub const NIL: u32 = u32::MAX;

/// A node's neighbours: towards the head (`prev`) and towards the tail (`next`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Links {
    pub prev: u32,
    pub next: u32,
}

impl Links {
    /// The links of a node on no list.
    pub const NONE: Links = Links { prev: NIL, next: NIL };
}

impl Default for Links {
    fn default() -> Self {
        Links::NONE
    }
}

/// A slab element that can be on a list.
pub trait Linked {
    fn links(&self) -> &Links;
    fn links_mut(&mut self) -> &mut Links;
}

impl Linked for Links {
    fn links(&self) -> &Links {
        self
    }
    fn links_mut(&mut self) -> &mut Links {
        self
    }
}

/// One list: its head (the most recently pushed node) and its tail (the oldest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ends {
    pub head: u32,
    pub tail: u32,
}

impl Default for Ends {
    fn default() -> Self {
        Ends::EMPTY
    }
}

impl Ends {
    pub const EMPTY: Ends = Ends { head: NIL, tail: NIL };

    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }

    /// The head, if any.
    pub fn first(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    /// The tail, if any.
    pub fn last(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// Put node `i`, on no list, at the head.
    #[inline]
    pub fn push_head<T: Linked>(&mut self, slab: &mut [T], i: u32) {
        let old = self.head;
        *slab[i as usize].links_mut() = Links { prev: NIL, next: old };
        match old {
            NIL => self.tail = i,
            o => slab[o as usize].links_mut().prev = i,
        }
        self.head = i;
    }

    /// Take node `i`, which is on this list, off it. Its own links are left as they were.
    #[inline]
    pub fn unlink<T: Linked>(&mut self, slab: &mut [T], i: u32) {
        let Links { prev, next } = *slab[i as usize].links();
        match prev {
            NIL => self.head = next,
            p => slab[p as usize].links_mut().next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => slab[n as usize].links_mut().prev = prev,
        }
    }

    /// Move node `i`, which is on this list, to its head.
    #[inline]
    pub fn move_to_head<T: Linked>(&mut self, slab: &mut [T], i: u32) {
        if self.head != i {
            self.unlink(slab, i);
            self.push_head(slab, i);
        }
    }

    /// The nodes from the head to the tail.
    pub fn iter<'a, T: Linked>(&self, slab: &'a [T]) -> impl Iterator<Item = u32> + 'a {
        std::iter::successors(self.first(), move |&i| Some(slab[i as usize].links().next).filter(|&n| n != NIL))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[derive(Clone, Debug)]
    enum Step {
        Push(u8),
        Unlink(u8),
        ToHead(u8),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![(0u8..16).prop_map(Step::Push), (0u8..16).prop_map(Step::Unlink), (0u8..16).prop_map(Step::ToHead)]
    }

    proptest! {
        /// Two lists over one slab keep the order a pair of deques keep, read both ways.
        #[test]
        fn lists_on_one_slab_keep_the_order_of_deques(steps in prop::collection::vec((step(), any::<bool>()), 0..200)) {
            let mut slab = vec![Links::NONE; 16];
            let mut lists = [Ends::EMPTY; 2];
            let mut model: [VecDeque<u32>; 2] = [VecDeque::new(), VecDeque::new()];
            let on = |model: &[VecDeque<u32>; 2], i: u32| model.iter().position(|m| m.contains(&i));
            for (s, second) in steps {
                let l = usize::from(second);
                match s {
                    Step::Push(i) if on(&model, u32::from(i)).is_none() => {
                        lists[l].push_head(&mut slab, u32::from(i));
                        model[l].push_front(u32::from(i));
                    }
                    Step::Unlink(i) => if let Some(m) = on(&model, u32::from(i)) {
                        lists[m].unlink(&mut slab, u32::from(i));
                        model[m].retain(|&x| x != u32::from(i));
                    },
                    Step::ToHead(i) => if let Some(m) = on(&model, u32::from(i)) {
                        lists[m].move_to_head(&mut slab, u32::from(i));
                        model[m].retain(|&x| x != u32::from(i));
                        model[m].push_front(u32::from(i));
                    },
                    _ => {}
                }
                for (list, m) in lists.iter().zip(&model) {
                    prop_assert_eq!(list.iter(&slab).collect::<Vec<_>>(), m.iter().copied().collect::<Vec<_>>());
                    prop_assert_eq!((list.first(), list.last()), (m.front().copied(), m.back().copied()));
                    let mut back = Vec::new();
                    let mut at = list.tail;
                    while at != NIL {
                        back.push(at);
                        at = slab[at as usize].prev;
                    }
                    prop_assert_eq!(back, m.iter().rev().copied().collect::<Vec<_>>());
                }
            }
        }
    }
}
