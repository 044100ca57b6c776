//! Crash images for [`Faulty`](super::Faulty): a model of what a store holds after a power
//! loss at any instant, kept beside the real store (as redb's crash test separates written
//! from durable bytes).
//!
//! The model follows the durability contract of [`super`] and RFC 0011:
//! - a file's (or log's) bytes are durable up to its last successful `sync`; `flush` of a log
//!   (SYNC_WAL) survives a process crash only, so a power-loss image does not keep it;
//! - a created, renamed or removed name is durable after a `sync_dir` of its directory; until
//!   then the image has the name as of that directory's last sync (a file created and synced
//!   but never named durably is absent; a name made durable before its bytes is a torn file);
//! - `create_dir_all` and a log's `cut` are durable by themselves;
//! - a removed directory's files stay in the image until its parent directory is synced.
//!
//! Invariants: every path in `durable` or `current` names a node in `nodes`; a node's
//! `durable` bytes are those of its last sync.
//!
//! Thread safety: one [`Tracker`] behind a mutex per store; writers hold an `Arc` of it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};

use super::{FileStore, FileWriter};

/// What a store held durably at one instant: the files (with their durable bytes) and the
/// directories a restart would find.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashImage {
    /// Durable files by path, with their durable content.
    pub files: BTreeMap<PathBuf, Vec<u8>>,
    /// Durable directories.
    pub dirs: BTreeSet<PathBuf>,
}

impl CrashImage {
    /// Writes the image into `store`, moving every path from under `root` to under `to`, so a
    /// process can be reopened on what a crash would have left. Files are closed, not synced
    /// (an image is for reopening in tests, not for keeping).
    ///
    /// Requires: `to` is empty or missing.
    ///
    /// # Errors
    /// Any I/O error of `store`.
    pub fn write_to(&self, store: &dyn FileStore, root: &Path, to: &Path) -> io::Result<()> {
        let moved = |p: &Path| to.join(p.strip_prefix(root).unwrap_or(p));
        store.create_dir_all(to)?;
        for dir in &self.dirs {
            store.create_dir_all(&moved(dir))?;
        }
        for (path, bytes) in &self.files {
            let target = moved(path);
            if let Some(parent) = target.parent() {
                store.create_dir_all(parent)?;
            }
            let mut w = store.create(&target)?;
            w.write_all(bytes)?;
            FileWriter::close(w)?;
        }
        Ok(())
    }
}

/// One file's bytes: all written, and those made durable by its last sync.
#[derive(Debug, Default)]
struct Node {
    written: Vec<u8>,
    durable: Vec<u8>,
}

/// The model of one store under `root` (paths elsewhere are not tracked).
#[derive(Debug)]
pub(super) struct Tracker {
    root: PathBuf,
    next: u64,
    nodes: HashMap<u64, Node>,
    /// The namespace as the running process sees it.
    current: BTreeMap<PathBuf, u64>,
    /// The namespace a crash would leave.
    durable: BTreeMap<PathBuf, u64>,
    current_dirs: BTreeSet<PathBuf>,
    durable_dirs: BTreeSet<PathBuf>,
    /// Images taken at every sync point while recording.
    images: Vec<CrashImage>,
    recording: bool,
}

impl Tracker {
    /// Starts tracking `root`, whose present content (read through `store`) counts as durable.
    pub(super) fn adopt(store: &dyn FileStore, root: &Path) -> io::Result<Tracker> {
        let mut t = Tracker {
            root: root.to_owned(),
            next: 0,
            nodes: HashMap::new(),
            current: BTreeMap::new(),
            durable: BTreeMap::new(),
            current_dirs: BTreeSet::new(),
            durable_dirs: BTreeSet::new(),
            images: Vec::new(),
            recording: false,
        };
        if store.exists(root)? {
            t.adopt_dir(store, root)?;
        }
        Ok(t)
    }

    fn adopt_dir(&mut self, store: &dyn FileStore, dir: &Path) -> io::Result<()> {
        self.current_dirs.insert(dir.to_owned());
        self.durable_dirs.insert(dir.to_owned());
        for entry in store.list(dir)? {
            let path = dir.join(&entry.name);
            if entry.is_dir {
                self.adopt_dir(store, &path)?;
            } else {
                let bytes = store.read(&path)?;
                let id = self.node(Node {
                    written: bytes.clone(),
                    durable: bytes,
                });
                self.current.insert(path.clone(), id);
                self.durable.insert(path, id);
            }
        }
        Ok(())
    }

    fn node(&mut self, node: Node) -> u64 {
        self.next += 1;
        self.nodes.insert(self.next, node);
        self.next
    }

    fn tracks(&self, path: &Path) -> bool {
        path.starts_with(&self.root)
    }

    /// Starts (or stops) taking an image at every sync point.
    pub(super) fn record(&mut self, on: bool) {
        self.recording = on;
    }

    /// The images taken so far while recording.
    pub(super) fn images(&self) -> &[CrashImage] {
        &self.images
    }

    /// A sync point: the instant just before a sync takes effect.
    pub(super) fn sync_point(&mut self) {
        if self.recording {
            let image = self.image();
            self.images.push(image);
        }
    }

    /// What a crash now would leave.
    pub(super) fn image(&self) -> CrashImage {
        let files = self
            .durable
            .iter()
            .map(|(path, id)| (path.clone(), self.nodes[id].durable.clone()))
            .collect();
        CrashImage {
            files,
            dirs: self.durable_dirs.clone(),
        }
    }

    /// `path` was created empty (replacing what was there); returns its node.
    pub(super) fn created(&mut self, path: &Path) -> Option<u64> {
        if !self.tracks(path) {
            return None;
        }
        let id = self.node(Node::default());
        self.current.insert(path.to_owned(), id);
        Some(id)
    }

    /// `bytes` were appended to node `id`.
    pub(super) fn wrote(&mut self, id: u64, bytes: &[u8]) {
        if let Some(n) = self.nodes.get_mut(&id) {
            n.written.extend_from_slice(bytes);
        }
    }

    /// Node `id` was synced: everything written is durable.
    pub(super) fn synced(&mut self, id: u64) {
        if let Some(n) = self.nodes.get_mut(&id) {
            if n.written.starts_with(&n.durable) {
                let from = n.durable.len();
                n.durable.extend_from_slice(&n.written[from..]);
            } else {
                n.durable.clone_from(&n.written);
            }
        }
    }

    /// Node `id` was cut to `len` bytes, not durably (an open log's `truncate`).
    pub(super) fn truncated(&mut self, id: u64, len: u64) {
        if let Some(n) = self.nodes.get_mut(&id) {
            n.written.truncate(len as usize);
        }
    }

    /// The file at `path` was cut to `len` bytes durably (a closed log's `cut`).
    pub(super) fn cut(&mut self, path: &Path, len: u64) {
        if let Some(n) = self.current.get(path).and_then(|id| self.nodes.get_mut(id)) {
            n.written.truncate(len as usize);
            n.durable.truncate(len as usize);
        }
    }

    /// `from` was renamed to `to` (a file, or a directory with everything under it).
    pub(super) fn renamed(&mut self, from: &Path, to: &Path) {
        if let Some(id) = self.current.remove(from) {
            if self.tracks(to) {
                self.current.insert(to.to_owned(), id);
            }
            return;
        }
        let under: Vec<(PathBuf, u64)> = self
            .current
            .iter()
            .filter(|(p, _)| p.starts_with(from))
            .map(|(p, id)| (p.clone(), *id))
            .collect();
        for (p, id) in under {
            self.current.remove(&p);
            let rel = p.strip_prefix(from).unwrap_or(&p);
            self.current.insert(to.join(rel), id);
        }
        let dirs: Vec<PathBuf> = self
            .current_dirs
            .iter()
            .filter(|d| d.starts_with(from))
            .cloned()
            .collect();
        for d in dirs {
            self.current_dirs.remove(&d);
            let rel = d.strip_prefix(from).unwrap_or(&d);
            self.current_dirs.insert(to.join(rel));
        }
    }

    /// The file at `path` was removed.
    pub(super) fn removed(&mut self, path: &Path) {
        self.current.remove(path);
    }

    /// `dir` and everything under it were removed.
    pub(super) fn removed_dir(&mut self, dir: &Path) {
        self.current.retain(|p, _| !p.starts_with(dir));
        self.current_dirs.retain(|d| !d.starts_with(dir));
    }

    /// `dir` and its missing parents were created, durably.
    pub(super) fn created_dir(&mut self, dir: &Path) {
        let mut at = Some(dir);
        while let Some(d) = at.filter(|d| self.tracks(d)) {
            self.current_dirs.insert(d.to_owned());
            self.durable_dirs.insert(d.to_owned());
            at = d.parent();
        }
    }

    /// The names in `dir` were synced: its files and subdirectories are durable as they are
    /// now (a subdirectory removed since is gone from the image with all it held).
    pub(super) fn synced_dir(&mut self, dir: &Path) {
        let in_dir = |p: &Path| p.parent() == Some(dir);
        self.durable.retain(|p, _| !in_dir(p));
        for (p, id) in &self.current {
            if in_dir(p) {
                self.durable.insert(p.clone(), *id);
            }
        }
        let gone: Vec<PathBuf> = self
            .durable_dirs
            .iter()
            .filter(|d| in_dir(d) && !self.current_dirs.contains(*d))
            .cloned()
            .collect();
        for d in gone {
            self.durable_dirs.retain(|x| !x.starts_with(&d));
            self.durable.retain(|p, _| !p.starts_with(&d));
        }
        let born: Vec<PathBuf> = self
            .current_dirs
            .iter()
            .filter(|d| in_dir(d) && !self.durable_dirs.contains(*d))
            .cloned()
            .collect();
        for d in born {
            // A directory renamed into `dir`: its subtree becomes durable as it is now.
            for (p, id) in &self.current {
                if p.starts_with(&d) {
                    self.durable.insert(p.clone(), *id);
                }
            }
            for x in &self.current_dirs {
                if x.starts_with(&d) {
                    self.durable_dirs.insert(x.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::super::{Faulty, Local, LogStore};
    use super::*;

    fn content(image: &CrashImage, path: &Path) -> Option<Vec<u8>> {
        image.files.get(path).cloned()
    }

    #[test]
    fn images_keep_synced_bytes_and_synced_names_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let store = Faulty::with_crash_images(Local, &root).unwrap();
        FileStore::create_dir_all(&store, &root).unwrap();
        let a = root.join("a");
        let mut w = FileStore::create(&store, &a).unwrap();
        w.write_all(b"hello").unwrap();
        // Written, not synced, name not synced: nothing.
        assert_eq!(content(&store.crash_image(), &a), None);
        w.sync().unwrap();
        // Bytes durable, name not yet.
        assert_eq!(content(&store.crash_image(), &a), None);
        FileStore::sync_dir(&store, &root).unwrap();
        assert_eq!(content(&store.crash_image(), &a).unwrap(), b"hello");
        w.write_all(b" world").unwrap();
        FileWriter::close(w).unwrap();
        assert_eq!(content(&store.crash_image(), &a).unwrap(), b"hello");

        // A name synced before its bytes is a torn (here empty) file.
        let b = root.join("b");
        let mut w = FileStore::create(&store, &b).unwrap();
        w.write_all(b"torn").unwrap();
        FileStore::sync_dir(&store, &root).unwrap();
        assert_eq!(content(&store.crash_image(), &b).unwrap(), b"");
        drop(w);

        // An unsynced rename leaves the old names; a synced one moves the durable bytes.
        FileStore::rename(&store, &a, &root.join("c")).unwrap();
        let image = store.crash_image();
        assert_eq!(content(&image, &a).unwrap(), b"hello");
        assert_eq!(content(&image, &root.join("c")), None);
        FileStore::sync_dir(&store, &root).unwrap();
        let image = store.crash_image();
        assert_eq!(content(&image, &a), None);
        assert_eq!(content(&image, &root.join("c")).unwrap(), b"hello");

        // A removed directory comes back until its parent is synced.
        let sub = root.join("sub");
        FileStore::create_dir_all(&store, &sub).unwrap();
        store.write_atomic(&sub.join("x"), b"x").unwrap();
        FileStore::remove_dir_all(&store, &sub).unwrap();
        assert_eq!(content(&store.crash_image(), &sub.join("x")).unwrap(), b"x");
        FileStore::sync_dir(&store, &root).unwrap();
        let image = store.crash_image();
        assert_eq!(content(&image, &sub.join("x")), None);
        assert!(!image.dirs.contains(&sub));
    }

    #[test]
    fn logs_keep_synced_appends_and_durable_cuts_and_images_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("old"), b"before").unwrap();
        let store = Faulty::with_crash_images(Local, &root).unwrap();
        store.record_crash_images(true);
        let log_path = root.join("log");
        let mut log = LogStore::create(&store, &log_path).unwrap();
        LogStore::sync_dir(&store, &root).unwrap();
        log.append(b"one").unwrap();
        log.sync().unwrap();
        log.append(b"two").unwrap();
        log.flush().unwrap();
        assert_eq!(content(&store.crash_image(), &log_path).unwrap(), b"one");
        log.truncate(3).unwrap();
        log.append(b"three").unwrap();
        log.sync().unwrap();
        assert_eq!(
            content(&store.crash_image(), &log_path).unwrap(),
            b"onethree"
        );
        LogStore::cut(&store, &log_path, 4).unwrap();
        let image = store.crash_image();
        assert_eq!(content(&image, &log_path).unwrap(), b"onet");
        assert_eq!(content(&image, &root.join("old")).unwrap(), b"before");
        // One image per sync point: sync_dir, two syncs.
        assert_eq!(store.crash_image_count(), 3);
        assert_eq!(content(&store.crash_images()[1], &log_path).unwrap(), b"");

        let to = dir.path().join("restored");
        image.write_to(&Local, &root, &to).unwrap();
        assert_eq!(std::fs::read(to.join("log")).unwrap(), b"onet");
        assert_eq!(std::fs::read(to.join("old")).unwrap(), b"before");
    }
}
