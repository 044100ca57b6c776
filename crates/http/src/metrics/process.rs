//! The standard `process_*` metrics every Prometheus client library exposes (CPU time,
//! memory, file descriptors, start time), read from `/proc` at scrape time. Where `/proc`
//! is not there (not Linux) the families are left out.

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Unit;

/// The kernel's `USER_HZ`: the unit of the tick counts in `/proc/*/stat` (100 on every
/// architecture Linux supports, as Prometheus's own procfs reader assumes).
const USER_HZ: f64 = 100.0;

/// What `/proc` says about this process.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProcessFigures {
    /// User and system CPU time, in seconds.
    pub cpu_seconds: f64,
    /// Resident set size, in bytes.
    pub resident_bytes: u64,
    /// Virtual memory size, in bytes.
    pub virtual_bytes: u64,
    /// Open file descriptors.
    pub open_fds: u64,
    /// The soft limit of open file descriptors.
    pub max_fds: Option<u64>,
    /// The start time, in seconds since the epoch.
    pub start_time_seconds: f64,
}

/// Reads the figures of the calling process; `None` without `/proc`.
pub fn read() -> Option<ProcessFigures> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let boot = std::fs::read_to_string("/proc/stat").ok()?;
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let open_fds = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64);
    parse(&stat, &status, &boot, &limits, open_fds)
}

/// The figures from the texts of `/proc/self/stat`, `/proc/self/status`, `/proc/stat` and
/// `/proc/self/limits`.
fn parse(
    stat: &str,
    status: &str,
    boot: &str,
    limits: &str,
    open_fds: u64,
) -> Option<ProcessFigures> {
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14, 15 (utime, stime) and 22 (starttime), 1-based over the whole line; `after`
    // starts at field 3.
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    let ticks = field(14)? + field(15)?;
    let started_ticks = field(22)?;
    let boot_time: u64 = boot
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    let kib = |key: &str| -> Option<u64> {
        let rest = status.lines().find_map(|l| l.strip_prefix(key))?;
        let n = rest.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
        Some(n * 1024)
    };
    let max_fds = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|soft| soft.parse().ok());
    // Precision loss is harmless: seconds for display and rates.
    Some(ProcessFigures {
        cpu_seconds: ticks as f64 / USER_HZ,
        resident_bytes: kib("VmRSS:").unwrap_or(0),
        virtual_bytes: kib("VmSize:").unwrap_or(0),
        open_fds,
        max_fds,
        start_time_seconds: boot_time as f64 + started_ticks as f64 / USER_HZ,
    })
}

/// Writes the `process_*` families.
pub(super) fn encode(encoder: &mut DescriptorEncoder<'_>) -> std::fmt::Result {
    let Some(p) = read() else {
        return Ok(());
    };
    let mut m = encoder.encode_descriptor(
        "process_cpu",
        "Total user and system CPU time spent.",
        Some(&Unit::Seconds),
        MetricType::Counter,
    )?;
    ConstCounter::new(p.cpu_seconds).encode(m.encode_family(&NO_LABELS)?)?;
    let gauges: [(&str, &str, Option<&Unit>, f64); 5] = [
        (
            "process_resident_memory",
            "Resident memory size.",
            Some(&Unit::Bytes),
            p.resident_bytes as f64,
        ),
        (
            "process_virtual_memory",
            "Virtual memory size.",
            Some(&Unit::Bytes),
            p.virtual_bytes as f64,
        ),
        (
            "process_open_fds",
            "Open file descriptors.",
            None,
            p.open_fds as f64,
        ),
        (
            "process_start_time",
            "Start time of the process since the Unix epoch.",
            Some(&Unit::Seconds),
            p.start_time_seconds,
        ),
        (
            "process_max_fds",
            "The limit of open file descriptors.",
            None,
            p.max_fds.map_or(f64::NAN, |n| n as f64),
        ),
    ];
    for (name, help, unit, value) in gauges {
        if value.is_nan() {
            continue;
        }
        let mut m = encoder.encode_descriptor(name, help, unit, MetricType::Gauge)?;
        ConstGauge::new(value).encode(m.encode_family(&NO_LABELS)?)?;
    }
    Ok(())
}

const NO_LABELS: [(&str, &str); 0] = [];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_texts_give_the_figures() {
        let stat = "4242 (strata (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 \
                    9 0 12345 1000000 500 18446744073709551615";
        let status = "Name:\tstrata\nVmSize:\t  204800 kB\nVmRSS:\t   10240 kB\n";
        let boot = "cpu  1 2 3\nbtime 1700000000\nprocesses 9\n";
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max open files            1024                 524288               files\n";
        let p = parse(stat, status, boot, limits, 17).unwrap();
        assert_eq!(p.cpu_seconds, 3.0);
        assert_eq!(p.resident_bytes, 10240 * 1024);
        assert_eq!(p.virtual_bytes, 204800 * 1024);
        assert_eq!(p.open_fds, 17);
        assert_eq!(p.max_fds, Some(1024));
        assert_eq!(p.start_time_seconds, 1_700_000_123.45);
    }

    #[test]
    fn this_process_is_readable_where_there_is_proc() {
        if std::path::Path::new("/proc/self/stat").exists() {
            let p = read().unwrap();
            assert!(p.resident_bytes > 0 && p.open_fds > 0, "{p:?}");
            assert!(p.start_time_seconds > 1_600_000_000.0, "{p:?}");
        }
    }
}
