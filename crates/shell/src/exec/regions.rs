//! Regions by name and by listing: `list_regions`, `get_splits`, `locate_region`, and the
//! region names `split` and `merge_region` accept.
//!
//! A region answers to four names: HBase's `table,start,id.encoded.` (what `list_regions`,
//! `locate_region` and HBase's clients print; the id is the region's 64-bit id as Java prints a
//! signed long), its encoded part alone (32 hex digits, as HBase's `move` and `merge_region`
//! take it), the cluster's record name `table,seq` or `table,incarnation.seq`, and
//! `table,ID` with the decimal id.

use std::io::Write;

use bytes::Bytes;
use strata_client::{Connection, RegionLocation};
use strata_hbase_rpc::region_name::{parse_region_name, region_name, RegionRef};
use strata_model::ops::escape;
use strata_model::schema::TableName;

use super::ExecError;
use crate::command::RegionColumn;
use crate::format;

/// HBase's name of `region` of `table`: `table,start,id.encoded.`.
pub(super) fn hbase_name(table: &str, region: &RegionLocation) -> String {
    let name = region_name(table, &region.start_row, region.region_id);
    // The start key is printed as HBase's `Bytes.toStringBinary` prints it.
    let (head, tail) = name.split_at(table.len() + 1);
    let start_len = region.start_row.len();
    format!(
        "{}{}{}",
        String::from_utf8_lossy(head),
        escape(&tail[..start_len]),
        String::from_utf8_lossy(&tail[start_len..])
    )
}

/// The encoded part of HBase's name of `region` (the hex MD5 of `table,start,id`).
fn encoded(table: &str, region: &RegionLocation) -> String {
    let name = region_name(table, &region.start_row, region.region_id);
    // `…,id.<32 hex>.`
    String::from_utf8_lossy(&name[name.len() - 33..name.len() - 1]).into_owned()
}

fn unknown(spec: &str) -> ExecError {
    ExecError::Rejected(format!("Unknown region {spec}"))
}

/// The table and region `spec` names, in any of the forms the module lists.
///
/// # Errors
/// Not a region name, no such table, or no such region (nothing is changed).
pub(super) async fn resolve(
    conn: &Connection,
    spec: &str,
) -> Result<(String, RegionLocation), ExecError> {
    let spec = spec.trim();
    if spec.len() == 32 && spec.bytes().all(|b| b.is_ascii_hexdigit()) {
        let wanted = spec.to_ascii_lowercase();
        for info in conn.admin().list_tables().await? {
            let table = info.descriptor.name.to_string();
            if let Some(r) = info.regions.iter().find(|r| encoded(&table, r) == wanted) {
                return Ok((table, r.clone()));
            }
        }
        return Err(unknown(spec));
    }
    let (table, id, exact) = if spec.bytes().filter(|&b| b == b',').count() >= 2 {
        match parse_region_name(spec.as_bytes()) {
            Ok(RegionRef::User { table, region_id }) => (table, region_id, true),
            Ok(RegionRef::Meta) | Err(_) => return Err(unknown(spec)),
        }
    } else if let Some((table, id)) = strata_cluster_node::names::region_id(spec) {
        (table, id, true)
    } else {
        match spec.rsplit_once(',') {
            Some((table, id)) if id.parse::<u64>().is_ok() => {
                (table.to_string(), id.parse().unwrap_or_default(), false)
            }
            _ => {
                return Err(ExecError::Rejected(format!(
                    "'{spec}' is not a region name (as list_regions prints them)"
                )))
            }
        }
    };
    let regions = conn.admin().regions(&table).await?;
    let found = regions.iter().find(|r| r.region_id == id).or_else(|| {
        // `table,N` names the table's region numbered N (its id's low 32 bits).
        (!exact)
            .then(|| regions.iter().find(|r| r.region_id & 0xffff_ffff == id))
            .flatten()
    });
    match found {
        Some(r) => Ok((table, r.clone())),
        None => Err(unknown(spec)),
    }
}

/// The name the admin service takes for `region` of `table`: its record name, else
/// `table,ID`.
pub(super) fn record_name(table: &str, region: &RegionLocation) -> String {
    if region.name.is_empty() {
        format!("{table},{}", region.region_id)
    } else {
        region.name.clone()
    }
}

/// `list_regions`, laid out as HBase's shell does: right-aligned columns each followed by
/// ` |`, a dashed line, then ` N rows`.
pub(super) async fn list(
    conn: &Connection,
    table: &TableName,
    server: Option<&str>,
    columns: &[RegionColumn],
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let name = table.to_string();
    let regions = conn.admin().regions_with_load(&name).await?;
    // HBase spells servers `host,port,startcode`; Strata's are `host:port`.
    let prefix = server.map(|s| s.replace(',', ":"));
    let mut rows = Vec::new();
    for r in &regions {
        if r.server.is_empty() {
            writeln!(
                out,
                "Can not find region: {} , it may be disabled or in transition",
                hbase_name(&name, r)
            )?;
            return Ok(());
        }
        if prefix.as_deref().is_some_and(|p| !r.server.starts_with(p)) {
            continue;
        }
        let row: Vec<String> = columns
            .iter()
            .map(|c| match c {
                RegionColumn::ServerName => r.server.clone(),
                RegionColumn::RegionName => hbase_name(&name, r),
                RegionColumn::StartKey => escape(&r.start_row),
                RegionColumn::EndKey => escape(&r.end_row),
                RegionColumn::Size => (r.store_bytes >> 20).to_string(),
                RegionColumn::Req => r.requests.to_string(),
                RegionColumn::Locality => "-".to_string(),
            })
            .collect();
        rows.push(row);
    }
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .fold(c.min_width(), usize::max)
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = String>| -> String {
        cells
            .zip(&widths)
            .map(|(cell, &w)| format!(" {cell:>w$} |"))
            .collect()
    };
    writeln!(
        out,
        "{}",
        line(&mut columns.iter().map(|c| c.title().to_string()))
    )?;
    writeln!(out, "{}", line(&mut widths.iter().map(|&w| "-".repeat(w))))?;
    for row in &rows {
        writeln!(out, "{}", line(&mut row.iter().cloned()))?;
    }
    writeln!(out, " {} rows", rows.len())?;
    Ok(())
}

/// `get_splits`: `Total number of splits = N` (the regions), then each region's start row
/// but the first's.
pub(super) async fn get_splits(
    conn: &Connection,
    table: &TableName,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let regions = conn.admin().regions(&table.to_string()).await?;
    let splits: Vec<&Bytes> = regions
        .iter()
        .map(|r| &r.start_row)
        .filter(|s| !s.is_empty())
        .collect();
    writeln!(out, "Total number of splits = {}", splits.len() + 1)?;
    for s in splits {
        writeln!(out, "{}", escape(s))?;
    }
    Ok(())
}

/// `locate_region`: the server and region (as HBase prints a `RegionInfo`) holding `row`.
pub(super) async fn locate(
    conn: &Connection,
    table: &TableName,
    row: &[u8],
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let name = table.to_string();
    let regions = conn.admin().regions(&name).await?;
    let Some(r) = regions.iter().find(|r| r.contains(row)) else {
        return Err(ExecError::Rejected(format!(
            "no region of {name} holds row '{}' (the table's regions are in transition)",
            escape(row)
        )));
    };
    let info = format!(
        "{{ENCODED => {}, NAME => '{}', STARTKEY => '{}', ENDKEY => '{}'}}",
        encoded(&name, r),
        hbase_name(&name, r),
        escape(&r.start_row),
        escape(&r.end_row)
    );
    format::header(out, "HOST", "REGION")?;
    format::row(out, &r.server, &info)?;
    format::rows(out, 1)?;
    Ok(())
}
