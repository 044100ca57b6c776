//! The embedded store against the in-memory model it embeds, across random operations, lease
//! expiries and reopenings (redb's model-checking style): after every step both hold the same
//! keys with the same revisions and answer the same, and reopening loses exactly what a
//! process's end takes (the keys of its leases).

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_cluster::kv::{range_all, Compare, Kv, KvError, Op, Txn};
use strata_cluster::mem::MemStore;
use strata_embedded_kv::{EmbeddedKv, Options};
use strata_storage::clock::{Clock, ManualClock};
use strata_storage::vfs::Storage;

const KEYS: [&str; 8] = ["a/1", "a/2", "a/3", "b/1", "b/2", "rs/1", "rs/2", "c"];

struct Run {
    rng: SmallRng,
    clock: Arc<ManualClock>,
    dir: tempfile::TempDir,
    kv: EmbeddedKv,
    model: MemStore,
    /// Leases granted in this run: (the store's id, the model's id).
    leases: Vec<(i64, i64)>,
}

impl Run {
    fn new(seed: u64) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(0));
        let kv = Self::open(&dir, &clock);
        Run {
            rng: SmallRng::seed_from_u64(seed),
            clock,
            dir,
            kv,
            model: MemStore::empty(1),
            leases: Vec::new(),
        }
    }

    fn open(dir: &tempfile::TempDir, clock: &Arc<ManualClock>) -> EmbeddedKv {
        let options = Options {
            clock: clock.clone(),
            checkpoint_bytes: 2048,
            ..Options::default()
        };
        EmbeddedKv::open(Storage::local(), dir.path(), options)
            .unwrap()
            .0
    }

    fn now(&self) -> u64 {
        u64::try_from(self.clock.now_ms()).unwrap()
    }

    fn key(&mut self) -> String {
        KEYS[self.rng.gen_range(0..KEYS.len())].to_string()
    }

    /// A compare that holds or, as often, not.
    fn compare(&mut self) -> Compare {
        let key = self.key();
        let current = self.model.get(&key);
        let hold = self.rng.gen_bool(0.5);
        let pick = |rev: i64| if hold { rev } else { rev + 1 };
        if self.rng.gen_bool(0.5) {
            Compare::CreateRevision(key, pick(current.map_or(0, |k| k.create_revision)))
        } else {
            Compare::ModRevision(key, pick(current.map_or(0, |k| k.mod_revision)))
        }
    }

    fn write_op(&mut self) -> (Op, Op) {
        let key = self.key();
        match self.rng.gen_range(0..10) {
            0..=5 => {
                let value = format!("v{}", self.rng.gen::<u16>());
                let lease = if !self.leases.is_empty() && self.rng.gen_bool(0.3) {
                    self.leases[self.rng.gen_range(0..self.leases.len())]
                } else {
                    (0, 0)
                };
                (
                    Op::put_leased(&key, value.clone(), lease.0),
                    Op::put_leased(&key, value, lease.1),
                )
            }
            6..=8 => (Op::Delete(key.clone()), Op::Delete(key)),
            _ => {
                let p = key[..1].to_string();
                (Op::DeletePrefix(p.clone()), Op::DeletePrefix(p))
            }
        }
    }

    fn step(&mut self) {
        let now = self.now();
        self.model.advance(now);
        match self.rng.gen_range(0..20) {
            0..=9 => {
                let compares: Vec<Compare> = (0..self.rng.gen_range(0..3))
                    .map(|_| self.compare())
                    .collect();
                let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                for _ in 0..self.rng.gen_range(1..4) {
                    let (a, b) = self.write_op();
                    ours.push(a);
                    theirs.push(b);
                }
                let got = self.kv.txn(Txn {
                    compares: compares.clone(),
                    success: ours,
                });
                let want = self.model.apply_txn(&Txn {
                    compares,
                    success: theirs,
                });
                match (got, want) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b),
                    (Err(KvError::Invalid(_)), Err(KvError::Invalid(_))) => {}
                    (a, b) => panic!("store {a:?}, model {b:?}"),
                }
            }
            10..=11 => {
                let ttl = self.rng.gen_range(1..4);
                let (a, ta) = self.kv.grant(ttl).unwrap();
                let (b, tb) = self.model.grant_lease(ttl, now);
                assert_eq!(ta, tb);
                self.leases.push((a, b));
            }
            12..=13 if !self.leases.is_empty() => {
                let (a, b) = self.leases[self.rng.gen_range(0..self.leases.len())];
                assert_eq!(
                    self.kv.keep_alive(a).unwrap(),
                    self.model.renew_lease(b, now)
                );
            }
            14 if !self.leases.is_empty() => {
                let (a, b) = self
                    .leases
                    .swap_remove(self.rng.gen_range(0..self.leases.len()));
                self.kv.revoke(a).unwrap();
                self.model.revoke(b);
            }
            15..=17 => self.clock.advance(self.rng.gen_range(0..2500)),
            18 => {
                let key = self.key();
                let got = self.kv.get(&key).unwrap().map(|k| k.value);
                assert_eq!(got, self.model.get(&key).map(|k| k.value));
            }
            _ => {
                // The process ends (nothing is closed) and a new one opens the directory.
                let kv = std::mem::replace(&mut self.kv, Self::open_placeholder());
                drop(kv);
                self.kv = Self::open(&self.dir, &self.clock);
                self.model.drop_leased();
                self.leases.clear();
            }
        }
        self.check();
    }

    /// A handle to hold while the real one is dropped: a store in its own directory.
    fn open_placeholder() -> EmbeddedKv {
        let dir = tempfile::tempdir().unwrap();
        let kv = Self::open(&dir, &Arc::new(ManualClock::new(0)));
        drop(dir);
        kv
    }

    fn check(&mut self) {
        // The store reads the clock at every call; the model is told.
        let now = self.now();
        self.model.advance(now);
        let mut got = range_all(&self.kv, "", 3).unwrap().kvs;
        // Lease ids differ between the two (each numbers its own); compare them mapped.
        for kv in &mut got {
            if kv.lease != 0 {
                let mapped = self.leases.iter().find(|(a, _)| *a == kv.lease);
                kv.lease = mapped.expect("a key's lease was granted in this run").1;
            }
        }
        let want = self.model.read_range("", None, usize::MAX);
        assert_eq!(got, want.kvs);
        assert_eq!(self.kv.revision(), self.model.revision());
    }
}

#[test]
fn the_store_matches_its_model_across_expiries_and_reopenings() {
    for seed in 0..30 {
        let mut run = Run::new(seed);
        for _ in 0..400 {
            run.step();
        }
    }
}
