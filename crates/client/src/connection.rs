//! [`Connection`]: the master's admin channel, one channel per region server, the region
//! location cache, and the retry loop every single-region request goes through.
//!
//! Thread safety: a `Connection` is a handle to shared state; clones share channels and
//! locations. Locks (`channels`, the location cache) are held only to read or replace a map
//! entry, never across an `.await`.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use strata_model::schema::TableName;
use strata_proto::channel;
use strata_proto::pb::admin_client::AdminClient;
use strata_proto::pb::data_client::DataClient;
use strata_proto::pb::{self, ErrorCode};
use strata_proto::MAX_MESSAGE_BYTES;
use tonic::transport::{Channel, Endpoint};
use tonic::Status;

use crate::admin::Admin;
use crate::error::Error;
use crate::frames::FrameClient;
use crate::link::{DataLink, LocalData};
use crate::locate::{self, Position, RegionLocation, Regions};
use crate::options::{ClientOptions, Protocol};
use crate::retry::{within, Idempotence, Retry};

/// Most admin endpoints a cluster connection keeps.
pub const MAX_ADMINS: usize = 32;
use crate::table::Table;

/// A connection to a Strata cluster. Cheap to clone; clones share everything.
#[derive(Clone, Debug)]
pub struct Connection {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    options: ClientOptions,
    master: AdminClient<Channel>,
    /// Every admin endpoint of a cluster ([`Connection::connect_any`]) by address, tried in
    /// turn while one is unreachable; empty for a single master. Grows with the servers that
    /// locate and status answers name (see [`Connection::learn`]).
    admins: Mutex<Vec<(String, AdminClient<Channel>)>>,
    /// Index (modulo `admins.len()`) of the admin endpoint in use.
    admin_at: AtomicUsize,
    /// Region server channels by `host:port`, created lazily.
    channels: Mutex<HashMap<String, Channel>>,
    /// Region server framed connections by `host:port` ([`Protocol::Frames`]), replaced when
    /// broken.
    frames: Mutex<HashMap<String, FrameClient>>,
    /// The region server served in this process, by its `host:port` (see
    /// [`Connection::serve_in_process`]).
    local: OnceLock<(String, LocalData)>,
    locations: locate::Cache,
}

impl Connection {
    /// Connects to the master's admin endpoint (`host:port` or a `http://` URI) with default
    /// options.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad address, `UNAVAILABLE` if the master cannot be reached.
    pub async fn connect(addr: &str) -> Result<Connection, Error> {
        Connection::connect_with(addr, ClientOptions::default()).await
    }

    /// Connects to the master's admin endpoint with `options`.
    ///
    /// # Errors
    /// As [`Connection::connect`].
    pub async fn connect_with(addr: &str, options: ClientOptions) -> Result<Connection, Error> {
        let endpoint = endpoint(addr, &options)?;
        let channel = channel::connect(&endpoint, options.tls.as_ref())
            .await
            .map_err(|e| {
                Error::new(
                    unreachable_code(&e),
                    format!("cannot connect to {addr}: {e}"),
                )
            })?;
        Ok(Connection::from_admins(
            options,
            admin_client(channel),
            Vec::new(),
            0,
        ))
    }

    /// Connects to a cluster through any of `addrs`: servers that answer the admin service
    /// (in cluster mode every region server does, from the records in etcd). The first that
    /// accepts a connection is used; while it is unreachable, locations are asked of the
    /// next.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for no or a bad address, `UNAVAILABLE` if none can be reached.
    pub async fn connect_any(
        addrs: &[String],
        options: ClientOptions,
    ) -> Result<Connection, Error> {
        let mut admins = Vec::new();
        let mut reached = None;
        let mut last = None;
        for addr in addrs {
            let endpoint = endpoint(addr, &options)?;
            if reached.is_none() {
                match channel::connect(&endpoint, options.tls.as_ref()).await {
                    Ok(channel) => {
                        reached = Some(admins.len());
                        admins.push((addr.clone(), admin_client(channel)));
                        continue;
                    }
                    Err(e) => last = Some(format!("{addr}: {e}")),
                }
            }
            let lazy = channel::connect_lazy(&endpoint, options.tls.as_ref());
            admins.push((addr.clone(), admin_client(lazy)));
        }
        let Some(at) = reached else {
            return Err(match last {
                Some(e) => Error::new(unreachable_code(&e), format!("cannot connect: {e}")),
                None => Error::invalid("no server address given"),
            });
        };
        let master = admins[at].1.clone();
        Ok(Connection::from_admins(options, master, admins, at))
    }

    fn from_admins(
        options: ClientOptions,
        master: AdminClient<Channel>,
        admins: Vec<(String, AdminClient<Channel>)>,
        at: usize,
    ) -> Connection {
        Connection {
            inner: Arc::new(Inner {
                options,
                master,
                admins: Mutex::new(admins),
                admin_at: AtomicUsize::new(at),
                channels: Mutex::new(HashMap::new()),
                frames: Mutex::new(HashMap::new()),
                local: OnceLock::new(),
                locations: locate::Cache::default(),
            }),
        }
    }

    /// A handle to table `name` (`ns:table` or `table`). Only the name is checked; a missing
    /// table shows up as `TABLE_NOT_FOUND` on first use.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed name.
    pub fn table(&self, name: &str) -> Result<Table, Error> {
        let name = TableName::parse(name).map_err(Error::invalid)?;
        Ok(Table::new(self.clone(), name.to_string()))
    }

    /// The admin interface (table DDL, flush, compact, split, status).
    pub fn admin(&self) -> Admin {
        Admin::new(self.clone())
    }

    /// The options this connection was made with.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    /// A stub for the master's admin service.
    pub(crate) fn master(&self) -> AdminClient<Channel> {
        let admins = self.inner.admins.lock();
        if admins.is_empty() {
            return self.inner.master.clone();
        }
        admins[self.inner.admin_at.load(Ordering::Relaxed) % admins.len()]
            .1
            .clone()
    }

    /// The admin endpoint in use is unreachable: use the next one (if there are several).
    pub(crate) fn admin_unreachable(&self) {
        if self.inner.admins.lock().len() > 1 {
            self.inner.admin_at.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The admin endpoints known now (`host:port`), in the order they are tried; empty for a
    /// connection to a single master ([`Connection::connect`]).
    pub fn admin_endpoints(&self) -> Vec<String> {
        self.inner
            .admins
            .lock()
            .iter()
            .map(|(a, _)| a.clone())
            .collect()
    }

    /// Adds `servers` (region servers named by a locate or status answer) to the admin
    /// endpoints of a cluster connection ([`Connection::connect_any`]: every region server
    /// answers the admin service), so the client still finds the cluster after the servers
    /// it started with are all gone (a rolling restart). Keeps at most [`MAX_ADMINS`],
    /// dropping the oldest other than the one in use.
    pub(crate) fn learn<'a>(&self, servers: impl IntoIterator<Item = &'a str>) {
        let mut admins = self.inner.admins.lock();
        if admins.is_empty() {
            return;
        }
        for server in servers {
            if server.is_empty() || admins.iter().any(|(a, _)| a == server) {
                continue;
            }
            let Ok(endpoint) = endpoint(server, &self.inner.options) else {
                continue;
            };
            if admins.len() >= MAX_ADMINS {
                let at = self.inner.admin_at.load(Ordering::Relaxed) % admins.len();
                let victim = usize::from(at == 0);
                admins.remove(victim);
                if victim < at {
                    self.inner.admin_at.store(at - 1, Ordering::Relaxed);
                }
            }
            let lazy = channel::connect_lazy(&endpoint, self.inner.options.tls.as_ref());
            admins.push((server.to_string(), admin_client(lazy)));
        }
    }

    /// Hands data requests for the region server at `addr` (`host:port`, as locations name
    /// it) to `service`, which runs in this process, instead of sending them over a socket:
    /// for a gateway started inside its server's process. Requests to other servers, and
    /// admin calls, go over the network as before. Set once per connection.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` if this connection already has an in-process server.
    pub fn serve_in_process(
        &self,
        addr: &str,
        service: Arc<dyn pb::data_server::Data>,
    ) -> Result<(), Error> {
        self.inner
            .local
            .set((addr.to_string(), LocalData(service)))
            .map_err(|_| Error::invalid("this connection already serves a server in process"))
    }

    /// A stub for the region server at `server` (`host:port`): in process if it is the one
    /// [`Connection::serve_in_process`] named, else over the options' protocol; its channel
    /// or connection connects on first use and is shared by every later stub.
    pub(crate) fn data(&self, server: &str) -> Result<DataLink, Error> {
        if let Some((addr, service)) = self.inner.local.get() {
            if addr == server {
                return Ok(DataLink::Local(service.clone()));
            }
        }
        if self.inner.options.protocol == Protocol::Frames {
            let mut frames = self.inner.frames.lock();
            let client = match frames.get(server) {
                Some(c) if !c.is_broken() => c.clone(),
                _ => {
                    let timeout = self.inner.options.operation_timeout;
                    let c = FrameClient::new(
                        server,
                        timeout.min(Duration::from_secs(10)),
                        self.inner.options.poll_before_park,
                        self.inner.options.tls.clone(),
                    );
                    frames.insert(server.to_string(), c.clone());
                    c
                }
            };
            return Ok(DataLink::Frames(client));
        }
        let channel = self.channel(server)?;
        Ok(DataLink::Grpc(
            DataClient::new(channel)
                .max_decoding_message_size(MAX_MESSAGE_BYTES)
                .max_encoding_message_size(MAX_MESSAGE_BYTES),
        ))
    }

    /// The gRPC channel to the region server at `server`, shared by every call to it.
    pub(crate) fn channel(&self, server: &str) -> Result<Channel, Error> {
        let mut channels = self.inner.channels.lock();
        Ok(match channels.get(server) {
            Some(c) => c.clone(),
            None => {
                let endpoint = endpoint(server, &self.inner.options)?;
                let c = channel::connect_lazy(&endpoint, self.inner.options.tls.as_ref());
                channels.insert(server.to_string(), c.clone());
                c
            }
        })
    }

    /// `table`'s regions, from the cache or else from the master.
    ///
    /// # Errors
    /// The master's error (`TABLE_NOT_FOUND`, `UNAVAILABLE`, ...).
    pub(crate) async fn regions(&self, table: &str) -> Result<Arc<Regions>, Error> {
        if let Some(regions) = self.inner.locations.get(table) {
            return Ok(regions);
        }
        let mut master = self.master();
        let request = pb::LocateRequest {
            table: table.to_string(),
            with_load: false,
        };
        let response = within(
            "the admin endpoint",
            self.inner.options.attempt_timeout,
            async { master.locate(request).await.map_err(Error::from) },
        )
        .await
        .inspect_err(|e| {
            if e.code == ErrorCode::Unavailable {
                self.admin_unreachable();
            }
        })?;
        let regions = response.into_inner().regions;
        self.learn(regions.iter().map(|r| r.server.as_str()));
        let regions = Arc::new(Regions::new(regions.into_iter().map(Into::into).collect()));
        self.inner.locations.put(table, regions.clone());
        Ok(regions)
    }

    /// `table`'s regions asked afresh from the master (the cache is refreshed too), retried
    /// like a read.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, or the master's error once retries run out.
    pub(crate) async fn fresh_regions(&self, table: &str) -> Result<Arc<Regions>, Error> {
        self.invalidate(table);
        let mut retry = Retry::new(&self.inner.options);
        loop {
            match retry.run(self.regions(table)).await {
                Ok(regions) => return Ok(regions),
                Err(e) => retry.back_off(e, Idempotence::Idempotent).await?,
            }
        }
    }

    /// Forgets `table`'s regions.
    pub(crate) fn invalidate(&self, table: &str) {
        self.inner.locations.invalidate(table);
    }

    /// The region (with a server) a request at `position` goes to. A cached list that has no
    /// such region is refreshed once.
    ///
    /// # Errors
    /// `NOT_SERVING_REGION` if the region is unassigned or missing (retry later), or the
    /// master's error.
    pub(crate) async fn locate(
        &self,
        table: &str,
        position: &Position,
        reversed: bool,
    ) -> Result<RegionLocation, Error> {
        let mut found = self.regions(table).await?.at(position, reversed).cloned();
        if found.is_none() {
            self.invalidate(table);
            found = self.regions(table).await?.at(position, reversed).cloned();
        }
        match found {
            Some(region) if !region.server.is_empty() => Ok(region),
            Some(region) => {
                self.invalidate(table);
                Err(Error::new(
                    ErrorCode::NotServingRegion,
                    format!("region {} of {table} is not assigned", region.region_id),
                ))
            }
            None => Err(Error::new(
                ErrorCode::NotServingRegion,
                format!("no region of {table} at {position:?}"),
            )),
        }
    }

    /// Sends a request to the region at `position` with `send`, relocating and retrying as
    /// the options and `idempotence` allow (see [`crate::retry`]).
    ///
    /// # Errors
    /// The last error when it is not retryable or the retry budget ran out.
    pub(crate) async fn call_at<T, F, Fut>(
        &self,
        table: &str,
        position: &Position,
        reversed: bool,
        idempotence: Idempotence,
        mut send: F,
    ) -> Result<T, Error>
    where
        F: FnMut(DataLink) -> Fut,
        Fut: Future<Output = Result<T, Status>>,
    {
        let mut retry = Retry::new(&self.inner.options);
        loop {
            // Nothing was sent yet, so a failed lookup is always safe to retry.
            let located = retry.run(self.locate(table, position, reversed)).await;
            let region = match located {
                Ok(region) => region,
                Err(e) => {
                    retry.back_off(e, Idempotence::Idempotent).await?;
                    continue;
                }
            };
            let client = self.data(&region.server)?;
            match retry
                .run_at(&region.server, async {
                    send(client).await.map_err(Error::from)
                })
                .await
            {
                Ok(value) => return Ok(value),
                Err(e) => {
                    if matches!(e.code, ErrorCode::NotServingRegion | ErrorCode::Unavailable) {
                        self.invalidate(table);
                    }
                    retry.back_off(e, idempotence).await?;
                }
            }
        }
    }
}

fn admin_client(channel: Channel) -> AdminClient<Channel> {
    AdminClient::new(channel)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

/// The code of a failed connect ([`channel::explain`]'s text): `UNAVAILABLE` (retried),
/// except a refusal by TLS, which repeats until the configuration changes.
fn unreachable_code(text: &str) -> ErrorCode {
    if channel::refused_by_tls(text) {
        ErrorCode::Unknown
    } else {
        ErrorCode::Unavailable
    }
}

/// An endpoint for `addr`, adding `http://` to a bare `host:port`.
fn endpoint(addr: &str, options: &ClientOptions) -> Result<Endpoint, Error> {
    channel::endpoint(addr, options.operation_timeout.min(Duration::from_secs(10)))
        .map_err(Error::invalid)
}
