//! [`ParallelScanner`]: a scan split at region boundaries, the parts read concurrently.
//!
//! Each part is an ordinary [`Scanner`] over the scan's range intersected with one region's,
//! so a part whose region splits or moves meanwhile still returns its rows once. A driver
//! task starts parts in scan order, at most `parallelism` at a time; each part feeds a
//! channel: its own when the caller wants scan order (read one after the other), a shared one
//! otherwise.
//!
//! Invariant (no deadlock when ordered): parts take their concurrency permits in scan order,
//! so the part the caller is reading always holds one, even when later parts are blocked on
//! full channels.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::Scan;
use tokio::sync::{mpsc, Semaphore};
use tokio::task::{JoinHandle, JoinSet};

use crate::error::Error;
use crate::locate::RegionLocation;
use crate::scanner::Scanner;
use crate::table::Table;

type RowResult = Result<Vec<Cell>, Error>;

/// Rows a sub-scan's channel holds ready when the scan sets no `caching`.
const READY_ROWS: u32 = 1_000;

/// Rows of a scan read by several concurrent sub-scans, one per region range.
#[derive(Debug)]
pub struct ParallelScanner {
    receivers: VecDeque<mpsc::Receiver<RowResult>>,
    driver: JoinHandle<()>,
    limit: Option<u64>,
    returned: u64,
    last_returned: Option<Bytes>,
    done: bool,
}

impl ParallelScanner {
    pub(crate) async fn start(
        table: &Table,
        scan: &Scan,
        parallelism: usize,
        ordered: bool,
    ) -> Result<ParallelScanner, Error> {
        scan.validate()?;
        let regions = table.conn.fresh_regions(table.name()).await?;
        let (lower, upper) = scan.bounds();
        let mut ranges = sub_ranges(&lower, &upper, regions.all());
        if scan.reversed {
            ranges.reverse();
        }
        // Rows each channel holds ready: the scan's caching, if it sets one (pages themselves
        // are bounded by bytes, and ordered scans keep a channel per region).
        let capacity = scan.caching.unwrap_or(READY_ROWS).clamp(1, 4096) as usize;
        let (senders, receivers) = if ordered {
            (0..ranges.len()).map(|_| mpsc::channel(capacity)).unzip()
        } else {
            let (tx, rx) = mpsc::channel(capacity);
            (vec![tx; ranges.len()], VecDeque::from([rx]))
        };
        let permits = Arc::new(Semaphore::new(parallelism.max(1)));
        let parts: Vec<Scanner> = ranges
            .into_iter()
            .map(|(low, high)| Scanner::with_bounds(table.clone(), scan, low, high, None))
            .collect();
        let driver = tokio::spawn(drive(parts, senders, permits));
        Ok(ParallelScanner {
            receivers,
            driver,
            limit: scan.limit,
            returned: 0,
            last_returned: None,
            done: false,
        })
    }

    /// The next row's cells, or `None` after the last row (or once the scan's limit is
    /// reached).
    ///
    /// # Errors
    /// The first error of any sub-scan; the scanner is finished after it.
    pub async fn next_row(&mut self) -> Result<Option<Vec<Cell>>, Error> {
        while !self.done {
            let Some(receiver) = self.receivers.front_mut() else {
                self.finish();
                break;
            };
            match receiver.recv().await {
                None => {
                    self.receivers.pop_front();
                }
                Some(Err(e)) => {
                    self.finish();
                    return Err(e);
                }
                Some(Ok(row)) => {
                    let key = row.first().map(|c| c.row.clone());
                    if key.is_some() && key != self.last_returned {
                        if self.limit.is_some_and(|limit| self.returned >= limit) {
                            self.finish();
                            break;
                        }
                        self.returned += 1;
                        self.last_returned = key;
                    }
                    return Ok(Some(row));
                }
            }
        }
        Ok(None)
    }

    fn finish(&mut self) {
        self.done = true;
        self.receivers.clear();
        self.driver.abort();
    }
}

impl Drop for ParallelScanner {
    fn drop(&mut self) {
        // Aborting the driver drops its JoinSet, which aborts every running part.
        self.driver.abort();
    }
}

/// Starts each part once it gets a permit (in order), then waits for all of them.
async fn drive(
    parts: Vec<Scanner>,
    senders: Vec<mpsc::Sender<RowResult>>,
    permits: Arc<Semaphore>,
) {
    let mut running = JoinSet::new();
    for (mut part, tx) in parts.into_iter().zip(senders) {
        let Ok(permit) = permits.clone().acquire_owned().await else {
            return;
        };
        running.spawn(async move {
            let _permit = permit;
            loop {
                let item = match part.next_row().await {
                    Ok(Some(row)) => Ok(row),
                    Ok(None) => break,
                    Err(e) => Err(e),
                };
                let failed = item.is_err();
                if tx.send(item).await.is_err() || failed {
                    break;
                }
            }
        });
    }
    while running.join_next().await.is_some() {}
}

/// The scan range `lower..upper` cut at region boundaries: one non-empty ascending range per
/// region it overlaps, in ascending order.
pub(crate) fn sub_ranges(
    lower: &Bound<Bytes>,
    upper: &Bound<Bytes>,
    regions: &[RegionLocation],
) -> Vec<(Bound<Bytes>, Bound<Bytes>)> {
    regions
        .iter()
        .filter_map(|region| {
            let low = if region.start_row.is_empty() {
                lower.clone()
            } else {
                tighter_lower(lower, region.start_row.clone())
            };
            let high = if region.end_row.is_empty() {
                upper.clone()
            } else {
                tighter_upper(upper, region.end_row.clone())
            };
            is_nonempty(&low, &high).then_some((low, high))
        })
        .collect()
}

/// The stricter of `bound` and "at least `start`".
fn tighter_lower(bound: &Bound<Bytes>, start: Bytes) -> Bound<Bytes> {
    match bound {
        Bound::Included(b) | Bound::Excluded(b) if *b >= start => bound.clone(),
        _ => Bound::Included(start),
    }
}

/// The stricter of `bound` and "below `end`".
fn tighter_upper(bound: &Bound<Bytes>, end: Bytes) -> Bound<Bytes> {
    match bound {
        Bound::Included(b) if *b < end => bound.clone(),
        Bound::Excluded(b) if *b <= end => bound.clone(),
        _ => Bound::Excluded(end),
    }
}

fn is_nonempty(low: &Bound<Bytes>, high: &Bound<Bytes>) -> bool {
    match (low, high) {
        (Bound::Unbounded, _) | (_, Bound::Unbounded) => true,
        (Bound::Included(l), Bound::Included(h)) => l <= h,
        (Bound::Included(l) | Bound::Excluded(l), Bound::Included(h) | Bound::Excluded(h)) => l < h,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: &'static [u8], end: &'static [u8]) -> RegionLocation {
        RegionLocation {
            region_id: 0,
            start_row: Bytes::from_static(start),
            end_row: Bytes::from_static(end),
            server: "s:1".into(),
            store_bytes: 0,
            memtable_bytes: 0,
            store_files: 0,
            name: String::new(),
            requests: 0,
            minor_compactions: 0,
            major_compactions: 0,
        }
    }

    fn inc(b: &'static [u8]) -> Bound<Bytes> {
        Bound::Included(Bytes::from_static(b))
    }

    fn exc(b: &'static [u8]) -> Bound<Bytes> {
        Bound::Excluded(Bytes::from_static(b))
    }

    fn regions() -> Vec<RegionLocation> {
        vec![region(b"", b"f"), region(b"f", b"m"), region(b"m", b"")]
    }

    #[test]
    fn a_full_scan_covers_every_region() {
        let r = sub_ranges(&Bound::Unbounded, &Bound::Unbounded, &regions());
        assert_eq!(
            r,
            vec![
                (Bound::Unbounded, exc(b"f")),
                (inc(b"f"), exc(b"m")),
                (inc(b"m"), Bound::Unbounded)
            ]
        );
    }

    #[test]
    fn a_range_keeps_its_own_bounds_inside_regions() {
        let r = sub_ranges(&inc(b"c"), &exc(b"g"), &regions());
        assert_eq!(r, vec![(inc(b"c"), exc(b"f")), (inc(b"f"), exc(b"g"))]);
        // A reversed scan's bounds: exclusive below, inclusive above.
        let r = sub_ranges(&exc(b"f"), &inc(b"m"), &regions());
        assert_eq!(r, vec![(exc(b"f"), exc(b"m")), (inc(b"m"), inc(b"m"))]);
    }

    #[test]
    fn empty_intersections_are_dropped() {
        assert!(sub_ranges(&inc(b"g"), &exc(b"g"), &regions()).is_empty());
        let r = sub_ranges(&inc(b"g"), &exc(b"h"), &regions());
        assert_eq!(r, vec![(inc(b"g"), exc(b"h"))]);
        // Ending exactly at a boundary does not touch the next region.
        let r = sub_ranges(&Bound::Unbounded, &exc(b"f"), &regions());
        assert_eq!(r, vec![(Bound::Unbounded, exc(b"f"))]);
    }
}
