//! How much memory this machine (or the control group the process runs in) has, and the
//! memory budget a server takes from it by default.
//!
//! A fixed default either wastes a large machine (the data is read again and again from the
//! page cache, copied, checksummed and decoded per block) or overruns a small one. The
//! default budget is a quarter of what the process may use — the cgroup's limit when one
//! is set (cgroup v2 `memory.max`, else v1 `memory.limit_in_bytes`), else `MemTotal` — at
//! least 1 GiB (half of the memory below 2 GiB) and at most 32 GiB. Memtables and caches
//! only take memory as data is written and read, so an idle server stays small.

use std::path::Path;

use crate::ServerConfig;

/// The largest default budget: beyond it, a machine is better used by several servers or
/// set explicitly.
pub const MAX_DEFAULT_BUDGET: u64 = 32 << 30;

/// The memory the process may use, in bytes, or `None` when it cannot be read.
pub fn available() -> Option<u64> {
    let total = meminfo_total(&std::fs::read_to_string("/proc/meminfo").ok()?)?;
    let limit = cgroup_limit(Path::new("/sys/fs/cgroup"));
    Some(limit.map_or(total, |l| l.min(total)))
}

/// The default memory budget for a machine with `available` bytes (`None`: unknown).
pub fn default_budget(available: Option<u64>) -> u64 {
    let Some(total) = available else {
        return ServerConfig::DEFAULT_MEMORY_BUDGET;
    };
    let floor = ServerConfig::DEFAULT_MEMORY_BUDGET.min(total / 2);
    (total / 4).clamp(floor, MAX_DEFAULT_BUDGET.max(floor))
}

/// The memory the process may use ([`available`]), read once.
pub fn machine_available() -> Option<u64> {
    static AVAILABLE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(available)
}

/// This machine's default budget.
pub fn machine_budget() -> u64 {
    default_budget(machine_available())
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn meminfo_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// The memory limit of the cgroup mounted at `root`, if one is set.
fn cgroup_limit(root: &Path) -> Option<u64> {
    let read = |p: &str| std::fs::read_to_string(root.join(p)).ok();
    let text = read("memory.max").or_else(|| read("memory/memory.limit_in_bytes"))?;
    // "max" (v2) or a huge number (v1's "no limit", rounded down to a page) mean none.
    text.trim().parse::<u64>().ok().filter(|&l| l < 1 << 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn a_quarter_of_the_machine_within_bounds() {
        assert_eq!(default_budget(Some(24 * GIB)), 6 * GIB);
        assert_eq!(default_budget(Some(4 * GIB)), GIB, "never below 1 GiB");
        assert_eq!(default_budget(Some(GIB)), GIB / 2, "half of a tiny machine");
        assert_eq!(default_budget(Some(512 * GIB)), MAX_DEFAULT_BUDGET);
        assert_eq!(default_budget(None), ServerConfig::DEFAULT_MEMORY_BUDGET);
    }

    #[test]
    fn meminfo_and_cgroup_limits_are_read() {
        let meminfo = "MemTotal:       24683772 kB\nMemFree:  1 kB\n";
        assert_eq!(meminfo_total(meminfo), Some(24_683_772 * 1024));
        assert_eq!(meminfo_total("MemFree: 1 kB\n"), None);
        assert_eq!(meminfo_total("MemTotal: x kB\n"), None);

        let dir = tempfile::tempdir().unwrap();
        assert_eq!(cgroup_limit(dir.path()), None, "no cgroup files");
        std::fs::write(dir.path().join("memory.max"), "max\n").unwrap();
        assert_eq!(cgroup_limit(dir.path()), None, "v2 without a limit");
        std::fs::write(dir.path().join("memory.max"), "4294967296\n").unwrap();
        assert_eq!(cgroup_limit(dir.path()), Some(4 * GIB));
        std::fs::remove_file(dir.path().join("memory.max")).unwrap();
        std::fs::create_dir(dir.path().join("memory")).unwrap();
        let v1 = dir.path().join("memory/memory.limit_in_bytes");
        std::fs::write(&v1, "9223372036854771712\n").unwrap();
        assert_eq!(cgroup_limit(dir.path()), None, "v1 without a limit");
        std::fs::write(&v1, "2147483648\n").unwrap();
        assert_eq!(cgroup_limit(dir.path()), Some(2 * GIB));
    }

    #[test]
    fn this_machine_has_a_budget() {
        let budget = machine_budget();
        assert!((GIB / 2..=MAX_DEFAULT_BUDGET).contains(&budget), "{budget}");
    }
}
