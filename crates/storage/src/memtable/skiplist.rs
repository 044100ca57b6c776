//! A lock-free, insert-only skiplist of cell keys, its nodes in slabs addressed by `u32` ids.
//!
//! A node is 64 bytes: the key (`Bytes` into an arena chunk, tag, row prefix) in a `OnceLock`,
//! the level-0 link, and the index of its upper links in a separate tower slab. Heights follow
//! p = 1/4 (one upper link per three nodes on average), drawn from a hash of the node id so runs
//! are reproducible. Ids instead of pointers keep links at 4 bytes and let cursors hold a
//! position without borrowing the list.
//!
//! Beside each node a *run tail* (4 bytes, in slabs of their own): a later node of the same
//! column (row and qualifier), so a reader skips the older versions of a column in one hop
//! ([`SkipList::run_tail`]). A new node copies the tail of the node it is linked before when
//! that node is of its column (a new version goes in front of the older ones): the tail of a
//! run stays its oldest version, found in one hop from any of them.
//!
//! # Thread safety
//! Any number of threads may insert and read at once; nothing blocks except the one-time
//! creation of a slab. A node's key and upper-link index are written before the node is
//! published by a `Release` compare-exchange on its predecessor's link; readers follow links
//! with `Acquire` loads.
//!
//! # Invariants
//! - Level 0 is strictly increasing in store order; nodes are never removed or moved.
//! - A node reachable at level `l` is reachable at every level below `l`.
//! - Two nodes never hold the same key: the level-0 link is set only if its predecessor still
//!   points at the successor the search found, and the search stops on an equal key.

use std::cmp::Ordering::{Equal, Greater, Less};
use std::sync::atomic::Ordering::Release;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Acquire, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use super::key::{Key, Probe, RowRule};
use super::slab::Slabs;

/// No node: the end of a level.
pub(crate) const NIL: u32 = u32::MAX;
/// The head sentinel, before every node.
pub(crate) const HEAD: u32 = u32::MAX - 1;
/// Levels; 4¹³ is far above the node capacity.
const MAX_HEIGHT: usize = 13;
/// 4096 nodes (256 KiB) a slab, 256 slabs a directory block: 2²⁶ nodes at most.
const NODE_SLAB_BITS: u32 = 12;
const NODE_BLOCK_BITS: u32 = 8;
/// 4096 links (16 KiB) a tower slab, 1024 slabs a block: 2²⁸ links.
const TOWER_SLAB_BITS: u32 = 12;
const TOWER_BLOCK_BITS: u32 = 10;
/// A node's `tower` when its upper links could not be reserved: height 1 whatever its id.
const NO_TOWER: u32 = u32::MAX;

/// An upper link: [`NIL`] until its node links at that level, then always a node after it.
struct Link(AtomicU32);

impl Default for Link {
    fn default() -> Link {
        Link(AtomicU32::new(NIL))
    }
}

/// One cell's entry: exactly one cache line, so a search step touches one line per node.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct Node {
    key: OnceLock<Key>,
    next: AtomicU32,
    /// Where links for levels 1.. start in the tower slabs (unused at height 1, [`NO_TOWER`]
    /// when none could be reserved).
    tower: AtomicU32,
}

/// Bytes a node takes in its slab.
pub(crate) const NODE_BYTES: usize = size_of::<Node>();
/// Bytes an upper link takes in the tower slabs.
pub(crate) const LINK_BYTES: usize = size_of::<AtomicU32>();
/// Bytes a node's run tail takes in its slabs.
pub(crate) const TAIL_BYTES: usize = size_of::<Link>();

/// What an insert did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Insert {
    /// Linked, with this many upper links.
    Inserted { upper_links: u32 },
    /// A node with the same key (sequence id included) was already there.
    Duplicate,
    /// No node id left; nothing was stored.
    Full,
}

/// The nodes around the key a caller inserted last, per level: where its next, larger key
/// is searched from (see [`SkipList::insert_hinted`]). Empty (`valid` false) at first.
#[derive(Clone, Debug)]
pub(crate) struct Splice {
    preds: [u32; MAX_HEIGHT],
    succs: [u32; MAX_HEIGHT],
    valid: bool,
}

impl Default for Splice {
    fn default() -> Splice {
        Splice {
            preds: [HEAD; MAX_HEIGHT],
            succs: [NIL; MAX_HEIGHT],
            valid: false,
        }
    }
}

/// The skiplist.
pub(crate) struct SkipList {
    head: [AtomicU32; MAX_HEIGHT],
    nodes: Slabs<Node>,
    towers: Slabs<Link>,
    /// Each node's run tail, by node id (see the module docs).
    tails: Slabs<Link>,
    next_node: AtomicU64,
    next_tower: AtomicU64,
    /// The row rule its keys' prefixes are made under (see [`key`](super::key)): probes are
    /// made under it too ([`Probe::under`]) before they search.
    rule: Option<Arc<RowRule>>,
}

impl SkipList {
    /// An empty list whose keys' prefixes follow `rule`; allocates nothing until the first
    /// insert.
    pub(crate) fn new(rule: Option<Arc<RowRule>>) -> SkipList {
        SkipList {
            rule,
            head: std::array::from_fn(|_| AtomicU32::new(NIL)),
            nodes: Slabs::new(NODE_SLAB_BITS, NODE_BLOCK_BITS),
            towers: Slabs::new(TOWER_SLAB_BITS, TOWER_BLOCK_BITS),
            tails: Slabs::new(NODE_SLAB_BITS, NODE_BLOCK_BITS),
            next_node: AtomicU64::new(0),
            next_tower: AtomicU64::new(0),
        }
    }

    /// The row rule of this list's keys.
    #[inline]
    pub(crate) fn rule(&self) -> Option<&RowRule> {
        self.rule.as_deref()
    }

    /// Inserts the key `make_key` builds (called at most once, only if the key is new).
    #[cfg(test)]
    pub(crate) fn insert(&self, probe: &Probe<'_>, make_key: impl FnOnce() -> Key) -> Insert {
        self.insert_hinted(probe, make_key, &mut Splice::default())
    }

    /// [`insert`](Self::insert), starting from `splice`, the nodes around the key a previous
    /// insert of the same caller placed (RocksDB's splice reuse): when the new key sorts
    /// right after that one, as the cells of one row do when inserted in order, the search
    /// costs two comparisons instead of a walk from the head. A splice that does not bracket
    /// the key (stale, or another caller's inserts in between) only costs the levels it
    /// misses: correctness never depends on it. Afterwards `splice` is around the new key.
    pub(crate) fn insert_hinted(
        &self,
        probe: &Probe<'_>,
        make_key: impl FnOnce() -> Key,
        splice: &mut Splice,
    ) -> Insert {
        let Splice {
            preds,
            succs,
            valid,
        } = splice;
        // Levels below `recompute` are searched again, from the splice's node at that level.
        let mut recompute = MAX_HEIGHT;
        if *valid {
            recompute = 0;
            while recompute < MAX_HEIGHT {
                let (pred, succ) = (preds[recompute], succs[recompute]);
                // Not tight: someone linked a node in between since.
                if self.next(pred, recompute) != succ {
                    recompute += 1;
                    continue;
                }
                let after_pred = match self.key(pred) {
                    None => true, // the head
                    Some(key) => match key.cmp_probe(probe) {
                        Less => true,
                        Equal => return Insert::Duplicate,
                        Greater => false,
                    },
                };
                let before_succ = after_pred
                    && match self.key(succ) {
                        None => true, // the end
                        Some(key) => match key.cmp_probe(probe) {
                            Greater => true,
                            Equal => return Insert::Duplicate,
                            Less => false,
                        },
                    };
                if before_succ {
                    break;
                }
                recompute += 1;
            }
        }
        if recompute > 0 {
            let start = if recompute < MAX_HEIGHT {
                preds[recompute]
            } else {
                HEAD
            };
            if self.search(probe, recompute, start, 0, preds, succs) {
                // The search stopped part-way: the lower levels still hold the old key's.
                *valid = false;
                return Insert::Duplicate;
            }
        }
        *valid = true;
        let id = self.next_node.fetch_add(1, Relaxed);
        let (Some(node), Some(tail)) = (self.nodes.get_or_create(id), self.tails.get_or_create(id))
        else {
            return Insert::Full;
        };
        let id = id as u32; // below the capacity, 2²⁶
        let mut height = height(id);
        match self.alloc_tower(height - 1) {
            Some(start) => node.tower.store(start, Relaxed),
            None => {
                node.tower.store(NO_TOWER, Relaxed);
                height = 1;
            }
        }
        // A fresh slot: this is its only `set`.
        let _ = node.key.set(make_key());
        'levels: for level in 0..height {
            loop {
                let (Some(own), Some(pred)) =
                    (self.link(id, level), self.link(preds[level], level))
                else {
                    // Unreachable by construction; the node stays linked below `level`.
                    break 'levels;
                };
                own.store(succs[level], Relaxed);
                if level == 0 {
                    // Published with the node by the compare-exchange below.
                    tail.0.store(self.tail_for(probe, succs[0]), Relaxed);
                }
                if pred
                    .compare_exchange(succs[level], id, Release, Relaxed)
                    .is_ok()
                {
                    // The next key of the caller comes after this one.
                    preds[level] = id;
                    break;
                }
                // Someone linked a node in between: search this level again. Above level 0
                // an equal key is impossible (the node is not linked there yet).
                if self.find_splice(probe, level, preds, succs) {
                    // The search stopped part-way: the splice is not to be trusted.
                    *valid = false;
                    if level == 0 {
                        return Insert::Duplicate; // lost a race with the same key
                    }
                    break 'levels;
                }
            }
        }
        // Upper links reserved, whether or not every level got linked.
        Insert::Inserted {
            upper_links: height as u32 - 1,
        }
    }

    /// The run tail of a node keyed `probe` linked right before `succ`: `succ`'s own tail (or
    /// `succ`) when `succ` is of the same column, else [`NIL`].
    fn tail_for(&self, probe: &Probe<'_>, succ: u32) -> u32 {
        match self.key(succ) {
            Some(key) if key.cmp_column(probe).is_eq() => self.run_tail(succ),
            _ => NIL,
        }
    }

    /// A node at or after `id` of the same column (row and qualifier), as far as inserts
    /// have recorded it: the column's oldest version when its versions came newest last, as
    /// writes with the current time do; `id` itself when none is known. Older versions may
    /// also follow the node returned (inserted after their newer ones).
    #[inline]
    pub(crate) fn run_tail(&self, id: u32) -> u32 {
        match self.tails.get(id).map(|t| t.0.load(Relaxed)) {
            Some(tail) if tail != NIL => tail,
            _ => id,
        }
    }

    /// Fills `preds[l]`/`succs[l]` for levels `l ≥ bottom` with the nodes around `probe`;
    /// true (and stops) if a node at those levels has exactly the probe's key.
    fn find_splice(
        &self,
        probe: &Probe<'_>,
        bottom: usize,
        preds: &mut [u32; MAX_HEIGHT],
        succs: &mut [u32; MAX_HEIGHT],
    ) -> bool {
        self.search(probe, MAX_HEIGHT, HEAD, bottom, preds, succs)
    }

    /// [`find_splice`](Self::find_splice) for levels `bottom..top`, starting at node `pred`
    /// (linked at level `top - 1`, and before `probe`; [`HEAD`] with `top` = every level).
    fn search(
        &self,
        probe: &Probe<'_>,
        top: usize,
        mut pred: u32,
        bottom: usize,
        preds: &mut [u32; MAX_HEIGHT],
        succs: &mut [u32; MAX_HEIGHT],
    ) -> bool {
        for level in (bottom..top).rev() {
            let mut next = self.next(pred, level);
            while let Some(key) = self.key(next) {
                match key.cmp_probe(probe) {
                    Less => {
                        pred = next;
                        next = self.next(pred, level);
                    }
                    Equal => return true,
                    Greater => break,
                }
            }
            preds[level] = pred;
            succs[level] = next;
        }
        false
    }

    /// Reserves `links` contiguous tower links within one slab; `Some(0)` for none.
    fn alloc_tower(&self, links: usize) -> Option<u32> {
        if links == 0 {
            return Some(0);
        }
        let (links, slab) = (links as u64, self.towers.slab_len());
        let mut cur = self.next_tower.load(Relaxed);
        let start = loop {
            let start = if cur % slab + links > slab {
                cur.next_multiple_of(slab)
            } else {
                cur
            };
            if start + links > self.towers.capacity() {
                return None;
            }
            match self
                .next_tower
                .compare_exchange_weak(cur, start + links, Relaxed, Relaxed)
            {
                Ok(_) => break start,
                Err(now) => cur = now,
            }
        };
        self.towers.get_or_create(start)?;
        Some(start as u32)
    }

    /// The link of node `id` (or the head) at `level`.
    #[inline]
    fn link(&self, id: u32, level: usize) -> Option<&AtomicU32> {
        if id == HEAD {
            return self.head.get(level);
        }
        let node = self.nodes.get(id)?;
        match level {
            0 => Some(&node.next),
            _ => match node.tower.load(Relaxed) {
                NO_TOWER => None,
                start => self.towers.get(start + level as u32 - 1).map(|l| &l.0),
            },
        }
    }

    /// The highest level node `id` has links at (0 for the head's stand-ins and for a node
    /// whose upper links could not be reserved).
    #[inline]
    fn top_level(&self, id: u32) -> usize {
        match self.nodes.get(id) {
            Some(node) if node.tower.load(Relaxed) != NO_TOWER => height(id) - 1,
            _ => 0,
        }
    }

    /// The node after `id` (or the head) at `level`, or [`NIL`].
    #[inline]
    fn next(&self, id: u32, level: usize) -> u32 {
        self.link(id, level).map_or(NIL, |l| l.load(Acquire))
    }

    /// The node after `id` (or the head) in order, or [`NIL`].
    #[inline]
    pub(crate) fn successor(&self, id: u32) -> u32 {
        self.next(id, 0)
    }

    /// The key of node `id`; `None` for [`NIL`] and [`HEAD`].
    #[inline]
    pub(crate) fn key(&self, id: u32) -> Option<&Key> {
        self.nodes.get(id)?.key.get()
    }

    /// The last node whose key satisfies `before`, or [`HEAD`] if none does.
    ///
    /// Requires: `before` holds for a prefix of the list (for example "key < k").
    pub(crate) fn last_where(&self, before: impl Fn(&Key) -> bool) -> u32 {
        self.descend(HEAD, MAX_HEIGHT, before)
    }

    /// From `pred` (which satisfies `before`), levels `top - 1` down to 0: the last node
    /// satisfying `before`.
    fn descend(&self, mut pred: u32, top: usize, before: impl Fn(&Key) -> bool) -> u32 {
        for level in (0..top).rev() {
            loop {
                let next = self.next(pred, level);
                match self.key(next) {
                    Some(key) if before(key) => pred = next,
                    _ => break,
                }
            }
        }
        pred
    }

    /// [`last_where`](Self::last_where), searched forward from node `from`, which must
    /// satisfy `before`: a finger search. It follows the links of the highest level each node
    /// it lands on has, climbing as taller nodes come, then descends as a search from the head
    /// does, so a key `d` nodes ahead costs O(log d) steps instead of O(log n).
    ///
    /// Any link a node has is [`NIL`] or a node after it (links are written before the node is
    /// published at their level and point at a successor found by a search), so following
    /// one from a node reached at a lower level only ever moves forward, over nodes that
    /// level 0 holds in between; the result is the one a search from the head finds.
    pub(crate) fn last_where_from(&self, from: u32, before: impl Fn(&Key) -> bool) -> u32 {
        if self.key(from).is_none() {
            return self.last_where(before);
        }
        let mut pred = from;
        let mut level = self.top_level(pred);
        loop {
            let next = self.next(pred, level);
            match self.key(next) {
                Some(key) if before(key) => {
                    // A node reached at a level has links there, so this never descends.
                    pred = next;
                    level = self.top_level(pred);
                }
                _ => break,
            }
        }
        self.descend(pred, level, before)
    }

    /// Bytes reserved for nodes and links (whole slabs).
    pub(crate) fn reserved_bytes(&self) -> u64 {
        self.nodes.reserved_bytes() + self.towers.reserved_bytes() + self.tails.reserved_bytes()
    }
}

/// A node's height: 1 + one level per two trailing zero bits of a hash of its id (p = 1/4).
fn height(id: u32) -> usize {
    // SplitMix64 finaliser.
    let mut z = u64::from(id).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z.trailing_zeros() as usize / 2 + 1).min(MAX_HEIGHT)
}

#[cfg(test)]
#[path = "skiplist_test.rs"]
mod skiplist_test;
