//! `AdminService`, the region server's own admin calls the client makes per region:
//! `FlushRegion` and `CompactRegion` (what `Admin.flushRegion`, `Admin.compact` and
//! `Admin.majorCompact` send), on the same `RegionServer` calls the master uses,
//! `GetRegionLoad` (`Admin.getRegionMetrics`), `UpdateConfiguration`
//! (`Admin.updateConfiguration`: this process reloads its configuration file), and
//! `ClearRegionBlockCache` (`Admin.clearBlockCache`: the regions' blocks leave the block
//! cache; a region not open here is reported in the answer, as HBase does),
//! `GetOnlineRegion` (`Admin.getRegions(server)`), `GetServerInfo` and
//! `GetSpaceQuotaSnapshots` (`Admin.getRegionServerSpaceQuotaSnapshots`).
//!
//! Each is checked as the admin rpc it amounts to (RFC 0026): flushing and compacting a
//! region, clearing its cache need C or A on its table (HBase's `preFlush`, `preCompact`);
//! reloading the configuration needs global A, as does reading the space quota states
//! (`ListQuotas`'s rule). `GetRegionLoad`, `GetOnlineRegion` and `GetServerInfo` are open,
//! as the status is.

use std::time::{SystemTime, UNIX_EPOCH};

use prost::Message;

use crate::context::{Context, Target};
use crate::error::{HBaseError, HResult};
use crate::pb;

fn decode<M: Message + Default>(param: &[u8]) -> HResult<M> {
    M::decode(param).map_err(|e| HBaseError::do_not_retry(format!("malformed request: {e}")))
}

/// The region `spec` names, once the caller may run `rpc` (the admin rpc's rule) on its
/// table.
fn region_id(ctx: &Context, spec: &pb::RegionSpecifier, rpc: &str) -> HResult<u64> {
    match ctx.target(spec)? {
        Target::Meta => Err(HBaseError::do_not_retry(
            "hbase:meta is not stored: there is nothing to flush or compact",
        )),
        Target::User(h) => {
            let info = h.region.info();
            crate::access::check_admin(rpc, Some(&info.table))?;
            Ok(info.region_id)
        }
    }
}

/// Runs one `AdminService` method.
///
/// # Errors
/// The exception for the client.
pub fn call(ctx: &Context, method: &str, param: &[u8]) -> HResult<Vec<u8>> {
    match method {
        "FlushRegion" => {
            let req: pb::FlushRegionRequest = decode(param)?;
            let id = region_id(ctx, &req.region, "Flush")?;
            ctx.server()?.flush_region(id)?;
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            Ok(pb::FlushRegionResponse {
                last_flush_time: now,
                flushed: Some(true),
                wrote_flush_wal_marker: Some(false),
            }
            .encode_to_vec())
        }
        "CompactRegion" => {
            let req: pb::CompactRegionRequest = decode(param)?;
            let id = region_id(ctx, &req.region, "Compact")?;
            let family = req
                .family
                .as_ref()
                .filter(|f| !f.is_empty())
                .map(|f| {
                    std::str::from_utf8(f)
                        .map(str::to_string)
                        .map_err(|_| HBaseError::do_not_retry("family name is not UTF-8"))
                })
                .transpose()?;
            ctx.server()?
                .compact_region(id, family.as_deref(), req.major())?;
            Ok(pb::Empty {}.encode_to_vec())
        }
        "GetRegionInfo" => {
            let req: pb::GetRegionInfoRequest = decode(param)?;
            Ok(region_info(ctx, &req)?.encode_to_vec())
        }
        "GetRegionLoad" => {
            let req: pb::GetRegionLoadRequest = decode(param)?;
            let table = req
                .table_name
                .as_ref()
                .map(crate::schema::table_name_from_pb)
                .transpose()?;
            Ok(pb::GetRegionLoadResponse {
                region_loads: crate::status::region_loads_here(ctx, table.as_deref())?,
            }
            .encode_to_vec())
        }
        "UpdateConfiguration" => {
            let _: pb::UpdateConfigurationRequest = decode(param)?;
            crate::access::check_admin("UpdateConfiguration", None)?;
            // The process's reload logs what it applied and what waits for a restart.
            strata_server::config_reload::reload().map_err(HBaseError::do_not_retry)?;
            Ok(pb::UpdateConfigurationResponse {}.encode_to_vec())
        }
        "GetOnlineRegion" => {
            let _: pb::GetOnlineRegionRequest = decode(param)?;
            Ok(pb::GetOnlineRegionResponse {
                region_info: online_regions(ctx)?,
            }
            .encode_to_vec())
        }
        "GetServerInfo" => {
            let _: pb::GetServerInfoRequest = decode(param)?;
            Ok(pb::GetServerInfoResponse {
                server_info: pb::ServerInfo {
                    server_name: ctx.identity.to_pb(),
                    // The web UI's address is not part of the HBase RPC listener's settings.
                    webui_port: None,
                },
            }
            .encode_to_vec())
        }
        "GetSpaceQuotaSnapshots" => {
            let _: pb::GetSpaceQuotaSnapshotsRequest = decode(param)?;
            // The rule of every other listing of quota states (`ListQuotas`, RFC 0029).
            crate::access::check_admin("ListQuotas", None)?;
            Ok(space_quota_snapshots().encode_to_vec())
        }
        "ClearRegionBlockCache" => {
            let req: pb::ClearRegionBlockCacheRequest = decode(param)?;
            Ok(pb::ClearRegionBlockCacheResponse {
                stats: clear_block_cache(ctx, &req.region)?,
            }
            .encode_to_vec())
        }
        _ => Err(HBaseError::unknown_method("AdminService", method)),
    }
}

/// `Admin.getRegions(server)`: the user regions open in this process, by table and start
/// row. `hbase:meta` is left out: every Strata server answers it (RFC 0018), none holds it
/// as a region it was assigned, so no server's list names it.
fn online_regions(ctx: &Context) -> HResult<Vec<pb::RegionInfo>> {
    let mut infos: Vec<_> = ctx
        .server()?
        .hosted_regions()
        .into_iter()
        .map(|h| h.region.info().clone())
        .collect();
    infos.sort_by(|a, b| (&a.table, &a.start_row).cmp(&(&b.table, &b.start_row)));
    Ok(infos
        .into_iter()
        .map(|i| crate::schema::region_info_pb(&i.table, i.start_row, i.end_row, i.region_id))
        .collect())
}

/// `Admin.getRegionServerSpaceQuotaSnapshots(server)`: the space quota states this server
/// enforces, as the master published them (RFC 0029), one per table under a quota.
fn space_quota_snapshots() -> pb::GetSpaceQuotaSnapshotsResponse {
    use pb::get_space_quota_snapshots_response::TableQuotaSnapshot;
    let snapshots = crate::access::space_states()
        .into_iter()
        .map(|(table, s)| TableQuotaSnapshot {
            table_name: Some(crate::schema::table_name_pb(&table)),
            snapshot: Some(pb::SpaceQuotaSnapshot {
                quota_status: Some(pb::SpaceQuotaStatus {
                    violation_policy: Some(s.policy.number()),
                    in_violation: Some(s.in_violation),
                }),
                quota_usage: Some(s.usage),
                quota_limit: Some(s.limit),
            }),
        })
        .collect();
    pb::GetSpaceQuotaSnapshotsResponse { snapshots }
}

/// `Admin.getRegionInfo`, and with `compaction_state` what `Admin.getCompactionState` asks
/// each region: the compactions running in it now. HBase computes a best split row when
/// asked; Strata picks its split points when it splits (RFC 0028), so none is returned, as
/// HBase answers for a region it would not split.
fn region_info(
    ctx: &Context,
    req: &pb::GetRegionInfoRequest,
) -> HResult<pb::GetRegionInfoResponse> {
    use pb::get_region_info_response::CompactionState;
    let (info, state, user) = match ctx.target(&req.region)? {
        Target::Meta => (
            crate::registry::meta_location(ctx).region_info,
            (0, 0),
            false,
        ),
        Target::User(h) => {
            let info = h.region.info();
            let pb_info = crate::schema::region_info_pb(
                &info.table,
                info.start_row.clone(),
                info.end_row.clone(),
                info.region_id,
            );
            (pb_info, h.region.compactions_in_progress(), true)
        }
    };
    let compaction_state = req.compaction_state().then(|| {
        match state {
            (0, 0) => CompactionState::None,
            (_, 0) => CompactionState::Minor,
            (0, _) => CompactionState::Major,
            _ => CompactionState::MajorAndMinor,
        }
        .into()
    });
    Ok(pb::GetRegionInfoResponse {
        region_info: info,
        compaction_state,
        // hbase:meta is never split or merged, as in HBase.
        splittable: Some(user),
        mergeable: Some(user),
        best_split_row: None,
    })
}

/// Evicts the blocks of each region of `regions` open here; the others are the answer's
/// exceptions.
fn clear_block_cache(
    ctx: &Context,
    regions: &[pb::RegionSpecifier],
) -> HResult<pb::CacheEvictionStats> {
    let server = ctx.server()?;
    let mut blocks = 0u64;
    let mut bytes = 0u64;
    let mut exception = Vec::new();
    for spec in regions {
        match ctx.target(spec) {
            Ok(Target::User(h)) => {
                crate::access::check_admin("ClearBlockCache", Some(&h.region.info().table))?;
                let evicted = h.region.evict_cached_blocks();
                blocks += evicted.blocks;
                bytes += evicted.bytes;
            }
            // hbase:meta is not stored: it has no blocks.
            Ok(Target::Meta) => {}
            Err(e) => exception.push(pb::RegionExceptionMessage {
                region: spec.clone(),
                exception: pb::NameBytesPair {
                    name: e.class.to_string(),
                    value: Some(e.message.into_bytes().into()),
                },
            }),
        }
    }
    let max = server.block_cache().map_or(0, |c| c.stats().capacity);
    let long = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    Ok(pb::CacheEvictionStats {
        evicted_blocks: Some(long(blocks)),
        bytes_evicted: Some(long(bytes)),
        max_cache_size: Some(long(max)),
        exception,
    })
}
