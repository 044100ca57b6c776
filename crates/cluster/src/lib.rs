//! Cluster mode's coordination on etcd: master election, region-server registration under
//! leases with a self-fencing deadline, assignment records changed only by guarded transactions,
//! and resumable procedures (assign, unassign, move, server-crash recovery, create and drop
//! table). Design and measurements: RFC 0012 (`docs/rfcs/0012-cluster.md`).
//!
//! The protocol is written once, as synchronous state machines ([`master::Master`],
//! [`regionserver::RegionServer`]) advanced by `tick(now)` over the [`kv::Kv`] trait. A real
//! process drives them from a thread against [`etcd::EtcdKv`]; the deterministic simulation
//! (`tests/simulation.rs`) drives them from a seeded event loop against [`mem::MemKv`], an
//! in-memory etcd with the same semantics, injecting crashes, pauses, partitions and lost
//! messages.
//!
//! Module map:
//! - [`kv`]: the coordination-store trait; [`etcd`] and [`mem`] implement it.
//! - [`layout`], [`record`]: the keys and values in etcd.
//! - [`load`]: region servers' load reports.
//! - [`lease`]: a kept-alive lease and its self-fencing deadline; [`election`]: who leads.
//! - [`master`]: the active master's image, guarded batched writes, procedures, admin requests.
//! - [`regionserver`]: registration, orders and acknowledgements.
//! - [`node`]: running a master or a region server as a process; [`status`]: what etcd says.
//! - [`wal`], [`host`]: what the protocol needs from storage (fence and split a dead server's WAL;
//!   open and close a region), with in-memory models.
//!
//! This crate depends on no storage or RPC crate of the workspace: storage plugs in through the
//! [`wal::WalFencer`] and [`host::RegionHost`] traits.

pub mod election;
pub mod etcd;
pub mod etcd_tls;
pub mod host;
pub mod kv;
pub mod layout;
pub mod lease;
pub mod load;
pub mod master;
pub mod mem;
pub mod node;
pub mod record;
pub mod region_metrics;
pub mod regionserver;
pub mod status;
pub mod wal;
