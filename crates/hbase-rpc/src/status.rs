//! `GetClusterStatus` (`Admin.getClusterMetrics()`): this server as the one live server and the
//! active master, with a load entry per open region from the region server's own statistics.

use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::context::Context;
use crate::pb;
use crate::region_name::region_name;

const MB: u64 = 1 << 20;

fn mb(bytes: u64) -> u32 {
    u32::try_from(bytes.div_ceil(MB)).unwrap_or(u32::MAX)
}

/// The cluster status; every option the client asks for is filled from the same snapshot.
pub fn cluster_status(ctx: &Context) -> pb::GetClusterStatusResponse {
    let server = ctx.server();
    let region_loads = server
        .hosted_regions()
        .iter()
        .filter_map(|h| {
            let info = h.region.info();
            let stats = server.region_stats(info.region_id).ok()?;
            Some(pb::RegionLoad {
                region_specifier: pb::RegionSpecifier {
                    r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                    value: region_name(&info.table, &info.start_row, info.region_id),
                },
                stores: Some(h.table.families.len() as u32),
                storefiles: Some(stats.store_files),
                store_uncompressed_size_mb: None,
                storefile_size_mb: Some(mb(stats.store_bytes)),
                mem_store_size_mb: Some(mb(stats.memtable_bytes)),
                read_requests_count: None,
                write_requests_count: None,
                region_size_mb: Some(mb(stats.store_bytes + stats.memtable_bytes)),
            })
        })
        .collect();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let requests = server.counters().requests.load(Ordering::Relaxed);
    let me = ctx.identity.to_pb();
    pb::GetClusterStatusResponse {
        cluster_status: pb::ClusterStatus {
            hbase_version: Some(pb::HBaseVersionFileContent {
                version: format!("strata-{}", env!("CARGO_PKG_VERSION")),
            }),
            live_servers: vec![pb::LiveServerInfo {
                server: me.clone(),
                server_load: pb::ServerLoad {
                    number_of_requests: Some(requests),
                    total_number_of_requests: Some(requests),
                    region_loads,
                    report_start_time: Some(ctx.identity.start_code),
                    report_end_time: Some(now),
                },
            }],
            cluster_id: Some(pb::ClusterId {
                cluster_id: ctx.cluster_id.clone(),
            }),
            master: Some(me.clone()),
            balancer_on: Some(false),
            master_info_port: Some(-1),
            servers_name: vec![me],
        },
    }
}
