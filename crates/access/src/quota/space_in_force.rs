//! [`SpaceStates`]: the space quota states a server enforces (HBase's
//! `ActivePolicyEnforcement`), as the master published them, and the checks of writes and
//! bulk loads against them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;
use strata_model::ops::Mutation;

use super::space::{SpaceLimited, SpacePolicy, SpaceState};
use crate::scope::split_table;

/// The states in force on a server, by table (`ns:table`).
#[derive(Debug)]
pub struct SpaceStates {
    any: AtomicBool,
    states: RwLock<Arc<HashMap<String, SpaceState>>>,
    revision: AtomicI64,
}

impl Default for SpaceStates {
    fn default() -> Self {
        SpaceStates {
            any: AtomicBool::new(false),
            states: RwLock::new(Arc::new(HashMap::new())),
            revision: AtomicI64::new(-1),
        }
    }
}

fn key(table: &str) -> String {
    let (ns, t) = split_table(table);
    format!("{ns}:{t}")
}

/// HBase's word for a mutation's kind (`Put`, `Delete`, `Increment`, `Append`).
fn kind(m: &Mutation) -> &'static str {
    match m {
        Mutation::Put(_) => "Put",
        Mutation::Delete(_) => "Delete",
        Mutation::Increment(_) => "Increment",
        Mutation::Append(_) => "Append",
    }
}

impl SpaceStates {
    /// Puts `states`, read at `revision` of the coordination store, in force.
    pub fn install(&self, states: HashMap<String, SpaceState>, revision: i64) {
        self.any.store(!states.is_empty(), Ordering::Release);
        *self.states.write() = Arc::new(states);
        self.revision.store(revision, Ordering::Release);
    }

    /// The revision of the states in force (-1: none read yet).
    pub fn revision(&self) -> i64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Whether any table has a state (one atomic load for a server without space quotas).
    pub fn any(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    /// `table`'s state, if a quota covers it.
    pub fn state(&self, table: &str) -> Option<SpaceState> {
        if !self.any() {
            return None;
        }
        self.states.read().get(&key(table)).copied()
    }

    /// Every table's state in force here, ordered by table (`ns:table`): what HBase's
    /// `getRegionServerSpaceQuotaSnapshots` reports of a server.
    pub fn all(&self) -> Vec<(String, SpaceState)> {
        let mut all: Vec<(String, SpaceState)> = self
            .states
            .read()
            .iter()
            .map(|(t, s)| (t.clone(), *s))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// The tables in violation, with their states.
    pub fn violations(&self) -> Vec<(String, SpaceState)> {
        self.states
            .read()
            .iter()
            .filter(|(_, s)| s.in_violation)
            .map(|(t, s)| (t.clone(), *s))
            .collect()
    }

    fn violation(&self, table: &str) -> Option<SpaceState> {
        self.state(table).filter(|s| s.in_violation)
    }

    /// Allows `mutations` on `table` under the policy in force, as HBase's policy
    /// enforcements check each mutation: `NO_INSERTS` refuses puts, increments and appends,
    /// `NO_WRITES` and `NO_WRITES_COMPACTIONS` every mutation, `DISABLE` everything.
    ///
    /// # Errors
    /// [`SpaceLimited`], worded as HBase's `SpaceLimitingException`.
    pub fn check_mutations(&self, table: &str, mutations: &[Mutation]) -> Result<(), SpaceLimited> {
        let Some(state) = self.violation(table) else {
            return Ok(());
        };
        let refused = |m: &Mutation| SpaceLimited {
            policy: state.policy,
            reason: format!("{}s are disallowed due to a space quota.", kind(m)),
        };
        match state.policy {
            SpacePolicy::Disable => Err(SpaceLimited {
                policy: state.policy,
                reason: "This table is disabled due to violating a space quota.".into(),
            }),
            SpacePolicy::NoWrites | SpacePolicy::NoWritesCompactions => {
                mutations.first().map_or(Ok(()), |m| Err(refused(m)))
            }
            SpacePolicy::NoInserts => mutations
                .iter()
                .find(|m| !matches!(m, Mutation::Delete(_)))
                .map_or(Ok(()), |m| Err(refused(m))),
        }
    }

    /// Allows a bulk load of `files` files of `bytes` into `table`, as HBase's
    /// `computeBulkLoadSize`: refused when the files would take the usage above the limit
    /// (so always while in violation).
    ///
    /// # Errors
    /// [`SpaceLimited`].
    pub fn check_bulk_load(
        &self,
        table: &str,
        files: usize,
        bytes: u64,
    ) -> Result<(), SpaceLimited> {
        let Some(state) = self.state(table) else {
            return Ok(());
        };
        if state.in_violation || state.usage.saturating_add(bytes) > state.limit {
            return Err(SpaceLimited {
                policy: state.policy,
                reason: format!(
                    "Bulk load of {files} file(s) ({bytes} bytes) is disallowed because the \
                     file(s) exceed the limits of a space quota ({} of {} bytes used).",
                    state.usage, state.limit
                ),
            });
        }
        Ok(())
    }

    /// Whether `table`'s compactions are stopped (`NO_WRITES_COMPACTIONS` in violation).
    pub fn compactions_disabled(&self, table: &str) -> bool {
        self.violation(table)
            .is_some_and(|s| s.policy == SpacePolicy::NoWritesCompactions)
    }
}
