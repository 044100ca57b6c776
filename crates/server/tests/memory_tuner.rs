//! The memory tuner on a region server as standalone runs it: a write burst grows the
//! memtable budget's share, a read-heavy phase over more data than the block cache holds
//! grows the block cache's share, the three sizes keep their sum and their bounds, and every
//! row written reads back. Bounded waits only; nothing here times performance.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_model::ops::{Get, Put, RowMutations};
use strata_server::memory_tuner::{MemoryTunerConfig, Part, Reason};
use strata_server::RegionServer;
use strata_testkit::fixtures::{self, region, table};

const VALUE: usize = 1024;

fn start(dir: &std::path::Path) -> Arc<RegionServer> {
    // 8 MiB of memtables, 4 MiB of block cache, 2 MiB of row cache: 14 MiB to share.
    let mut config = fixtures::server_config(dir, 16);
    config.memory_tuner = MemoryTunerConfig {
        enabled: true,
        period: Duration::from_millis(100),
        ..MemoryTunerConfig::default()
    };
    let regions = [
        region("t", 1, "", "row00020000"),
        region("t", 2, "row00020000", ""),
    ];
    fixtures::server(config, &table("t", &["f"]), &regions)
}

fn row(i: u64) -> String {
    format!("row{i:08}")
}

fn put(server: &RegionServer, i: u64) {
    let r = row(i);
    let rm = RowMutations::new(Bytes::from(r.clone()))
        .with(Put::new(r.clone()).add("f", "q", vec![(i % 251) as u8; VALUE]))
        .unwrap();
    server
        .region_for("t", r.as_bytes())
        .unwrap()
        .mutate_row(&rm)
        .unwrap();
}

fn read(server: &RegionServer, i: u64) -> Vec<u8> {
    let r = row(i);
    let cells = server
        .region_for("t", r.as_bytes())
        .unwrap()
        .get(&Get::new(r))
        .unwrap();
    cells.first().map(|c| c.value.to_vec()).unwrap_or_default()
}

fn share(server: &RegionServer, part: Part) -> u64 {
    server.memory_parts().sizes()[part.index()]
}

#[test]
fn writes_grow_the_memtable_share_and_reads_grow_the_block_cache_share() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let start_sizes = server.memory_parts().sizes();
    let total: u64 = start_sizes.iter().sum();
    let bounds = |part: Part| {
        let b = server.config().memory_tuner.bounds(part);
        (
            total / 100 * u64::from(b.min_percent),
            total / 100 * u64::from(b.max_percent),
        )
    };

    // Write-heavy: until the memtable budget has grown by two steps (or a deadline).
    let mut written = 0u64;
    let deadline = Instant::now() + Duration::from_secs(120);
    while share(&server, Part::Memtables) < start_sizes[0] + total / 10 {
        assert!(
            Instant::now() < deadline,
            "the memtable share did not grow under writes: {:?}",
            server.memory_tuner_stats()
        );
        for _ in 0..500 {
            put(&server, written);
            written += 1;
        }
    }
    let after_writes = server.memory_parts().sizes();
    assert_eq!(after_writes.iter().sum::<u64>(), total, "{after_writes:?}");
    let stats = server.memory_tuner_stats();
    assert!(
        stats
            .moves
            .keys()
            .any(|(_, to, reason)| *to == Part::Memtables
                && matches!(reason, Reason::FlushPressure | Reason::BlockedWrites)),
        "{stats:?}"
    );
    // Enough rows that a read-heavy phase over them needs more than the block cache's
    // largest share: 20,000 rows of 1 KiB.
    while written < 20_000 {
        put(&server, written);
        written += 1;
    }
    for h in server.hosted_regions() {
        h.region.flush().unwrap();
    }

    // Read-heavy: gets over every row, until the block cache has grown past its starting
    // size and its size after the writes (or a deadline).
    let cache_before = share(&server, Part::BlockCache);
    let target = cache_before.max(start_sizes[1]) + total / 10;
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut i = 0u64;
    while share(&server, Part::BlockCache) < target {
        assert!(
            Instant::now() < deadline,
            "the block cache share did not grow under reads: {:?} {:?}",
            server.memory_parts().sizes(),
            server.memory_tuner_stats()
        );
        for _ in 0..500 {
            // A stride through every row: a working set of all of them.
            let k = (i * 7919) % written;
            assert_eq!(read(&server, k), vec![(k % 251) as u8; VALUE], "row {k}");
            i += 1;
        }
    }
    let after_reads = server.memory_parts().sizes();
    assert_eq!(after_reads.iter().sum::<u64>(), total, "{after_reads:?}");
    assert!(
        after_reads[0] < after_writes[0],
        "{after_writes:?} → {after_reads:?}"
    );
    let stats = server.memory_tuner_stats();
    assert!(
        stats
            .moves
            .keys()
            .any(|(_, to, reason)| *to == Part::BlockCache && *reason == Reason::CacheMisses),
        "{stats:?}"
    );
    for part in Part::ALL {
        let (min, max) = bounds(part);
        for sizes in [after_writes, after_reads] {
            let size = sizes[part.index()];
            assert!(min <= size && size <= max, "{part:?} {size} {sizes:?}");
        }
    }
    for record in &stats.recent {
        assert_eq!(record.sizes.iter().sum::<u64>(), total, "{record:?}");
    }

    // Nothing written was lost to the moves.
    for k in 0..written {
        assert_eq!(read(&server, k), vec![(k % 251) as u8; VALUE], "row {k}");
    }
    server.shutdown().unwrap();
}

#[test]
fn a_server_refuses_bounds_its_split_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = fixtures::server_config(dir.path(), 16);
    config.memory_tuner = MemoryTunerConfig {
        enabled: true,
        ..MemoryTunerConfig::default()
    };
    config.memory_tuner.memtables.max_percent = 40;
    let err = RegionServer::open(config).err().expect("refused");
    assert!(
        err.to_string().contains("memtables starts at 57.1%"),
        "{err}"
    );
}
