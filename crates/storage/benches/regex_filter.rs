//! `regexstring:` matching cost: a search through 1 KB values (the YCSB value size) for a
//! pattern that fails (the whole value is scanned), one that matches early, and a pattern that
//! makes a backtracking engine exponential. Throughput is in value bytes.

use std::hint::black_box;

use criterion::{criterion_main, Criterion, Throughput};
use strata_storage::read::filter::Regex;

fn value(seed: u64) -> Vec<u8> {
    let mut z = seed;
    (0..1024)
        .map(|_| {
            z = z.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            b'a' + ((z >> 33) % 26) as u8
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let values: Vec<Vec<u8>> = (0..64).map(value).collect();
    let mut group = c.benchmark_group("regexstring");
    group.throughput(Throughput::Bytes(
        values.iter().map(|v| v.len() as u64).sum(),
    ));
    for (name, pattern) in [
        ("miss", "user[0-9]{6}$"),
        ("early hit", "(?i)[a-c]{2}"),
        ("nested star", "^(a|aa)*(b+)*c$"),
    ] {
        let re = Regex::new(pattern).expect("valid pattern");
        group.bench_function(name, |b| {
            b.iter(|| {
                values
                    .iter()
                    .filter(|v| re.is_match_bytes(black_box(v)))
                    .count()
            })
        });
    }
    group.finish();
}

fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
}

criterion_main!(benches);
