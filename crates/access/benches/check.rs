//! What one access decision costs (RFC 0026): the guard off (every server without --auth), a
//! user with a table grant among 1,000 users' grants, and a user whose reads are narrowed to
//! one family.
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use strata_access::{Access, Action, Audit, Caller, Grant, Guard, GuardConfig, Perms, Scope};

fn grants() -> Vec<Grant> {
    let mut out = Vec::new();
    for u in 0..1000 {
        out.push(Grant {
            who: format!("user{u}"),
            scope: Scope::table(&format!("ns{}:t{u}", u % 10), None, None).unwrap(),
            perms: Perms::parse("RW").unwrap(),
        });
    }
    out.push(Grant {
        who: "reader".into(),
        scope: Scope::table("t", Some(Bytes::from_static(b"f")), None).unwrap(),
        perms: Perms::parse("R").unwrap(),
    });
    out
}

fn bench(c: &mut Criterion) {
    let off = Guard::off();
    let on = Guard::on(GuardConfig::default(), None, Audit::to_log());
    on.install(Access::from_grants(grants()), 1);
    let user = Caller::certified("user500", None);
    let reader = Caller::certified("reader", None);
    let scope = Scope::table("ns0:t500", None, None).unwrap();
    c.bench_function("check, guard off", |b| {
        b.iter(|| off.check(black_box(&user), "get", &[Action::Read], &scope))
    });
    c.bench_function("check, table grant among 1000 users", |b| {
        b.iter(|| on.check(black_box(&user), "get", &[Action::Read], &scope))
    });
    c.bench_function("readable, one family granted", |b| {
        b.iter(|| on.readable(black_box(&reader), "get", "t"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
