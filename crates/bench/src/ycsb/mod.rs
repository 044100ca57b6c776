//! YCSB core workloads A–F against a Strata server, with YCSB's semantics (CoreWorkload's
//! properties and defaults, its key names, scrambled zipfian / uniform / latest / hotspot
//! request distributions) and YCSB's output format, so figures line up with YCSB runs on
//! HBase (`strata bench ycsb`).

pub mod generator;
pub mod measure;
pub mod props;
pub mod runner;

pub use measure::{plot_svg, IntervalStats, Measurements};
pub use props::{parse_properties, Workload};
pub use runner::{run, Options};

/// The split points HBase's peer setup uses for `usertable`: the 19-digit hashed key space
/// cut evenly into `regions` ranges, in byte order (shorter numbers sort after longer ones
/// that start with a smaller digit; a cluster's admin accepts only increasing split keys).
pub fn split_keys(regions: u32) -> Vec<bytes::Bytes> {
    let mut keys: Vec<bytes::Bytes> = (1..regions)
        .map(|i| {
            let v = (f64::from(i) * (i64::MAX as f64 / f64::from(regions))) as i64;
            bytes::Bytes::from(format!("user{v}"))
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// The core workloads' properties, as in YCSB's `workloads/` directory.
pub fn core_workload(name: &str) -> Option<&'static str> {
    Some(match name {
        "workloada" => "readproportion=0.5\nupdateproportion=0.5\nrequestdistribution=zipfian\n",
        "workloadb" => "readproportion=0.95\nupdateproportion=0.05\nrequestdistribution=zipfian\n",
        "workloadc" => "readproportion=1\nupdateproportion=0\nrequestdistribution=zipfian\n",
        "workloadd" => "readproportion=0.95\nupdateproportion=0\ninsertproportion=0.05\nrequestdistribution=latest\n",
        "workloade" => "readproportion=0\nscanproportion=0.95\ninsertproportion=0.05\nrequestdistribution=zipfian\nmaxscanlength=100\nscanlengthdistribution=uniform\n",
        "workloadf" => "readproportion=0.5\nupdateproportion=0\nreadmodifywriteproportion=0.5\nrequestdistribution=zipfian\n",
        _ => return None,
    })
}

#[cfg(test)]
mod split_tests {
    use super::split_keys;

    #[test]
    fn split_keys_increase_in_byte_order() {
        for regions in [1, 2, 12, 1000] {
            let keys = split_keys(regions);
            assert_eq!(keys.len(), regions as usize - 1);
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{regions}: {keys:?}");
        }
    }
}
