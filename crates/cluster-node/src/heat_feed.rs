//! Feeds a master's [`ClusterHeatmap`] from the region servers' load reports: a thread
//! watches `load/` in etcd (each report arrives once, as it is written: no polling of every
//! report) and adds each report's per-region counts, placed by the region's table and start
//! key. Region start keys come from the table's region records, read when a report names a
//! region not seen before (at most once per table every [`REFRESH`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_cluster::kv::{range_all, EventKind, Kv, WatchId};
use strata_cluster::layout::Layout;
use strata_cluster::load::{Accesses, ServerLoad};
use strata_cluster::record::RegionRecord;

use crate::heat::ClusterHeatmap;

/// How often the watch is polled.
const POLL: Duration = Duration::from_millis(500);
/// Least time between two reads of one table's region records.
pub const REFRESH: Duration = Duration::from_secs(10);

/// Milliseconds since the Unix epoch: the heatmap's clock (a view passes the same).
pub fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A running feed; stopped (and joined) when dropped.
pub struct HeatFeed {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for HeatFeed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Where regions are: region name → (table, start key), refreshed per table.
struct Places<'a, K> {
    kv: &'a K,
    layout: &'a Layout,
    starts: HashMap<String, (String, Vec<u8>)>,
    read_at: HashMap<String, Instant>,
}

impl<K: Kv> Places<'_, K> {
    fn place(&mut self, region: &str) -> Option<(String, Vec<u8>)> {
        if let Some(p) = self.starts.get(region) {
            return Some(p.clone());
        }
        let (table, _) = region.rsplit_once(',')?;
        if self
            .read_at
            .get(table)
            .is_some_and(|t| t.elapsed() < REFRESH)
        {
            return None;
        }
        self.read_at.insert(table.to_owned(), Instant::now());
        let prefix = self.layout.table_regions(table);
        let page = range_all(self.kv, &prefix, 1000).ok()?;
        self.starts.retain(|_, (t, _)| t != table);
        let names = self.layout.regions();
        for kv in page.kvs {
            if let (Some(name), Ok(r)) =
                (kv.key.strip_prefix(&names), RegionRecord::decode(&kv.value))
            {
                self.starts
                    .insert(name.to_owned(), (table.to_owned(), r.start));
            }
        }
        self.starts.get(region).cloned()
    }
}

/// Starts feeding `heat` from the reports under `layout`, read through `kv`.
pub fn spawn<K: Kv + Send + Sync + 'static>(
    kv: Arc<K>,
    layout: Layout,
    heat: Arc<Mutex<ClusterHeatmap>>,
) -> HeatFeed {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let thread = std::thread::Builder::new()
        .name("heatmap-feed".into())
        .spawn(move || run(kv.as_ref(), &layout, &heat, &flag))
        .ok();
    HeatFeed { stop, thread }
}

fn start_watch<K: Kv>(kv: &K, prefix: &str) -> Option<WatchId> {
    let revision = kv.range(prefix, None, 1).ok()?.revision;
    kv.watch(prefix, revision + 1).ok()
}

fn run<K: Kv>(kv: &K, layout: &Layout, heat: &Mutex<ClusterHeatmap>, stop: &AtomicBool) {
    let prefix = layout.loads();
    let mut places = Places {
        kv,
        layout,
        starts: HashMap::new(),
        read_at: HashMap::new(),
    };
    let mut watch: Option<WatchId> = None;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(POLL);
        let Some(w) = watch.or_else(|| start_watch(kv, &prefix)) else {
            continue;
        };
        watch = Some(w);
        let events = match kv.poll(w) {
            Ok(events) => events,
            Err(strata_cluster::kv::KvError::Unavailable(_)) => continue,
            Err(_) => {
                // Lost: reports written meanwhile are missed, the next ones counted.
                kv.cancel(w);
                watch = None;
                continue;
            }
        };
        for e in events {
            if e.kind != EventKind::Put {
                continue;
            }
            let Ok(load) = ServerLoad::decode(&e.kv.value) else {
                continue;
            };
            let mut counts: Vec<(String, Vec<u8>, Accesses)> = Vec::new();
            let mut unplaced = Accesses::default();
            for (region, n) in &load.counts {
                match places.place(region) {
                    Some((table, start)) => counts.push((table, start, *n)),
                    None => {
                        unplaced.reads += n.reads;
                        unplaced.writes += n.writes;
                    }
                }
            }
            let mut h = heat.lock();
            h.add(wall_ms(), load.interval_ms, &counts);
            h.drop_unplaced(unplaced);
        }
    }
    if let Some(w) = watch {
        kv.cancel(w);
    }
}
