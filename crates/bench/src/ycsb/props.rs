//! YCSB workload properties: read from YCSB's property files and `-p key=value` overrides,
//! with CoreWorkload's defaults.

use std::collections::BTreeMap;

/// A workload's parameters (YCSB's CoreWorkload property names).
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// `recordcount`.
    pub record_count: u64,
    /// `operationcount`.
    pub operation_count: u64,
    /// `fieldcount`.
    pub field_count: u32,
    /// `fieldlength`.
    pub field_length: usize,
    /// `readallfields`.
    pub read_all_fields: bool,
    /// `writeallfields`.
    pub write_all_fields: bool,
    /// `readproportion`, `updateproportion`, `insertproportion`, `scanproportion`,
    /// `readmodifywriteproportion`, and Strata's `deleteproportion` (not in YCSB's core
    /// workload: deletes a row chosen like a read, for seed 000's "delete processed messages"
    /// variant).
    pub proportions: [f64; 6],
    /// `requestdistribution`: uniform, zipfian, latest, hotspot.
    pub request_distribution: String,
    /// `maxscanlength`.
    pub max_scan_length: u64,
    /// `scanlengthdistribution`: uniform or zipfian.
    pub scan_length_distribution: String,
    /// `insertorder`: hashed or ordered.
    pub hashed_inserts: bool,
    /// `insertstart`.
    pub insert_start: u64,
    /// `insertcount` (default: recordcount − insertstart).
    pub insert_count: u64,
    /// `zeropadding`.
    pub zero_padding: usize,
    /// `hotspotdatafraction`, `hotspotopnfraction`.
    pub hotspot: (f64, f64),
    /// `table`.
    pub table: String,
    /// `columnfamily`.
    pub family: String,
    /// `threadcount` (or `-threads`).
    pub threads: usize,
    /// `target` ops/s in all (0: unthrottled).
    pub target: f64,
    /// `maxexecutiontime` in seconds (0: none).
    pub max_execution_time: u64,
}

/// Operation kinds, in `proportions` order.
pub const OPS: [&str; 6] = [
    "READ",
    "UPDATE",
    "INSERT",
    "SCAN",
    "READ-MODIFY-WRITE",
    "DELETE",
];

impl Workload {
    /// Parses properties (`key=value` lines, `#` comments) over CoreWorkload's defaults.
    ///
    /// # Errors
    /// A value that does not parse, or an unknown distribution.
    pub fn from_properties(props: &BTreeMap<String, String>) -> Result<Workload, String> {
        let get = |k: &str| props.get(k).map(|v| v.trim().to_string());
        fn num<T: std::str::FromStr>(k: &str, v: Option<String>, d: T) -> Result<T, String> {
            v.map_or(Ok(d), |v| {
                v.parse().map_err(|_| format!("{k}: cannot parse '{v}'"))
            })
        }
        let record_count = num("recordcount", get("recordcount"), 1000u64)?;
        let insert_start = num("insertstart", get("insertstart"), 0u64)?;
        let w = Workload {
            record_count,
            operation_count: num("operationcount", get("operationcount"), 1000u64)?,
            field_count: num("fieldcount", get("fieldcount"), 10u32)?,
            field_length: num("fieldlength", get("fieldlength"), 100usize)?,
            read_all_fields: num("readallfields", get("readallfields"), true)?,
            write_all_fields: num("writeallfields", get("writeallfields"), false)?,
            proportions: [
                num("readproportion", get("readproportion"), 0.95)?,
                num("updateproportion", get("updateproportion"), 0.05)?,
                num("insertproportion", get("insertproportion"), 0.0)?,
                num("scanproportion", get("scanproportion"), 0.0)?,
                num(
                    "readmodifywriteproportion",
                    get("readmodifywriteproportion"),
                    0.0,
                )?,
                num("deleteproportion", get("deleteproportion"), 0.0)?,
            ],
            request_distribution: get("requestdistribution").unwrap_or_else(|| "uniform".into()),
            max_scan_length: num("maxscanlength", get("maxscanlength"), 1000u64)?,
            scan_length_distribution: get("scanlengthdistribution")
                .unwrap_or_else(|| "uniform".into()),
            hashed_inserts: get("insertorder").is_none_or(|v| v != "ordered"),
            insert_start,
            insert_count: num(
                "insertcount",
                get("insertcount"),
                record_count.saturating_sub(insert_start),
            )?,
            zero_padding: num("zeropadding", get("zeropadding"), 1usize)?,
            hotspot: (
                num("hotspotdatafraction", get("hotspotdatafraction"), 0.2)?,
                num("hotspotopnfraction", get("hotspotopnfraction"), 0.8)?,
            ),
            table: get("table").unwrap_or_else(|| "usertable".into()),
            family: get("columnfamily").unwrap_or_else(|| "family".into()),
            threads: num("threadcount", get("threadcount"), 1usize)?.max(1),
            target: num("target", get("target"), 0f64)?,
            max_execution_time: num("maxexecutiontime", get("maxexecutiontime"), 0u64)?,
        };
        for d in [&w.request_distribution, &w.scan_length_distribution] {
            if !["uniform", "zipfian", "latest", "hotspot"].contains(&d.as_str()) {
                return Err(format!("unknown distribution '{d}'"));
            }
        }
        if w.proportions.iter().sum::<f64>() <= 0.0 {
            return Err("every operation proportion is zero".into());
        }
        Ok(w)
    }

    /// YCSB's key name for key number `n`.
    pub fn key(&self, n: u64) -> String {
        let n = if self.hashed_inserts {
            super::generator::fnvhash64(n)
        } else {
            n
        };
        format!("user{:0>width$}", n, width = self.zero_padding)
    }

    /// Field names `field0..fieldN`.
    pub fn field(&self, i: u32) -> String {
        format!("field{i}")
    }
}

/// Reads a property file's `key=value` lines into `props` (later lines win).
pub fn parse_properties(text: &str, props: &mut BTreeMap<String, String>) {
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        if let Some((k, v)) = line.split_once('=').or_else(|| line.split_once(':')) {
            props.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloada_file_parses_with_defaults() {
        let mut p = BTreeMap::new();
        parse_properties(
            "workload=site.ycsb.workloads.CoreWorkload\n# comment\nrecordcount=1000\n\
             readproportion=0.5\nupdateproportion=0.5\nrequestdistribution=zipfian\n",
            &mut p,
        );
        p.insert("threadcount".into(), "8".into());
        let w = Workload::from_properties(&p).unwrap();
        assert_eq!(w.proportions, [0.5, 0.5, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!((w.field_count, w.field_length, w.threads), (10, 100, 8));
        assert_eq!(w.request_distribution, "zipfian");
        assert_eq!(w.key(0), "user6284781860667377211");
        p.insert("insertorder".into(), "ordered".into());
        p.insert("zeropadding".into(), "6".into());
        assert_eq!(Workload::from_properties(&p).unwrap().key(42), "user000042");
        p.insert("requestdistribution".into(), "weird".into());
        assert!(Workload::from_properties(&p).is_err());
    }
}
