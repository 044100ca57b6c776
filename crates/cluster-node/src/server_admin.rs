//! The admin calls about servers rather than tables: `UpdateConfiguration` (HBase's
//! `updateConfiguration`) reloads the configuration file of one live server or of every one.
//! The server that receives the call reloads its own process and forwards to the others,
//! marked [`LOCAL`], as flushes are forwarded.

use strata_cluster::kv::{range_all, Kv};
use strata_proto::pb::{self, ErrorCode};
use tonic::Status;

use crate::admin::{unavailable, ClusterAdmin};
use crate::names::server_address;
use crate::route::local_request;

/// `host:port` of a server named `host:port`, `host:port:startcode` or HBase's
/// `host,port,startcode`.
pub(crate) fn address_of(server: &str) -> String {
    let server = server.trim();
    if server.contains(',') {
        let mut parts = server.split(',');
        if let (Some(host), Some(port)) = (parts.next(), parts.next()) {
            return format!("{host}:{port}");
        }
    }
    if server.matches(':').count() >= 2 {
        return server_address(server).to_string();
    }
    server.to_string()
}

/// This process's reload, on a blocking thread, as one server's answer.
pub(crate) async fn reload_here(address: String) -> pb::ServerConfigurationUpdate {
    let outcome = tokio::task::spawn_blocking(strata_server::config_reload::reload)
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
    match outcome {
        Ok(o) => pb::ServerConfigurationUpdate {
            server: address,
            applied: o.applied,
            needs_restart: o.needs_restart,
            error: String::new(),
        },
        Err(error) => pb::ServerConfigurationUpdate {
            server: address,
            error,
            ..Default::default()
        },
    }
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// `host:port` of every live server, sorted.
    async fn live_addresses(&self) -> Result<Vec<String>, Status> {
        self.run(|kv, layout, _| {
            let servers = range_all(kv, &layout.servers(), 1000).map_err(unavailable)?;
            let mut out: Vec<String> = servers
                .kvs
                .iter()
                .filter_map(|s| s.key.strip_prefix(&layout.servers()))
                .map(|name| server_address(name).to_string())
                .collect();
            out.sort();
            out.dedup();
            Ok(out)
        })
        .await
        .map(tonic::Response::into_inner)
    }

    /// `UpdateConfiguration`: `local` (forwarded here) reloads this process only.
    pub(crate) async fn update_configuration_now(
        &self,
        server: &str,
        local: bool,
    ) -> Result<pb::UpdateConfigurationResponse, Status> {
        let here = self
            .server
            .as_ref()
            .map(|s| s.config().advertised_address.clone())
            .unwrap_or_default();
        if local {
            return Ok(pb::UpdateConfigurationResponse {
                servers: vec![reload_here(here).await],
            });
        }
        let live = self.live_addresses().await?;
        let targets = if server.trim().is_empty() {
            live
        } else {
            let wanted = address_of(server);
            if !live.contains(&wanted) {
                return Err(strata_proto::status(
                    ErrorCode::InvalidArgument,
                    format!(
                        "no live server '{server}' (live: {})",
                        if live.is_empty() {
                            "none".to_string()
                        } else {
                            live.join(", ")
                        }
                    ),
                ));
            }
            vec![wanted]
        };
        let mut servers = Vec::with_capacity(targets.len());
        for addr in targets {
            if addr == here {
                servers.push(reload_here(addr).await);
                continue;
            }
            let request = pb::UpdateConfigurationRequest {
                server: addr.clone(),
            };
            let answer = match self.peer(&addr).await {
                Ok(mut client) => client
                    .update_configuration(local_request(request))
                    .await
                    .map(tonic::Response::into_inner),
                Err(e) => Err(e),
            };
            servers.push(match answer {
                Ok(r) => r
                    .servers
                    .into_iter()
                    .next()
                    .map(|u| pb::ServerConfigurationUpdate {
                        server: addr.clone(),
                        ..u
                    })
                    .unwrap_or_else(|| pb::ServerConfigurationUpdate {
                        server: addr.clone(),
                        error: "the server answered nothing".into(),
                        ..Default::default()
                    }),
                Err(e) => pb::ServerConfigurationUpdate {
                    server: addr,
                    error: e.message().to_string(),
                    ..Default::default()
                },
            });
        }
        Ok(pb::UpdateConfigurationResponse { servers })
    }
}

#[cfg(test)]
mod tests {
    use super::address_of;

    #[test]
    fn every_spelling_of_a_server_names_its_address() {
        assert_eq!(address_of("h:1"), "h:1");
        assert_eq!(address_of("h:1:1700000000000"), "h:1");
        assert_eq!(address_of("h,1,1700000000000"), "h:1");
        assert_eq!(address_of(" h:1 "), "h:1");
    }
}
