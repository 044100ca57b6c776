//! A region server process that lost its lease goes on as a new incarnation (RFC 0012,
//! "Incarnations"): the new one revokes the lease the old one held before it registers, so the
//! old registration does not outlive the outage (etcd renews every lease when it restarts, which
//! the store here models by not advancing its clock), and it registers under a name of its own.
#![allow(clippy::unwrap_used)]

use std::rc::Rc;

use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::mem::{MemKv, MemStore, Perfect, SharedStore};
use strata_cluster::node::Unbacked;
use strata_cluster::regionserver::{RegionServer, RegionServerConfig};

fn server(store: &SharedStore, name: &str) -> RegionServer<MemKv, Unbacked> {
    let config = RegionServerConfig {
        ttl_secs: 3,
        margin_ms: 500,
        ..RegionServerConfig::default()
    };
    RegionServer::new(
        MemKv::new(store.clone(), Rc::new(Perfect)),
        Unbacked::default(),
        Layout::new("/t"),
        name.to_owned(),
        "h:1".to_owned(),
        config,
    )
}

fn registered(store: &SharedStore, name: &str) -> bool {
    let kv = MemKv::new(store.clone(), Rc::new(Perfect));
    kv.get(&Layout::new("/t").server(name)).unwrap().is_some()
}

#[test]
fn a_new_incarnation_revokes_the_lease_its_predecessor_lost_before_registering() {
    let store = MemStore::new(1);
    let mut old = server(&store, "h:1:1");
    old.tick(0);
    assert!(old.is_live(0));
    let lease = old.lease_id();
    assert!(lease.is_some());
    // No renewal answered (etcd away) until past the deadline (TTL − margin): it aborts, and
    // serves nothing; its registration is still in the store.
    old.tick(2_600);
    assert!(old.aborted().is_some());
    assert!(!old.is_live(2_600));
    assert!(registered(&store, "h:1:1"));

    let mut new = server(&store, "h:1:2").succeeding(lease);
    new.tick(2_700);
    assert!(
        !registered(&store, "h:1:1"),
        "the old incarnation's registration outlived its successor's start"
    );
    assert!(registered(&store, "h:1:2"));
    assert!(new.is_live(2_700));
    assert_ne!(new.lease_id(), lease);
}

#[test]
fn a_predecessor_lease_already_gone_does_not_hold_up_the_successor() {
    let store = MemStore::new(1);
    let mut old = server(&store, "h:1:1");
    old.tick(0);
    let lease = old.lease_id();
    // The lease expires in the store first (as etcd expires it when it stays up).
    store.borrow_mut().advance(10_000);
    assert!(!registered(&store, "h:1:1"));
    old.tick(10_000);
    assert!(old.aborted().is_some());
    let mut new = server(&store, "h:1:2").succeeding(lease);
    new.tick(10_100);
    assert!(new.is_live(10_100));
    assert!(registered(&store, "h:1:2"));
}
