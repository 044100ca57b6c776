//! Shared stores for Strata's engine (DESIGN §12, RFC 0011): the engine's
//! [`FileStore`](strata_storage::vfs::FileStore) and [`LogStore`](strata_storage::vfs::LogStore)
//! on HDFS through the pure-Rust `hdfs-native` client, so any server can open any region and a
//! dead server's WAL can be fenced and replayed.
//!
//! - [`hdfs`]: [`Hdfs`], both interfaces on one HDFS client; storage policies through the
//!   NameNode's WebHDFS endpoint ([`webhdfs`]), which `hdfs-native` does not expose.
//! - [`open_root`]: a root URL (`hdfs://host:port/path`, a local path) to a
//!   [`Storage`](strata_storage::vfs::Storage) and the root path inside it.

pub mod hdfs;
mod hdfs_lock;
mod root;
mod runtime;
pub mod webhdfs;

pub use hdfs::{Hdfs, HdfsOptions};
pub use root::{open_root, Root};
