//! The request path's cost of `observe` (a latency histogram, the table's heatmap, the
//! slow-operation check): a get of a row in the memtable through the region server, with and
//! without the observer's `start`/`finish` around it, in the same run. The data service adds
//! gRPC decoding and a blocking-pool hop on top, so the ratio here is an upper bound on the
//! share the observer takes of a served get.

use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use criterion::{criterion_main, Criterion};
use strata_model::ops::{Get, Put, RowMutations};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_server::observe::Op;
use strata_server::{RegionServer, ServerConfig};
use strata_storage::manifest::RegionInfo;

const ROWS: u64 = 10_000;

fn row(i: u64) -> Bytes {
    Bytes::from(format!(
        "user{:012}",
        i.wrapping_mul(0x9E37_79B9) % 1_000_000_007
    ))
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server =
        RegionServer::open(ServerConfig::new(dir.path(), "bench:0").with_memory_budget(256 << 20))
            .expect("server opens");
    let table = TableDescriptor::new(TableName::parse("t").expect("name"))
        .with_family(FamilyDescriptor::new("f"));
    let info = RegionInfo {
        table: "t".into(),
        region_id: 1,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    };
    server.open_region(&table, &info).expect("region opens");
    for i in 0..ROWS {
        let rm = RowMutations::new(row(i))
            .with(Put::new(row(i)).add(
                Bytes::from_static(b"f"),
                Bytes::from_static(b"q"),
                Bytes::from_static(&[7; 100]),
            ))
            .expect("valid");
        server
            .region_for("t", &rm.row)
            .expect("served")
            .mutate_row(&rm)
            .expect("written");
    }
    let mut g = c.benchmark_group("get");
    let mut i = 0u64;
    g.bench_function("without observer", |b| {
        b.iter(|| {
            i = (i + 1) % ROWS;
            let get = Get::new(row(i));
            let hosted = server.region_for("t", &get.row).expect("served");
            black_box(hosted.get(&get).expect("read"))
        });
    });
    g.bench_function("with observer", |b| {
        b.iter(|| {
            i = (i + 1) % ROWS;
            let get = Get::new(row(i));
            let call = server.observer().start(Op::Get, "t", &get.row, 40);
            let hosted = server.region_for("t", &get.row).expect("served");
            let r = hosted.get(&get);
            server.observer().finish(call, r.is_ok());
            black_box(r.expect("read"))
        });
    });
    g.finish();
    server.shutdown().expect("clean shutdown");
}

fn benches() {
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    bench(&mut c);
}

criterion_main!(benches);
