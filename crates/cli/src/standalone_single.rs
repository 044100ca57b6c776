//! `strata standalone`: the cluster's master and one region server in this process, over the
//! coordination store under the root (`strata_cluster_node::single`, RFC 0019 "A cluster of
//! one"), with HBase RPC, the HTTP endpoint and the in-process Thrift gateway, until Ctrl-C or
//! SIGTERM, then a graceful shutdown (flush, close). A root of an earlier release's standalone
//! master is upgraded at the first start.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use strata_cluster_node::serve::Endpoints;
use strata_cluster_node::single::{self, SingleConfig};

use crate::standalone::Args;

/// An address for an optional listener: the one given, or `default` if it can be bound now
/// (else none, said on standard output).
fn optional_listener(
    off: bool,
    given: Option<SocketAddr>,
    default: SocketAddr,
    what: &str,
    flag: &str,
) -> Option<SocketAddr> {
    if off {
        return None;
    }
    if given.is_some() {
        return given;
    }
    match std::net::TcpListener::bind(default) {
        Ok(_) => Some(default),
        Err(e) => {
            println!("{default}: {e}: running without {what} (see {flag})");
            None
        }
    }
}

/// Serves until Ctrl-C or SIGTERM, then flushes and closes every region.
///
/// # Errors
/// Startup failed (root in use or of the other kind, a port taken, recovery) or the region
/// server stopped on its own.
pub async fn serve(
    args: &Args,
    root: &strata_shared_storage::Root,
    server: strata_server::ServerConfig,
    tls: Option<strata_tls::ProcessTls>,
    started: Instant,
) -> Result<(), String> {
    let mut config = SingleConfig::new(server, args.listen);
    config.tls.clone_from(&tls);
    config.space_quota_period = args.space_quota.period();
    config.guard = args.auth.guard(
        args.tls.tls_client_ca.is_some() && args.tls.tls_cert.is_some(),
        strata_tls::args::presented_certificate(&args.tls, &args.tls_connect).as_deref(),
    )?;
    config.endpoints = Endpoints {
        http: optional_listener(
            args.no_http,
            args.http_listen,
            strata_http::DEFAULT_LISTEN,
            "the HTTP endpoint",
            "--http-listen",
        ),
        hbase_rpc: optional_listener(
            args.no_hbase_rpc,
            args.hbase_rpc_listen,
            strata_hbase_rpc::HBaseRpcConfig::default().listen,
            "HBase RPC",
            "--hbase-rpc-listen",
        ),
        hbase_rpc_max_frame_bytes: Some(args.hbase_rpc_max_frame_bytes),
        hbase_rpc_kerberos: args.auth.kerberos()?,
        ..Endpoints::default()
    };
    // The host clients are told, HBase's and Strata's alike.
    config.advertise.clone_from(&args.hbase_rpc_advertised_host);
    let url = root.url.clone();
    let no_request_metrics = args.no_request_metrics;
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = tokio::sync::oneshot::channel();
    let running = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("region-server".into())
            .spawn(move || {
                let mut tx = Some(tx);
                single::run(
                    config,
                    &stop,
                    |what| tracing::info!("region server: {what}"),
                    |node| {
                        if no_request_metrics {
                            node.data().region_server().observer().set_enabled(false);
                        }
                        if let Some(tx) = tx.take() {
                            let _ = tx.send((
                                node.addr,
                                node.http,
                                node.hbase_rpc,
                                node.data().clone(),
                            ));
                        }
                    },
                )
            })
            .map_err(|e| format!("cannot start the region server: {e}"))?
    };
    let Ok((addr, http, hbase_rpc, data)) = rx.await else {
        return running
            .join()
            .map_err(|_| "the region server panicked".to_string())?;
    };
    println!(
        "strata standalone serving on {addr} (data in {url}) after {} ms",
        started.elapsed().as_millis()
    );
    crate::standalone::log_layout(args, addr, &url);
    if let Some(http) = http {
        tracing::info!(listen = %http, "HTTP endpoint (/metrics, web UI) listening");
        let scheme = if tls.is_some() { "https" } else { "http" };
        println!("web UI and /metrics on {scheme}://{http}");
    }
    if let Some(rpc) = hbase_rpc {
        tracing::info!(listen = %rpc, "HBase RPC listening");
        println!("HBase RPC on {rpc}");
    }
    let gateway = if args.no_thrift {
        None
    } else if args.auth.auth {
        // The in-process gateway would call the data service as nobody (its clients prove
        // no name): with access control it is off, and `strata gateway` with a certificate of
        // its own serves Thrift clients under that certificate's grants (RFC 0026).
        println!(
            "the in-process Thrift gateway is off under --auth: run `strata gateway` with a \
             client certificate of its own; its grants decide what Thrift clients may do"
        );
        None
    } else {
        let listen = args
            .thrift_listen
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 9090)));
        let mut config = args.thrift.config(listen);
        config.tls = tls.as_ref().map(|t| t.raw.clone());
        // The gateway's admin calls reach this process's own TLS port.
        let client = match &tls {
            None => Ok(None),
            Some(tls) => tls
                .client_or_explain("the in-process Thrift gateway")
                .map(|c| Some(c.clone())),
        };
        let server = advertised_or(addr, &args.hbase_rpc_advertised_host);
        let started = match client {
            Ok(client) => {
                crate::gateway_cmd::start_in_process(&server, Arc::new(data), config, client).await
            }
            Err(e) => Err(e),
        };
        match started {
            Ok(gateway) => {
                // Recorded before it is announced: whoever reads the line finds it on /config.
                strata_http::process_config::listening("Thrift", gateway.addr().to_string());
                println!("HBase Thrift1 gateway on {}", gateway.addr());
                Some(gateway)
            }
            Err(e) => {
                println!("{e}: running without the Thrift gateway (see --thrift-listen)");
                None
            }
        }
    };
    match &tls {
        None => println!("open a shell with: strata shell --server {addr}"),
        Some(_) => println!(
            "TLS on every listener; open a shell with: strata shell --server {} --tls-ca CA.pem",
            advertised_or(addr, &args.hbase_rpc_advertised_host)
        ),
    }
    if no_request_metrics {
        tracing::info!("request metrics are off (--no-request-metrics)");
    }
    let stopped = tokio::select! {
        () = crate::standalone::wait_for_signal() => false,
        () = wait_for_exit(&running) => true,
        why = crate::standalone::lock_lost(root.s3.clone()) => {
            // Another process owns the root now: nothing more may be written, not even the
            // flushes of a graceful stop (the WAL keeps what was acknowledged).
            tracing::error!(why, "stopping at once: the root's lock is lost");
            eprintln!("strata standalone: stopping at once: {why}");
            std::process::exit(1);
        }
    };
    if let Some(gateway) = gateway {
        strata_http::process_config::stopped_listening("Thrift");
        gateway.shutdown().await;
    }
    if !stopped {
        println!("strata standalone: shutting down (flushing regions)");
    }
    stop.store(true, Ordering::SeqCst);
    let outcome = tokio::task::spawn_blocking(move || running.join())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|_| "the region server panicked".to_string())?;
    println!("strata standalone: stopped");
    outcome
}

/// `host:port` of the data port as clients name it: the advertised host (which a TLS
/// certificate names) with the bound port, else the bound address.
fn advertised_or(addr: SocketAddr, advertised: &Option<String>) -> String {
    match advertised {
        Some(host) => format!("{host}:{}", addr.port()),
        None => addr.to_string(),
    }
}

/// Returns once the region server's thread has ended on its own.
async fn wait_for_exit(running: &std::thread::JoinHandle<Result<(), String>>) {
    while !running.is_finished() {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}
