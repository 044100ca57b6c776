//! An in-process fake Strata cluster for client tests: N servers on 127.0.0.1, each serving
//! the data and admin services over one shared [`State`] (a `BTreeMap` of rows and a list of
//! regions, each assigned to one server). Tests inject faults, split and move regions, and
//! run hooks between scan pages.

#![allow(dead_code, clippy::unwrap_used, missing_docs)]

mod admin;
mod data;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_client::{ClientOptions, Connection, Protocol};
use strata_proto::pb::{self, ErrorCode};
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::Server;

/// The table every fake cluster has.
pub const TABLE: &str = "t";

/// Column → value of one row.
pub type Row = BTreeMap<(Bytes, Bytes), Bytes>;

/// A region of the fake table.
#[derive(Clone, Debug)]
pub struct Region {
    pub id: u64,
    pub start: Bytes,
    pub end: Bytes,
    pub server: usize,
}

impl Region {
    pub fn contains(&self, row: &[u8]) -> bool {
        self.start.as_ref() <= row && (self.end.is_empty() || row < self.end.as_ref())
    }
}

/// An error a server answers instead of (or after) doing an RPC.
#[derive(Clone, Debug)]
pub struct Fault {
    /// `get`, `multi_get`, `mutate`, `batch`, `check_and_mutate`, `scan` or `locate`.
    pub rpc: &'static str,
    /// `None`: a status without a Strata code, as a broken connection gives.
    pub code: Option<ErrorCode>,
    /// Apply the request first, then fail (an answer lost on the way back).
    pub after_apply: bool,
}

type Hook = Box<dyn FnOnce(&mut State) + Send>;

/// Everything the fake servers share.
#[derive(Default)]
pub struct State {
    pub rows: BTreeMap<Bytes, Row>,
    pub regions: Vec<Region>,
    pub next_region_id: u64,
    pub servers: Vec<String>,
    pub tables: Vec<String>,
    pub faults: VecDeque<Fault>,
    /// Calls per RPC name.
    pub calls: HashMap<&'static str, usize>,
    pub scan_pages: usize,
    /// Scans answer "more in region" with no rows, making no progress.
    pub stuck_scans: bool,
    /// Hooks run after the scan page with this number (1-based) is read.
    pub page_hooks: Vec<(usize, Hook)>,
    /// Servers whose data service never answers (as if SIGSTOPped).
    pub stalled: std::collections::HashSet<usize>,
    /// Data calls that reached a stalled server.
    pub stalled_calls: usize,
}

impl State {
    pub fn containing(&self, row: &[u8]) -> Option<&Region> {
        self.regions.iter().find(|r| r.contains(row))
    }

    /// The region holding the rows just below `row`.
    pub fn before(&self, row: &[u8]) -> Option<&Region> {
        self.regions
            .iter()
            .find(|r| r.start.as_ref() < row && (r.end.is_empty() || r.end.as_ref() >= row))
    }

    /// Splits the region holding `key` at `key`; the upper daughter goes to `upper_server`.
    pub fn split(&mut self, key: &[u8], upper_server: usize) {
        let i = self.regions.iter().position(|r| r.contains(key)).unwrap();
        let parent = self.regions.remove(i);
        assert_ne!(parent.start.as_ref(), key, "split at a region start");
        let key = Bytes::copy_from_slice(key);
        let lower = Region {
            id: self.next_id(),
            start: parent.start.clone(),
            end: key.clone(),
            server: parent.server,
        };
        let upper = Region {
            id: self.next_id(),
            start: key,
            end: parent.end,
            server: upper_server,
        };
        self.regions.insert(i, upper);
        self.regions.insert(i, lower);
    }

    /// Moves the region holding `row` to `server`.
    pub fn move_region(&mut self, row: &[u8], server: usize) {
        let i = self.regions.iter().position(|r| r.contains(row)).unwrap();
        self.regions[i].server = server;
    }

    pub fn fail(&mut self, rpc: &'static str, code: Option<ErrorCode>) {
        self.faults.push_back(Fault {
            rpc,
            code,
            after_apply: false,
        });
    }

    pub fn fail_after_apply(&mut self, rpc: &'static str, code: Option<ErrorCode>) {
        self.faults.push_back(Fault {
            rpc,
            code,
            after_apply: true,
        });
    }

    pub fn calls(&self, rpc: &str) -> usize {
        self.calls.get(rpc).copied().unwrap_or(0)
    }

    pub fn after_page(&mut self, page: usize, hook: impl FnOnce(&mut State) + Send + 'static) {
        self.page_hooks.push((page, Box::new(hook)));
    }

    fn next_id(&mut self) -> u64 {
        self.next_region_id += 1;
        self.next_region_id
    }

    /// Counts a call and takes the first fault planned for `rpc`.
    pub(crate) fn enter(&mut self, rpc: &'static str) -> Option<Fault> {
        *self.calls.entry(rpc).or_default() += 1;
        let i = self.faults.iter().position(|f| f.rpc == rpc)?;
        self.faults.remove(i)
    }

    pub(crate) fn location(&self, r: &Region) -> pb::RegionLocation {
        pb::RegionLocation {
            table: TABLE.to_string(),
            region_id: r.id,
            start_row: r.start.clone(),
            end_row: r.end.clone(),
            server: self.servers[r.server].clone(),
            store_bytes: 0,
            memtable_bytes: 0,
            store_files: 0,
            name: String::new(),
            requests: 0,
            minor_compactions: 0,
            major_compactions: 0,
        }
    }
}

/// The status a fault answers with.
pub(crate) fn fault_status(fault: &Fault) -> tonic::Status {
    match fault.code {
        Some(code) => strata_proto::status(code, format!("injected {}", code.as_str_name())),
        None => tonic::Status::unavailable("injected: connection reset"),
    }
}

/// A running fake cluster.
pub struct Cluster {
    pub state: Arc<Mutex<State>>,
    pub addrs: Vec<String>,
    stops: Mutex<Vec<Option<tokio::sync::oneshot::Sender<()>>>>,
}

impl Cluster {
    /// `servers` servers; table [`TABLE`] split at `splits`, regions on server 0.
    pub async fn start(servers: usize, splits: &[&str]) -> Cluster {
        let state = Arc::new(Mutex::new(State::default()));
        let mut addrs = Vec::new();
        let mut listeners = Vec::new();
        for _ in 0..servers {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            addrs.push(listener.local_addr().unwrap().to_string());
            listeners.push(listener);
        }
        {
            let mut s = state.lock();
            s.servers = addrs.clone();
            s.tables.push(TABLE.to_string());
            let mut bounds: Vec<Bytes> = vec![Bytes::new()];
            bounds.extend(splits.iter().map(|k| Bytes::copy_from_slice(k.as_bytes())));
            bounds.push(Bytes::new());
            for pair in bounds.windows(2) {
                let id = s.next_id();
                s.regions.push(Region {
                    id,
                    start: pair[0].clone(),
                    end: pair[1].clone(),
                    server: 0,
                });
            }
        }
        let mut stops = Vec::new();
        for (me, listener) in listeners.into_iter().enumerate() {
            let data = data::FakeData {
                state: state.clone(),
                me,
            };
            let admin = admin::FakeAdmin {
                state: state.clone(),
            };
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            stops.push(Some(stop));
            tokio::spawn(
                Server::builder()
                    .add_service(pb::data_server::DataServer::new(data))
                    .add_service(pb::admin_server::AdminServer::new(admin))
                    .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
                        let _ = stopped.await;
                    }),
            );
        }
        Cluster {
            state,
            addrs,
            stops: Mutex::new(stops),
        }
    }

    /// Stops server `i` for good: it accepts no more connections and closes its own.
    pub fn stop_server(&self, i: usize) {
        if let Some(stop) = self.stops.lock()[i].take() {
            let _ = stop.send(());
        }
    }

    /// A connection to server 0 (the master) with fast retries.
    pub async fn connect(&self) -> Connection {
        Connection::connect_with(&self.addrs[0], fast_options())
            .await
            .unwrap()
    }

    /// Stores `row` with one column `f:q` = `value`.
    pub fn load(&self, rows: impl IntoIterator<Item = (String, String)>) {
        let mut s = self.state.lock();
        for (row, value) in rows {
            let mut columns = Row::new();
            columns.insert((Bytes::from("f"), Bytes::from("q")), Bytes::from(value));
            s.rows.insert(Bytes::from(row), columns);
        }
    }
}

/// Quick retries, over gRPC: the fake servers implement the data and admin services with
/// tonic only (the framed transport is tested against real servers, `strata-testkit`'s tests).
pub fn fast_options() -> ClientOptions {
    ClientOptions {
        protocol: Protocol::Grpc,
        operation_timeout: Duration::from_secs(10),
        retries: 5,
        retry_base: Duration::from_millis(1),
        retry_max: Duration::from_millis(5),
        ..ClientOptions::default()
    }
}

/// Rows `"r00"`, `"r01"`, ... with values `"v00"`, ...
pub fn numbered(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| (format!("r{i:02}"), format!("v{i:02}")))
        .collect()
}
