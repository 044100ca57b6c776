//! A region server's usage report for space quotas (RFC 0029; HBase's
//! `FileSystemUtilizationChore`): every period, the bytes of store files of each table's
//! regions open here (files, not memtables, as HBase counts), put at
//! `quota/usage/<server>` when they changed (and every [`REFRESH`] periods regardless). The
//! master adds up the reports of the registered servers ([`crate::space_chore`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use strata_access::scope::split_table;
use strata_cluster::kv::{Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_server::RegionServer;

use crate::quota_space::{encode_usage, usage_key};

/// A report unchanged for this many periods is written again anyway (a master that deleted
/// it, or a store that lost it, sees it again).
pub const REFRESH: u32 = 10;

/// The bytes of store files of each table (`ns:table`) of the regions open on `server`.
pub fn usage(server: &RegionServer) -> BTreeMap<String, u64> {
    let mut usage = BTreeMap::new();
    for h in server.hosted_regions() {
        let (ns, t) = split_table(&h.region.info().table);
        let bytes: u64 = h.region.store_stats().iter().map(|s| s.file_bytes).sum();
        *usage.entry(format!("{ns}:{t}")).or_default() += bytes;
    }
    usage
}

/// Reports `server`'s usage as `name` every `period` until `stop` is set; then deletes the
/// report.
pub fn spawn<K: Kv + Send + Sync + 'static>(
    kv: Arc<K>,
    layout: Layout,
    name: String,
    server: Arc<RegionServer>,
    period: Duration,
    stop: Arc<AtomicBool>,
) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name("space-report".into())
        .spawn(move || {
            let key = usage_key(&layout, &name);
            let mut last: Option<String> = None;
            let mut unchanged = 0;
            let mut next = Instant::now();
            while !stop.load(Ordering::Relaxed) {
                if Instant::now() < next {
                    std::thread::sleep(Duration::from_millis(20).min(period));
                    continue;
                }
                next = Instant::now() + period;
                let text = encode_usage(&usage(&server));
                unchanged += 1;
                if last.as_deref() == Some(&text) && unchanged < REFRESH {
                    continue;
                }
                let put = Txn {
                    compares: vec![],
                    success: vec![Op::put(key.clone(), text.clone())],
                };
                match kv.txn(put) {
                    Ok(_) => {
                        last = Some(text);
                        unchanged = 0;
                    }
                    Err(e) => tracing::warn!("cannot report space quota usage: {e}"),
                }
            }
            let _ = kv.txn(Txn {
                compares: vec![],
                success: vec![Op::Delete(key)],
            });
        })
        .unwrap_or_else(|e| panic!("spawning the space quota usage reporter: {e}"))
}
