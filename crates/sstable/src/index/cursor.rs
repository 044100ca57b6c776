//! A position in the block index: the path from the root to one data block's entry.

use std::sync::Arc;

use strata_model::cell::CellKey;

use super::IndexBlock;
use crate::block::{BlockHandle, BlockType};
use crate::error::Result;

/// Loads child index blocks (through the block cache).
pub(crate) trait IndexLoader {
    /// Loads the index block at `handle`, of `block_type`.
    ///
    /// # Errors
    /// I/O or corruption.
    fn load_index(&self, handle: BlockHandle, block_type: BlockType) -> Result<Arc<IndexBlock>>;
}

/// Path from the root to a leaf entry. `path[0]` is the root; the last element's entry points at
/// a data block. Empty when unpositioned.
pub(crate) struct IndexCursor {
    root: Arc<IndexBlock>,
    levels: u8,
    path: Vec<(Arc<IndexBlock>, usize)>,
}

impl IndexCursor {
    pub(crate) fn new(root: Arc<IndexBlock>, levels: u8) -> IndexCursor {
        IndexCursor {
            root,
            levels,
            path: Vec::with_capacity(levels as usize),
        }
    }

    /// True when positioned on a data block.
    pub(crate) fn valid(&self) -> bool {
        !self.path.is_empty()
    }

    /// The data block under the cursor.
    ///
    /// Requires: `valid()`.
    pub(crate) fn handle(&self) -> BlockHandle {
        let (block, i) = &self.path[self.path.len() - 1];
        block.handle(*i)
    }

    /// Type of the blocks at `depth` (root is depth 0).
    fn child_type(&self, depth: usize) -> BlockType {
        if depth + 2 == self.levels as usize {
            BlockType::LeafIndex
        } else {
            BlockType::IntermediateIndex
        }
    }

    /// Descends from the last path element to a leaf entry, choosing at each level with `pick`.
    fn descend(
        &mut self,
        loader: &dyn IndexLoader,
        pick: &dyn Fn(&IndexBlock) -> usize,
    ) -> Result<()> {
        while self.path.len() < self.levels as usize {
            let depth = self.path.len() - 1;
            let (block, i) = &self.path[depth];
            let child = loader.load_index(block.handle(*i), self.child_type(depth))?;
            if child.is_empty() {
                self.path.clear();
                return Ok(());
            }
            let pos = pick(&child);
            self.path.push((child, pos));
        }
        Ok(())
    }

    fn start(
        &mut self,
        loader: &dyn IndexLoader,
        pick: &dyn Fn(&IndexBlock) -> usize,
    ) -> Result<bool> {
        self.path.clear();
        if self.root.is_empty() {
            return Ok(false);
        }
        let pos = pick(&self.root);
        self.path.push((self.root.clone(), pos));
        self.descend(loader, pick)?;
        Ok(self.valid())
    }

    /// Positions on the data block that may hold the first key ≥ `target`.
    pub(crate) fn seek(&mut self, loader: &dyn IndexLoader, target: &CellKey) -> Result<bool> {
        self.start(loader, &|b: &IndexBlock| b.find(target))
    }

    /// Positions on the first data block.
    pub(crate) fn first(&mut self, loader: &dyn IndexLoader) -> Result<bool> {
        self.start(loader, &|_: &IndexBlock| 0)
    }

    /// Positions on the last data block.
    pub(crate) fn last(&mut self, loader: &dyn IndexLoader) -> Result<bool> {
        self.start(loader, &|b: &IndexBlock| b.len() - 1)
    }

    /// Moves to the next data block; false (and unpositioned) past the last.
    pub(crate) fn next(&mut self, loader: &dyn IndexLoader) -> Result<bool> {
        while let Some((block, i)) = self.path.last_mut() {
            if *i + 1 < block.len() {
                *i += 1;
                self.descend(loader, &|_: &IndexBlock| 0)?;
                return Ok(self.valid());
            }
            self.path.pop();
        }
        Ok(false)
    }

    /// Moves to the previous data block; false (and unpositioned) before the first.
    pub(crate) fn prev(&mut self, loader: &dyn IndexLoader) -> Result<bool> {
        while let Some((_, i)) = self.path.last_mut() {
            if *i > 0 {
                *i -= 1;
                self.descend(loader, &|b: &IndexBlock| b.len() - 1)?;
                return Ok(self.valid());
            }
            self.path.pop();
        }
        Ok(false)
    }
}
