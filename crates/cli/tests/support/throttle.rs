//! Measuring a throttle from the client's side: clients reading one row as fast as they are
//! let, and the reads that completed within a window.
#![allow(dead_code, clippy::unwrap_used)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_client::{Connection, Table};
use strata_model::ops::Get;

/// Reads by `tasks` clients sharing `table`, counted.
pub struct Load {
    done: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Load {
    /// Starts `tasks` clients getting `row` of `table` in a loop (each get waits out the
    /// throttle as the client does).
    pub fn start(table: &Table, row: &'static [u8], tasks: usize) -> Load {
        let done = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let tasks = (0..tasks)
            .map(|_| {
                let (t, done, stop) = (table.clone(), done.clone(), stop.clone());
                tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        t.get(&Get::new(row)).await.unwrap();
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        Load { done, stop, tasks }
    }

    /// The gets completed over `window`, after `settle` (the throttle's initial allowance).
    pub async fn rate(&self, settle: Duration, window: Duration) -> f64 {
        tokio::time::sleep(settle).await;
        let (from, start) = (self.done.load(Ordering::Relaxed), Instant::now());
        tokio::time::sleep(window).await;
        let n = self.done.load(Ordering::Relaxed) - from;
        n as f64 / start.elapsed().as_secs_f64()
    }

    /// Stops the clients (each finishes its get).
    pub async fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.tasks {
            t.await.unwrap();
        }
    }
}

/// A connection whose operations may wait for a throttle up to 30 s.
pub async fn patient(addr: &str) -> Connection {
    let options = strata_client::ClientOptions {
        operation_timeout: Duration::from_secs(30),
        ..strata_client::ClientOptions::default()
    };
    Connection::connect_with(addr, options).await.unwrap()
}
