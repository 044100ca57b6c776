//! Progress of the shell's long commands (`major_compact`, `compact`, `flush`, `truncate`)
//! on stderr while the admin call runs: a line redrawn each second on a terminal, a plain
//! line every 10 s otherwise. A major compaction shows how many of the table's regions are
//! down to one file per family (polled with the `files` listing); the others show the time
//! they have taken.

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use strata_bench::progress::Progress;
use strata_client::Connection;

/// Plain (non-terminal) progress lines at most this often.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// Runs `work`, showing `label`'s progress until it finishes; with `compacting`, the
/// share of that table's regions with at most one file per family.
pub(super) async fn track<T>(
    conn: &Connection,
    label: String,
    compacting: Option<&str>,
    work: impl Future<Output = T>,
) -> T {
    tokio::pin!(work);
    let mut bar = Progress::new(label, None, PLAIN_EVERY);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    let mut regions = None;
    loop {
        tokio::select! {
            r = &mut work => {
                bar.finish();
                return r;
            }
            _ = tick.tick() => {
                match compacting {
                    Some(table) => {
                        if regions.is_none() {
                            regions = conn.admin().regions(table).await.ok().map(|r| r.len());
                        }
                        match (regions, uncompacted_regions(conn, table).await) {
                            (Some(total), Some(files)) => {
                                bar.set_total(total as u64);
                                let done = total.saturating_sub(files);
                                bar.update(done as u64, "regions with one file per family");
                            }
                            _ => bar.tick("running"),
                        }
                    }
                    None => bar.tick("running"),
                }
            }
        }
    }
}

/// How many regions still have more than one file in some family.
async fn uncompacted_regions(conn: &Connection, table: &str) -> Option<usize> {
    let files = conn.admin().list_files(table).await.ok()?;
    let mut per_store: HashMap<(u64, &str), usize> = HashMap::new();
    for f in &files {
        *per_store
            .entry((f.region_id, f.family.as_str()))
            .or_default() += 1;
    }
    let mut pending: Vec<u64> = per_store
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|((r, _), _)| *r)
        .collect();
    pending.sort_unstable();
    pending.dedup();
    Some(pending.len())
}
