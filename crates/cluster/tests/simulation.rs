//! The deterministic simulation of assignment and crash recovery (see `sim/mod.rs`), over many
//! seeds. Invariants checked after every simulated step: no region is served by two servers; a
//! region whose server died is reopened only after that server's WAL is fenced, and with every
//! acknowledged write (also after a reopen for a schema change); after the faults stop, every
//! region of an enabled table is served again, none of a disabled table, and no procedure is
//! left in transition. Admin requests during the chaos include table disable, enable, reopen,
//! truncate, drop, re-creation of a dropped name, region splits and merges (so "served by two
//! servers" is checked on key ranges, and acknowledged writes by the rows they cover).
//!
//! `STRATA_SIM_SEEDS=N` sets how many seeds run (default 2000); `STRATA_SIM_SEED=S` runs seed S
//! alone with its event trace printed (`cargo test -p strata-cluster --test simulation -- --nocapture`).

mod sim;

use sim::{Coverage, SimConfig, World};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn run_seed(seed: u64, verbose: bool) -> (Coverage, Result<(), String>) {
    let mut world = World::new(seed, SimConfig::default(), verbose);
    let violations = world.run();
    let result = if violations.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "seed {} failed: {violations:#?}\nlast events:\n{}\nreproduce: STRATA_SIM_SEED={} cargo test -p strata-cluster --test simulation -- --nocapture",
            world.seed(),
            world.trace_tail(40),
            world.seed()
        ))
    };
    (world.coverage, result)
}

#[test]
fn assignment_survives_crashes_pauses_partitions_and_lost_messages() {
    if let Some(seed) = env_u64("STRATA_SIM_SEED") {
        let (cov, result) = run_seed(seed, true);
        eprintln!("{cov:?}");
        if let Err(e) = result {
            panic!("{e}");
        }
        return;
    }
    let seeds = env_u64("STRATA_SIM_SEEDS").unwrap_or(2000);
    let mut total = Coverage::default();
    for seed in 0..seeds {
        let (c, result) = run_seed(seed, false);
        if let Err(e) = result {
            panic!("{e}");
        }
        total.server_kills += c.server_kills;
        total.server_pauses += c.server_pauses;
        total.master_kills += c.master_kills;
        total.partitions += c.partitions;
        total.elections += c.elections;
        total.recovered_opens += c.recovered_opens;
        total.opens += c.opens;
        total.acked_writes += c.acked_writes;
        total.admin_accepted += c.admin_accepted;
        total.lifecycle_accepted += c.lifecycle_accepted;
        total.recreated += c.recreated;
        total.decommissions += c.decommissions;
        total.splits_accepted += c.splits_accepted;
        total.splits_done += c.splits_done;
        total.daughters_with_parent_writes += c.daughters_with_parent_writes;
        total.merges_accepted += c.merges_accepted;
        total.merges_done += c.merges_done;
        total.etcd_outages += c.etcd_outages;
        total.reincarnations += c.reincarnations;
    }
    eprintln!("{seeds} seeds: {total:?}");
    // The faults must actually have been exercised, not only survived.
    assert!(total.server_kills >= seeds / 2, "{total:?}");
    assert!(total.server_pauses >= seeds / 2, "{total:?}");
    assert!(total.elections > seeds, "masters failed over: {total:?}");
    assert!(
        total.recovered_opens >= seeds,
        "regions reopened after a crash: {total:?}"
    );
    assert!(total.acked_writes > seeds * 100, "{total:?}");
    assert!(
        total.etcd_outages >= seeds / 4,
        "etcd lost by everyone: {total:?}"
    );
    assert!(
        total.reincarnations >= seeds / 2,
        "servers registered again after aborting: {total:?}"
    );
    if seeds >= 100 {
        assert!(
            total.lifecycle_accepted >= seeds / 4,
            "disable/enable/reopen/truncate: {total:?}"
        );
        assert!(total.recreated > 0, "re-created dropped tables: {total:?}");
        assert!(total.splits_done >= seeds / 4, "splits: {total:?}");
        assert!(total.merges_done >= seeds / 8, "merges: {total:?}");
        assert!(
            total.daughters_with_parent_writes >= seeds / 10,
            "daughters opened with their parent's writes: {total:?}"
        );
    }
}

#[test]
fn losing_etcd_for_ten_seconds_stops_every_server_which_registers_again_when_it_returns() {
    let mut worst = 0;
    for seed in 0..20 {
        let mut world = World::new(seed, SimConfig::default(), false);
        let o = world.run_outage(8_000, 10_000, 20_000);
        let context = || format!("seed {seed}: {o:?}\n{}", world.trace_tail(30));
        assert!(o.violations.is_empty(), "{}", context());
        assert_eq!(
            o.served_before,
            SimConfig::default().initial_regions as usize,
            "{}",
            context()
        );
        assert_eq!(
            o.served_while_lost,
            0,
            "a lease outlived etcd: {}",
            context()
        );
        assert!(
            o.reincarnations >= SimConfig::default().servers as u64,
            "every server registers again: {}",
            context()
        );
        let after = o.recovered_after.unwrap_or_else(|| panic!("{}", context()));
        assert!(after < 10_000, "{}", context());
        worst = worst.max(after);
    }
    eprintln!("every region served again within {worst} ms of etcd's return (20 seeds)");
}
