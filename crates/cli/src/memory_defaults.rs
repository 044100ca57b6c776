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
