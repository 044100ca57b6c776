//! The defaults of `--memtable-mib`, `--block-cache-mib` and `--row-cache-mib` for
//! `standalone` and `regionserver`: the machine's default memory budget
//! (`strata_server::machine_memory`, a quarter of its memory) split as
//! `ServerConfig::with_memory_budget` splits any budget (1/2, 1/4, 1/8).

use strata_server::machine_memory::machine_budget;

pub(crate) fn memtable_mib() -> u64 {
    (machine_budget() / 2) >> 20
}

pub(crate) fn block_cache_mib() -> u64 {
    (machine_budget() / 4) >> 20
}

pub(crate) fn row_cache_mib() -> u64 {
    (machine_budget() / 8) >> 20
}

/// Logs the memory split a region server starts with, beside the machine's memory the
/// defaults come from.
pub(crate) fn log_split(memtable_mib: u64, block_cache_mib: u64, row_cache_mib: u64, tuner: bool) {
    let machine_mib = strata_server::machine_memory::machine_available().map_or(0, |b| b >> 20);
    tracing::info!(
        memtable_mib,
        block_cache_mib,
        row_cache_mib,
        machine_mib,
        default_budget_mib = machine_budget() >> 20,
        memory_tuner = tuner,
        "memory split"
    );
}
