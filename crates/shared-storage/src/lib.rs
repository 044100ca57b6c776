//! Shared stores for Strata's engine (RFC 0011): the engine's
//! [`FileStore`](strata_storage::vfs::FileStore) and [`LogStore`](strata_storage::vfs::LogStore)
//! on HDFS through the pure-Rust `hdfs-native` client, so any server can open any region and a
//! dead server's WAL can be fenced and replayed.
//!
//! - [`hdfs`]: [`Hdfs`], both interfaces on one HDFS client; storage policies through the
//!   NameNode's WebHDFS endpoint ([`webhdfs`]), which `hdfs-native` does not expose.
//! - [`s3`]: [`S3`], the file store on S3-compatible object storage through `object_store`,
//!   with a local disk cache of pages ([`s3_cache`]) so warm reads send no request.
//! - [`open_root`]: a root URL (`hdfs://host:port/path`, `s3://bucket/prefix`, a local path)
//!   to a [`Storage`](strata_storage::vfs::Storage) and the root path inside it; the WAL may
//!   live elsewhere ([`wal_root`]), and must for an S3 root.

pub mod hadoop_conf;
pub mod hdfs;
mod hdfs_lock;
mod root;
mod runtime;
pub mod s3;
pub mod s3_cache;
pub mod wal_root;
pub mod webhdfs;

pub use hdfs::{Hdfs, HdfsOptions};
pub use root::{open_cold_root, open_root, open_root_with, Root, RootOptions};
pub use s3::{S3Options, S3Requests, S3};
