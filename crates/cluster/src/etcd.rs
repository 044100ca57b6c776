//! [`Kv`] on a real etcd (3.4 or newer) through `etcd-client`.
//!
//! The protocol's state machines are synchronous, so each call runs on a small tokio runtime
//! owned by the client, bounded by a request timeout (an expired timeout is
//! [`KvError::Unavailable`]). Watches run as tasks that forward events to a channel drained by
//! [`Kv::poll`]; a stream that ends, errs or is cancelled by the server (compaction) makes the
//! watch lost, and the caller re-reads and watches again (etcd-client does not resume watches).
//!
//! Thread safety: `EtcdKv` is `Send + Sync`; calls may come from several threads.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Mutex;
use std::time::Duration;

use etcd_client::{
    Client, Compare as EtcdCompare, CompareOp, ConnectOptions, DeleteOptions, EventType,
    GetOptions, PutOptions, Txn as EtcdTxn, TxnOp, WatchOptions,
};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use crate::kv::{
    Compare, Event, EventKind, KeyValue, Kv, KvError, KvResult, LeaseId, Op, Page, Revision, Txn,
    TxnOutcome, WatchId,
};

enum WatchMsg {
    Events(Vec<Event>),
    Lost(String),
}

struct EtcdWatch {
    rx: Receiver<WatchMsg>,
    task: JoinHandle<()>,
}

/// A synchronous etcd client.
pub struct EtcdKv {
    runtime: Runtime,
    client: Client,
    timeout: Duration,
    /// What a failed connection is told with: the endpoints and how they are reached.
    context: String,
    keepers:
        Mutex<BTreeMap<LeaseId, (etcd_client::LeaseKeeper, etcd_client::LeaseKeepAliveStream)>>,
    watches: Mutex<BTreeMap<WatchId, EtcdWatch>>,
    next_watch: AtomicU64,
}

fn unavailable(e: impl std::fmt::Display) -> KvError {
    KvError::Unavailable(e.to_string())
}

fn map_err(e: etcd_client::Error) -> KvError {
    match &e {
        etcd_client::Error::GRpcStatus(s)
            if matches!(
                s.code(),
                tonic::Code::InvalidArgument
                    | tonic::Code::NotFound
                    | tonic::Code::FailedPrecondition
            ) =>
        {
            KvError::Invalid(s.message().to_string())
        }
        _ => unavailable(e),
    }
}

/// A connection that failed below gRPC (refused, reset, a TLS handshake) named with where
/// and how it was tried.
fn explain(context: &str, e: KvError) -> KvError {
    match e {
        KvError::Unavailable(m) if m.contains("transport error") => {
            KvError::Unavailable(format!("{context}: {m}"))
        }
        other => other,
    }
}

fn to_kv(kv: &etcd_client::KeyValue) -> KeyValue {
    KeyValue {
        key: String::from_utf8_lossy(kv.key()).into_owned(),
        value: kv.value().to_vec(),
        create_revision: kv.create_revision(),
        mod_revision: kv.mod_revision(),
        lease: kv.lease(),
    }
}

fn prefix_end(prefix: &str) -> Vec<u8> {
    let mut end = prefix.as_bytes().to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl EtcdKv {
    /// Connects to `endpoints` (`host:port`), each request bounded by `timeout`; over TLS
    /// when the process set it ([`crate::etcd_tls::use_tls`]).
    ///
    /// # Errors
    /// No endpoint answered within the timeout; the TLS files cannot be read.
    pub fn connect(endpoints: &[String], timeout: Duration) -> KvResult<EtcdKv> {
        let tls = crate::etcd_tls::current();
        let urls = endpoints
            .iter()
            .map(|e| crate::etcd_tls::url(e, tls.is_some()))
            .collect::<KvResult<Vec<_>>>()?;
        let context = crate::etcd_tls::describe(&urls, tls.as_ref());
        let tls = tls.as_ref().map(crate::etcd_tls::options).transpose()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("etcd-client")
            .enable_all()
            .build()
            .map_err(unavailable)?;
        // A member without a leader (the minority side of a partition, or any member during
        // an election) refuses at once (etcd's `hasleader` metadata) instead of holding the
        // request until the timeout, so the next attempt can go to another member.
        let options = ConnectOptions::new()
            .with_connect_timeout(timeout)
            .with_keep_alive(timeout, timeout)
            .with_require_leader(true);
        let options = match tls {
            Some(tls) => options.with_tls(tls),
            None => options,
        };
        let client = runtime
            .block_on(async {
                tokio::time::timeout(timeout, Client::connect(&urls, Some(options))).await
            })
            .map_err(|_| KvError::Unavailable(format!("connect to {endpoints:?} timed out")))?
            .map_err(|e| explain(&context, map_err(e)))?;
        Ok(EtcdKv {
            runtime,
            client,
            timeout,
            context,
            keepers: Mutex::new(BTreeMap::new()),
            watches: Mutex::new(BTreeMap::new()),
            next_watch: AtomicU64::new(1),
        })
    }

    fn run<T>(&self, fut: impl Future<Output = Result<T, etcd_client::Error>>) -> KvResult<T> {
        self.runtime
            .block_on(async { tokio::time::timeout(self.timeout, fut).await })
            .map_err(|_| KvError::Unavailable("request timed out".into()))?
            .map_err(|e| explain(&self.context, map_err(e)))
    }
}

impl Kv for EtcdKv {
    fn grant(&self, ttl_secs: i64) -> KvResult<(LeaseId, i64)> {
        let mut c = self.client.lease_client();
        let r = self.run(c.grant(ttl_secs, None))?;
        Ok((r.id(), r.ttl()))
    }

    fn keep_alive(&self, lease: LeaseId) -> KvResult<Option<i64>> {
        let cached = lock(&self.keepers).remove(&lease);
        let (mut keeper, mut stream) = match cached {
            Some(k) => k,
            None => {
                let mut c = self.client.lease_client();
                self.run(c.keep_alive(lease))?
            }
        };
        let resp = self.run(async {
            keeper.keep_alive().await?;
            stream.message().await
        })?;
        match resp {
            Some(r) if r.ttl() > 0 => {
                lock(&self.keepers).insert(lease, (keeper, stream));
                Ok(Some(r.ttl()))
            }
            Some(_) => Ok(None),
            None => Err(KvError::Unavailable("keep-alive stream closed".into())),
        }
    }

    fn revoke(&self, lease: LeaseId) -> KvResult<()> {
        lock(&self.keepers).remove(&lease);
        let mut c = self.client.lease_client();
        match self.run(c.revoke(lease)) {
            Ok(_) | Err(KvError::Invalid(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn get(&self, key: &str) -> KvResult<Option<KeyValue>> {
        let mut c = self.client.kv_client();
        let r = self.run(c.get(key, None))?;
        Ok(r.kvs().first().map(to_kv))
    }

    fn range(&self, prefix: &str, after: Option<&str>, limit: usize) -> KvResult<Page> {
        let start = match after {
            Some(a) => format!("{a}\0"),
            None => prefix.to_string(),
        };
        let options = GetOptions::new()
            .with_range(prefix_end(prefix))
            .with_limit(i64::try_from(limit).unwrap_or(i64::MAX));
        let mut c = self.client.kv_client();
        let r = self.run(c.get(start, Some(options)))?;
        Ok(Page {
            kvs: r.kvs().iter().map(to_kv).collect(),
            more: r.more(),
            revision: r.header().map_or(0, etcd_client::ResponseHeader::revision),
        })
    }

    fn txn(&self, txn: Txn) -> KvResult<TxnOutcome> {
        let compares: Vec<EtcdCompare> = txn
            .compares
            .into_iter()
            .map(|c| match c {
                Compare::CreateRevision(k, r) => {
                    EtcdCompare::create_revision(k, CompareOp::Equal, r)
                }
                Compare::ModRevision(k, r) => EtcdCompare::mod_revision(k, CompareOp::Equal, r),
            })
            .collect();
        let ops: Vec<TxnOp> = txn
            .success
            .into_iter()
            .map(|op| match op {
                Op::Put { key, value, lease } => TxnOp::put(
                    key,
                    value,
                    (lease != 0).then(|| PutOptions::new().with_lease(lease)),
                ),
                Op::Delete(key) => TxnOp::delete(key, None),
                Op::DeletePrefix(p) => TxnOp::delete(p, Some(DeleteOptions::new().with_prefix())),
            })
            .collect();
        let mut c = self.client.kv_client();
        let r = self.run(c.txn(EtcdTxn::new().when(compares).and_then(ops)))?;
        Ok(TxnOutcome {
            succeeded: r.succeeded(),
            revision: r.header().map_or(0, etcd_client::ResponseHeader::revision),
        })
    }

    fn watch(&self, prefix: &str, start: Revision) -> KvResult<WatchId> {
        let mut c = self.client.watch_client();
        let options = WatchOptions::new().with_prefix().with_start_revision(start);
        let mut stream = self.run(c.watch(prefix, Some(options)))?;
        let (tx, rx) = mpsc::channel();
        let task = self.runtime.spawn(async move {
            loop {
                let msg = match stream.message().await {
                    Ok(Some(resp)) if resp.canceled() => {
                        WatchMsg::Lost(format!("cancelled by the server: {}", resp.cancel_reason()))
                    }
                    Ok(Some(resp)) => WatchMsg::Events(
                        resp.events()
                            .iter()
                            .filter_map(|e| {
                                let kv = e.kv()?;
                                let kind = match e.event_type() {
                                    EventType::Put => EventKind::Put,
                                    EventType::Delete => EventKind::Delete,
                                };
                                Some(Event {
                                    kind,
                                    kv: to_kv(kv),
                                })
                            })
                            .collect(),
                    ),
                    Ok(None) => WatchMsg::Lost("stream ended".into()),
                    Err(e) => WatchMsg::Lost(e.to_string()),
                };
                let lost = matches!(msg, WatchMsg::Lost(_));
                if tx.send(msg).is_err() || lost {
                    return;
                }
            }
        });
        let id = self.next_watch.fetch_add(1, Ordering::Relaxed);
        lock(&self.watches).insert(id, EtcdWatch { rx, task });
        Ok(id)
    }

    fn poll(&self, watch: WatchId) -> KvResult<Vec<Event>> {
        let watches = lock(&self.watches);
        let w = watches
            .get(&watch)
            .ok_or_else(|| KvError::WatchLost(format!("no watch {watch}")))?;
        let mut out = Vec::new();
        loop {
            match w.rx.try_recv() {
                Ok(WatchMsg::Events(evs)) => out.extend(evs),
                Ok(WatchMsg::Lost(why)) => return Err(KvError::WatchLost(why)),
                Err(TryRecvError::Empty) => return Ok(out),
                Err(TryRecvError::Disconnected) => {
                    return Err(KvError::WatchLost("watch task ended".into()))
                }
            }
        }
    }

    fn cancel(&self, watch: WatchId) {
        if let Some(w) = lock(&self.watches).remove(&watch) {
            w.task.abort();
        }
    }
}

impl Drop for EtcdKv {
    fn drop(&mut self) {
        for (_, w) in std::mem::take(&mut *lock(&self.watches)) {
            w.task.abort();
        }
    }
}
