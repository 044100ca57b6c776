//! `GetClusterStatus` (`Admin.getClusterMetrics()`): the live region servers (this one in
//! standalone mode; every registered one of a cluster) with a load entry per open region —
//! sizes from the region server's own statistics for the regions open in this process —
//! and the active master; and `GetRegionLoad`, the same entries for one region server.

use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::context::Context;
use crate::error::HResult;
use crate::ops::ServerRegion;
use crate::pb;
use crate::region_name::region_name;
use crate::registry::active_master;

const MB: u64 = 1 << 20;

fn mb(bytes: u64) -> u32 {
    u32::try_from(bytes.div_ceil(MB)).unwrap_or(u32::MAX)
}

fn region_load(ctx: &Context, r: &ServerRegion) -> pb::RegionLoad {
    let mut requests = None;
    let local = ctx.server.as_ref().and_then(|s| {
        let hosted = s.hosted(r.region_id).ok()?;
        let stats = s.region_stats(r.region_id).ok()?;
        // Counted since the region opened here (RFC 0028).
        requests = Some((hosted.load.reads(), hosted.load.writes()));
        Some((hosted.table.families.len() as u32, stats))
    });
    pb::RegionLoad {
        region_specifier: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: region_name(&r.table, &r.start, r.region_id),
        },
        stores: local.as_ref().map(|(f, _)| *f),
        storefiles: local.as_ref().map(|(_, s)| s.store_files),
        store_uncompressed_size_mb: None,
        storefile_size_mb: local.as_ref().map(|(_, s)| mb(s.store_bytes)),
        mem_store_size_mb: local.as_ref().map(|(_, s)| mb(s.memtable_bytes)),
        read_requests_count: requests.map(|(r, _)| r),
        write_requests_count: requests.map(|(_, w)| w),
        region_size_mb: local
            .as_ref()
            .map(|(_, s)| mb(s.store_bytes + s.memtable_bytes)),
        last_major_compaction_ts: local.as_ref().map(|(_, s)| s.last_major_compaction_ms),
    }
}

/// `AdminService.GetRegionLoad` (`Admin.getRegionMetrics(server[, table])`): a load entry
/// per region open in this process, of `table` if given, in region-name order.
///
/// # Errors
/// No region server in this process.
pub fn region_loads_here(ctx: &Context, table: Option<&str>) -> HResult<Vec<pb::RegionLoad>> {
    let mut regions: Vec<ServerRegion> = ctx
        .server()?
        .hosted_regions()
        .into_iter()
        .map(|h| {
            let info = h.region.info();
            ServerRegion {
                table: info.table.clone(),
                start: info.start_row.clone(),
                region_id: info.region_id,
            }
        })
        .filter(|r| table.is_none_or(|t| r.table == t))
        .collect();
    regions.sort_by(|a, b| (&a.table, &a.start).cmp(&(&b.table, &b.start)));
    Ok(regions.iter().map(|r| region_load(ctx, r)).collect())
}

/// The cluster status; every option the client asks for is filled from the same snapshot.
///
/// # Errors
/// The live servers cannot be read now.
pub fn cluster_status(ctx: &Context) -> HResult<pb::GetClusterStatusResponse> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let servers = ctx.ops.live_servers()?;
    let live_servers: Vec<pb::LiveServerInfo> = servers
        .iter()
        .map(|s| {
            // Request counts are known for this process's region server only.
            let requests = ctx
                .server
                .as_ref()
                .filter(|_| s.identity == ctx.identity)
                .map(|rs| rs.counters().requests.load(Ordering::Relaxed));
            pb::LiveServerInfo {
                server: s.identity.to_pb(),
                server_load: pb::ServerLoad {
                    number_of_requests: requests,
                    total_number_of_requests: requests,
                    region_loads: s.regions.iter().map(|r| region_load(ctx, r)).collect(),
                    report_start_time: Some(s.identity.start_code),
                    report_end_time: Some(now),
                },
            }
        })
        .collect();
    let master = active_master(ctx).to_pb();
    Ok(pb::GetClusterStatusResponse {
        cluster_status: pb::ClusterStatus {
            hbase_version: Some(pb::HBaseVersionFileContent {
                version: format!("strata-{}", env!("CARGO_PKG_VERSION")),
            }),
            servers_name: live_servers.iter().map(|s| s.server.clone()).collect(),
            live_servers,
            cluster_id: Some(pb::ClusterId {
                cluster_id: ctx.cluster_id.clone(),
            }),
            master: Some(master),
            balancer_on: Some(false),
            master_info_port: Some(-1),
        },
    })
}
