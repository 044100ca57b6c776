//! The cluster's own state machines (the active master and a region server) run over the
//! embedded store, as `strata standalone` will: a table created through an admin request is
//! assigned, and after the whole process stops without leaving (its leases were never revoked)
//! a restart on the same directory finds the table and serves every region again.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use strata_cluster::layout::Layout;
use strata_cluster::master::{submit_request, take_result, AdminRequest, Master, MasterConfig};
use strata_cluster::node::{NoWal, Unbacked};
use strata_cluster::record::RegionState;
use strata_cluster::regionserver::{RegionServer, RegionServerConfig};
use strata_embedded_kv::{EmbeddedKv, Options};
use strata_storage::clock::{Clock, ManualClock};
use strata_storage::vfs::Storage;

struct Process {
    clock: Arc<ManualClock>,
    master: Master<EmbeddedKv, NoWal>,
    server: RegionServer<EmbeddedKv, Unbacked>,
}

impl Process {
    fn start(dir: &Path, clock: &Arc<ManualClock>, start_code: u32) -> (Process, EmbeddedKv) {
        let options = Options {
            clock: clock.clone(),
            ..Options::default()
        };
        let (kv, _) = EmbeddedKv::open(Storage::local(), dir, options).expect("open");
        let layout = Layout::new("/strata");
        let master = Master::new(
            kv.clone(),
            NoWal,
            layout.clone(),
            "localhost:16000".into(),
            MasterConfig::default(),
        );
        let server = RegionServer::new(
            kv.clone(),
            Unbacked::default(),
            layout,
            format!("localhost:16020:{start_code}"),
            "localhost:16020".into(),
            RegionServerConfig::default(),
        );
        let p = Process {
            clock: clock.clone(),
            master,
            server,
        };
        (p, kv)
    }

    fn now(&self) -> u64 {
        u64::try_from(self.clock.now_ms()).unwrap()
    }

    /// Ticks both machines every 100 ms of the clock until `done` or 60 s pass.
    fn run_until(&mut self, mut done: impl FnMut(&mut Process) -> bool) {
        for _ in 0..600 {
            self.clock.advance(100);
            let now = self.now();
            self.master.tick(now);
            self.server.tick(now);
            if done(self) {
                return;
            }
        }
        panic!("not done after 60 s: regions {:?}", self.master.regions());
    }

    fn served(&self) -> Vec<String> {
        let now = self.now();
        self.server
            .served_regions(now)
            .map(str::to_string)
            .collect()
    }
}

#[test]
fn a_table_survives_a_restart_of_the_whole_process() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    let layout = Layout::new("/strata");
    let regions_before;
    {
        let (mut p, kv) = Process::start(dir.path(), &clock, 1);
        p.run_until(|p| p.master.is_active() && p.server.is_live(p.now()));
        let create = AdminRequest::CreateTable {
            table: "t".into(),
            splits: vec![b"g".to_vec(), b"p".to_vec()],
        };
        submit_request(&kv, &layout, "create-1", &create).unwrap();
        p.run_until(|p| p.served().len() == 3);
        let result = take_result(&kv, &layout, "create-1").unwrap().unwrap();
        assert!(result.starts_with("accepted "), "{result}");
        regions_before = p.served();
        // Stopped as by kill -9: no resignation, no lease revoked.
    }
    let (mut p, _kv) = Process::start(dir.path(), &clock, 2);
    p.run_until(|p| {
        p.served().len() == 3
            && p.master
                .regions()
                .iter()
                .all(|(_, r)| r.state == RegionState::Open)
    });
    assert_eq!(p.served(), regions_before, "the same regions, served again");
    assert_eq!(
        p.master
            .tables()
            .into_iter()
            .map(|(t, _)| t)
            .collect::<Vec<_>>(),
        vec!["t".to_string()]
    );
    for (name, r) in p.master.regions() {
        assert_eq!(r.state, RegionState::Open, "{name}");
        assert_eq!(r.server.as_deref(), Some("localhost:16020:2"), "{name}");
    }
}
