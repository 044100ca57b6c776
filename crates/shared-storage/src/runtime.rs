//! Running the async HDFS client from the engine's blocking threads.
//!
//! The engine's storage interfaces are synchronous and are called from plain threads, from
//! `spawn_blocking` threads and sometimes from async workers. Every call is therefore handed
//! to the store's own runtime and waited for on a channel, which works from any thread (a
//! `block_on` would panic inside another runtime), and bounded by a timeout so an unreachable
//! NameNode or DataNode is an error, never a hang.

use std::future::Future;
use std::io;
use std::time::Duration;

use tokio::runtime::Runtime;

/// The store's runtime: two worker threads for the client's connections.
pub(crate) struct Bridge {
    /// Always `Some` until dropped.
    rt: Option<Runtime>,
    timeout: Duration,
    /// The store's name in thread names and errors (`HDFS`, `S3`).
    name: &'static str,
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // The store may be dropped on an async worker, where waiting for the runtime's
        // threads is not allowed: let them finish in the background.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

impl Bridge {
    pub(crate) fn new(timeout: Duration) -> io::Result<Bridge> {
        Bridge::named("HDFS", timeout)
    }

    /// A runtime for the store called `name`.
    pub(crate) fn named(name: &'static str, timeout: Duration) -> io::Result<Bridge> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name(format!("strata-{}", name.to_ascii_lowercase()))
            .enable_all()
            .build()?;
        Ok(Bridge {
            rt: Some(rt),
            timeout,
            name,
        })
    }

    fn rt(&self) -> &Runtime {
        self.rt
            .as_ref()
            .expect("the runtime lives until the bridge is dropped")
    }

    pub(crate) fn handle(&self) -> tokio::runtime::Handle {
        self.rt().handle().clone()
    }

    /// Runs `fut` on the store's runtime and waits for it, at most the store's timeout.
    pub(crate) fn run<T, F>(&self, what: &str, fut: F) -> io::Result<T>
    where
        T: Send + 'static,
        F: Future<Output = io::Result<T>> + Send + 'static,
    {
        self.run_for(what, self.timeout, fut)
    }

    /// [`run`](Self::run) with its own timeout.
    pub(crate) fn run_for<T, F>(&self, what: &str, timeout: Duration, fut: F) -> io::Result<T>
    where
        T: Send + 'static,
        F: Future<Output = io::Result<T>> + Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.rt().spawn(async move {
            let out = match tokio::time::timeout(timeout, fut).await {
                Ok(r) => r,
                Err(_) => Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no answer within {timeout:?}"),
                )),
            };
            let _ = tx.send(out);
        });
        rx.recv()
            .map_err(|_| io::Error::other(format!("{what}: the {} runtime stopped", self.name)))?
            .map_err(|e| io::Error::new(e.kind(), format!("{what}: {e}")))
    }
}
