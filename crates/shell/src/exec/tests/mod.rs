//! The executor against a one-process Strata in a temporary directory, by concern. Each test
//! runs shell statements and checks the text they print.

mod data;
mod ddl;
mod errors;
mod namespace;
mod references;
mod regions;
mod snapshot;
mod tools;

use strata_client::Connection;
use strata_testkit::Single;
use tempfile::TempDir;

use crate::exec::report;
use crate::references::References;
use crate::script::run_statement_in;
use crate::statements::StatementReader;

/// A server, a connection to it, and the directory it lives in.
pub(super) struct Cluster {
    pub(super) conn: Connection,
    server: Option<Single>,
    _dir: TempDir,
}

impl Cluster {
    pub(super) async fn start() -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let server = Single::start(dir.path());
        let conn = Connection::connect(&server.address()).await.unwrap();
        Cluster {
            conn,
            server: Some(server),
            _dir: dir,
        }
    }

    /// The server.
    pub(super) fn server_ref(&self) -> &Single {
        self.server.as_ref().unwrap()
    }

    /// The server's `host:port`, as region listings print it.
    pub(super) fn conn_address(&self) -> String {
        self.server.as_ref().unwrap().address()
    }

    /// Runs every statement of `script`; output and `ERROR:` lines are interleaved as a
    /// user would see them, without the `Took` lines.
    pub(super) async fn run(&self, script: &str) -> String {
        let mut out = Vec::new();
        let mut reader = StatementReader::new();
        let mut refs = References::new();
        let statements: Vec<_> = script.lines().flat_map(|l| reader.feed(l)).collect();
        for s in statements.into_iter().chain(reader.finish()) {
            if let Err(e) = run_statement_in(&self.conn, &mut refs, &s.text, &mut out).await {
                report(&e, &mut out).unwrap();
            }
        }
        let text = String::from_utf8(out).unwrap();
        text.lines()
            .filter(|l| !l.starts_with("Took "))
            .map(|l| format!("{}\n", l.trim_end()))
            .collect()
    }

    /// `status 'simple'`'s output once `ready` holds for it (load reports come every few
    /// seconds), or its last output after 30 s.
    pub(super) async fn status_until(&self, ready: impl Fn(&str) -> bool) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let out = self.run("status 'simple'").await;
            if ready(&out) || std::time::Instant::now() > deadline {
                return out;
            }
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        }
    }

    pub(super) async fn stop(mut self) {
        if let Some(server) = self.server.take() {
            server.stop().unwrap();
        }
    }
}

/// The lines of `text` with runs of spaces squeezed to one, for layout-free comparisons.
pub(super) fn squeeze(text: &str) -> String {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}
