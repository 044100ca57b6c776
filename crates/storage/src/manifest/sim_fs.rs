//! [`SimFs`]: an in-memory [`Fs`] that keeps written state apart from durable state, so tests can
//! crash after any operation and inspect every state the disk might be left in.
//!
//! Model: each file (inode) has its written bytes and its durable bytes (as of its last
//! `sync_file`). The directory has its visible names and its durable names (as of the last
//! `sync_dir`) plus the name changes since, in order. After a crash:
//! - any subset of the pending name changes may have reached the disk, applied in their order
//!   (stricter than ordered metadata journaling, which keeps only prefixes; with more than
//!   [`MAX_SUBSET_CHANGES`] pending changes only prefixes are tried);
//! - a file whose bytes were not synced may hold its durable bytes, all its written bytes, or a
//!   torn write (the first half of them).
//!
//! [`SimFs::crash_images`] lists every such combination.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::sync::Arc;

use parking_lot::Mutex;

use super::fs::Fs;

/// An in-memory [`Fs`] with simulated crashes. Clones share the same state; [`SimFs::fork`]
/// copies it.
#[derive(Clone, Debug, Default)]
pub struct SimFs {
    state: Arc<Mutex<State>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Inode {
    written: Vec<u8>,
    durable: Vec<u8>,
}

/// Above this many unsynced name changes, [`SimFs::crash_images`] tries prefixes instead of
/// every subset.
pub const MAX_SUBSET_CHANGES: usize = 10;

#[derive(Clone, Debug, PartialEq, Eq)]
enum NameChange {
    Link(String, usize),
    Rename(String, String, usize),
    Unlink(String),
}

#[derive(Clone, Debug, Default)]
struct State {
    inodes: Vec<Inode>,
    names: BTreeMap<String, usize>,
    durable_names: BTreeMap<String, usize>,
    pending: Vec<NameChange>,
    ops: u64,
    crash_after: Option<u64>,
    trace: Vec<String>,
}

impl State {
    /// Counts an operation; fails it if the simulated crash has happened.
    fn begin(&mut self, what: String) -> io::Result<()> {
        if self.crash_after.is_some_and(|limit| self.ops >= limit) {
            return Err(io::Error::other(format!("simulated crash before {what}")));
        }
        self.ops += 1;
        self.trace.push(what);
        Ok(())
    }

    fn inode(&self, name: &str) -> io::Result<usize> {
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, name.to_owned()))
    }
}

fn apply(names: &mut BTreeMap<String, usize>, change: &NameChange) {
    match change {
        NameChange::Link(name, inode) => {
            names.insert(name.clone(), *inode);
        }
        NameChange::Rename(from, to, inode) => {
            names.remove(from);
            names.insert(to.clone(), *inode);
        }
        NameChange::Unlink(name) => {
            names.remove(name);
        }
    }
}

impl SimFs {
    /// An empty directory.
    pub fn new() -> SimFs {
        SimFs::default()
    }

    /// An independent copy of the current state (counters and crash point included).
    pub fn fork(&self) -> SimFs {
        SimFs {
            state: Arc::new(Mutex::new(self.state.lock().clone())),
        }
    }

    /// Operations performed so far (reads included).
    pub fn ops(&self) -> u64 {
        self.state.lock().ops
    }

    /// Simulates a crash after operation number `ops` (counted by [`SimFs::ops`]): every later
    /// operation fails and changes nothing. `None` lifts it.
    pub fn set_crash_after(&self, ops: Option<u64>) {
        self.state.lock().crash_after = ops;
    }

    /// The operations performed, in order, for test failure messages.
    pub fn trace(&self) -> Vec<String> {
        self.state.lock().trace.clone()
    }

    /// Every state the directory may be found in after a crash now, each as a fresh `SimFs`
    /// whose files are all durable. Deduplicated; the first is the state as of the last syncs.
    pub fn crash_images(&self) -> Vec<SimFs> {
        let s = self.state.lock();
        let mut seen = BTreeSet::new();
        let mut images = Vec::new();
        let n = s.pending.len();
        let subsets: Vec<Vec<bool>> = if n <= MAX_SUBSET_CHANGES {
            (0..1u32 << n)
                .map(|mask| (0..n).map(|i| mask & (1 << i) != 0).collect())
                .collect()
        } else {
            (0..=n).map(|k| (0..n).map(|i| i < k).collect()).collect()
        };
        for subset in subsets {
            let mut names = s.durable_names.clone();
            for (change, _) in s.pending.iter().zip(&subset).filter(|(_, kept)| **kept) {
                apply(&mut names, change);
            }
            let live: BTreeSet<usize> = names.values().copied().collect();
            let mut choices: Vec<BTreeMap<usize, Vec<u8>>> = vec![BTreeMap::new()];
            for &i in &live {
                let inode = &s.inodes[i];
                let mut variants = vec![inode.durable.clone()];
                if inode.written != inode.durable {
                    variants.push(inode.written.clone());
                    variants.push(inode.written[..inode.written.len() / 2].to_vec());
                }
                variants.dedup();
                choices = choices
                    .into_iter()
                    .flat_map(|c| {
                        variants.iter().map(move |v| {
                            let mut c = c.clone();
                            c.insert(i, v.clone());
                            c
                        })
                    })
                    .collect();
            }
            for contents in choices {
                let files: BTreeMap<String, Vec<u8>> = names
                    .iter()
                    .map(|(n, i)| (n.clone(), contents.get(i).cloned().unwrap_or_default()))
                    .collect();
                if seen.insert(files.clone()) {
                    images.push(SimFs::with_durable_files(files));
                }
            }
        }
        images
    }

    /// A directory holding `files`, all durable.
    pub fn with_durable_files(files: BTreeMap<String, Vec<u8>>) -> SimFs {
        let mut state = State::default();
        for (name, data) in files {
            state.names.insert(name, state.inodes.len());
            state.inodes.push(Inode {
                written: data.clone(),
                durable: data,
            });
        }
        state.durable_names = state.names.clone();
        SimFs {
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// The visible files and their written bytes (no operation is counted).
    pub fn files(&self) -> BTreeMap<String, Vec<u8>> {
        let s = self.state.lock();
        s.names
            .iter()
            .map(|(n, i)| (n.clone(), s.inodes[*i].written.clone()))
            .collect()
    }
}

impl Fs for SimFs {
    fn list(&self) -> io::Result<Vec<String>> {
        let mut s = self.state.lock();
        s.begin("list".to_owned())?;
        Ok(s.names.keys().cloned().collect())
    }

    fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        let mut s = self.state.lock();
        s.begin(format!("read {name}"))?;
        let i = s.inode(name)?;
        Ok(s.inodes[i].written.clone())
    }

    fn write(&self, name: &str, data: &[u8]) -> io::Result<()> {
        let mut s = self.state.lock();
        s.begin(format!("write {name}"))?;
        match s.names.get(name) {
            Some(&i) => s.inodes[i].written = data.to_vec(),
            None => {
                let i = s.inodes.len();
                s.inodes.push(Inode {
                    written: data.to_vec(),
                    durable: Vec::new(),
                });
                s.names.insert(name.to_owned(), i);
                s.pending.push(NameChange::Link(name.to_owned(), i));
            }
        }
        Ok(())
    }

    fn sync_file(&self, name: &str) -> io::Result<()> {
        let mut s = self.state.lock();
        s.begin(format!("sync_file {name}"))?;
        let i = s.inode(name)?;
        s.inodes[i].durable = s.inodes[i].written.clone();
        Ok(())
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let mut s = self.state.lock();
        s.begin(format!("rename {from} {to}"))?;
        let i = s.inode(from)?;
        s.names.remove(from);
        s.names.insert(to.to_owned(), i);
        s.pending
            .push(NameChange::Rename(from.to_owned(), to.to_owned(), i));
        Ok(())
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        let mut s = self.state.lock();
        s.begin(format!("remove {name}"))?;
        s.inode(name)?;
        s.names.remove(name);
        s.pending.push(NameChange::Unlink(name.to_owned()));
        Ok(())
    }

    fn sync_dir(&self) -> io::Result<()> {
        let mut s = self.state.lock();
        s.begin("sync_dir".to_owned())?;
        s.durable_names = s.names.clone();
        s.pending.clear();
        Ok(())
    }
}
