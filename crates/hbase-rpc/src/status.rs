//! `GetClusterStatus` (`Admin.getClusterMetrics()`): the live region servers (this one in
//! standalone mode; every registered one of a cluster) with a load entry per open region —
//! sizes and request counts from the region server's own statistics for the regions open in
//! this process, from what their servers last published for the others — and the active
//! master; and `GetRegionLoad`, the same entries for one region server.

use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::context::Context;
use crate::error::HResult;
use crate::ops::{RegionFigures, ServerRegion};
use crate::pb;
use crate::region_name::region_name;
use crate::registry::active_master;

const MB: u64 = 1 << 20;

fn mb(bytes: u64) -> u32 {
    u32::try_from(bytes.div_ceil(MB)).unwrap_or(u32::MAX)
}

/// The figures of region `r`: this process's own when it holds the region (current), else
/// what its server last published (a few seconds old), else none.
pub fn region_figures(ctx: &Context, r: &ServerRegion) -> Option<RegionFigures> {
    let local = ctx.server.as_ref().and_then(|s| {
        let hosted = s.hosted(r.region_id).ok()?;
        Some(RegionFigures::of(&hosted))
    });
    local.or(r.published)
}

fn region_load(ctx: &Context, r: &ServerRegion) -> pb::RegionLoad {
    let f = region_figures(ctx, r);
    pb::RegionLoad {
        region_specifier: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: region_name(&r.table, &r.start, r.region_id),
        },
        stores: f.map(|f| f.stores),
        storefiles: f.map(|f| f.store_files),
        store_uncompressed_size_mb: None,
        storefile_size_mb: f.map(|f| mb(f.store_bytes)),
        mem_store_size_mb: f.map(|f| mb(f.memtable_bytes)),
        read_requests_count: f.map(|f| f.reads),
        write_requests_count: f.map(|f| f.writes),
        region_size_mb: f.map(|f| mb(f.store_bytes + f.memtable_bytes)),
        last_major_compaction_ts: f.map(|f| f.last_major_compaction_ms),
    }
}

/// HBase's master `getLastMajorCompactionTimestamp(table)` (`ClusterMetrics`'s): the smallest
/// last major compaction time over the table's open regions — 0 as soon as one region has no
/// major-compacted file, and 0 for a table with no open region (HBase answers 0 for a table
/// it does not know too).
///
/// # Errors
/// The live servers cannot be read now.
pub fn last_major_compaction_of_table(ctx: &Context, table: &str) -> HResult<u64> {
    Ok(ctx
        .ops
        .live_servers()?
        .iter()
        .flat_map(|s| &s.regions)
        .filter(|r| r.table == table)
        .map(|r| region_figures(ctx, r).map_or(0, |f| f.last_major_compaction_ms))
        .min()
        .unwrap_or(0))
}

/// HBase's master `getLastMajorCompactionTimestampForRegion(regionName)`: the region's last
/// major compaction time, 0 when no live server holds a region of that name.
///
/// # Errors
/// The live servers cannot be read now.
pub fn last_major_compaction_of_region(ctx: &Context, name: &[u8]) -> HResult<u64> {
    Ok(ctx
        .ops
        .live_servers()?
        .iter()
        .flat_map(|s| &s.regions)
        .find(|r| region_name(&r.table, &r.start, r.region_id) == name)
        .and_then(|r| region_figures(ctx, r))
        .map_or(0, |f| f.last_major_compaction_ms))
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
                published: None,
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
            let region_loads: Vec<pb::RegionLoad> =
                s.regions.iter().map(|r| region_load(ctx, r)).collect();
            // Requests served: this process's region server counts its own; another's is the
            // sum of what its regions published (each counted since it opened there).
            let total = ctx
                .server
                .as_ref()
                .filter(|_| s.identity == ctx.identity)
                .map(|rs| rs.counters().requests.load(Ordering::Relaxed))
                .or_else(|| {
                    region_loads
                        .iter()
                        .map(|r| {
                            r.read_requests_count.unwrap_or(0) + r.write_requests_count.unwrap_or(0)
                        })
                        .reduce(u64::saturating_add)
                });
            pb::LiveServerInfo {
                server: s.identity.to_pb(),
                server_load: pb::ServerLoad {
                    // A rate (HBase's `getRequestCountPerSecond`), from the load report.
                    number_of_requests: s.requests_per_sec,
                    total_number_of_requests: total,
                    region_loads,
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
            // The balancer switch (HBase's `ClusterMetrics.getBalancerOn`); left out when the
            // switch cannot be read now.
            balancer_on: ctx.ops.switch_enabled("balancer").ok(),
            master_info_port: Some(-1),
        },
    })
}
