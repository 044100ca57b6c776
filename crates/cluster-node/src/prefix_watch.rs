//! Keeping a server's copy of control-plane state current: read a prefix of the coordination
//! store whole, then re-read it whenever a watch of the prefix reports a change (or is lost).
//! Grants ([`crate::acl`]) and throttles ([`crate::quota`]) are few, so a change re-reads all.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use strata_cluster::kv::{Kv, KvError};

/// How often a watch is polled.
pub const POLL: Duration = Duration::from_millis(100);

/// Runs `reload` (which reads the prefix and answers the revision it read at) on a thread
/// named `name` until `stop` is set: once, then after every change under `prefix`. A store
/// that cannot be read leaves what was installed in force (`what` names it in the warning).
pub fn spawn<K, F>(
    kv: Arc<K>,
    prefix: String,
    (name, what): (&str, &'static str),
    stop: Arc<AtomicBool>,
    mut reload: F,
) -> JoinHandle<()>
where
    K: Kv + Send + Sync + 'static,
    F: FnMut(&K) -> Result<i64, KvError> + Send + 'static,
{
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let mut watching = None;
            while !stop.load(Ordering::Relaxed) {
                let changed = match watching {
                    None => true,
                    Some(id) => match kv.poll(id) {
                        Ok(events) => !events.is_empty(),
                        Err(KvError::WatchLost(_)) => {
                            kv.cancel(id);
                            watching = None;
                            true
                        }
                        Err(_) => false,
                    },
                };
                if changed {
                    match reload(&*kv) {
                        Ok(revision) => {
                            if watching.is_none() {
                                watching = kv.watch(&prefix, revision + 1).ok();
                            }
                        }
                        Err(e) => tracing::warn!("cannot read the {what}: {e}"),
                    }
                }
                std::thread::sleep(POLL);
            }
            if let Some(id) = watching {
                kv.cancel(id);
            }
        })
        .unwrap_or_else(|e| panic!("spawning the {what}' watcher: {e}"))
}
