//! Storage tiers (RFC 0010): a server's volumes, each of a storage type, and the
//! storage policies (HDFS's names) that choose a volume for the WAL and for each store file.
//!
//! A file's tier is recorded in the manifest ([`crate::manifest::StoreFile::tier`]) as the
//! storage type's name; a volume holds a store's files under the same relative path as the
//! data directory does (`tables/<ns>/<table>/<region>/<family>/`), so the tier and the relative
//! path locate every file. On a store that places blocks by storage policy (HDFS) the tier
//! field may instead name a policy: the file is in that policy's directory under the family's
//! directory ([`Tier::Policy`]).

pub mod archive;
mod placement;
mod policy;
mod reads;
mod relocate;
mod volumes;

pub use placement::{parse_policy_dir, policy_dir_name, Tier};
pub use policy::{preference, StorageType};
pub(crate) use reads::CountedSource;
pub use reads::{tier_reads, TierReads};
pub(crate) use relocate::copy_between;
pub use relocate::relocate_dir;
pub use volumes::{Volume, Volumes, WarnSink};
