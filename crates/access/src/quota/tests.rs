use std::time::{Duration, Instant};

use super::*;

fn throttle(subject: Subject, scope: Scope, limit: &str) -> Throttle {
    let limit = Limit::parse(limit).unwrap();
    Throttle {
        subject,
        kind: ThrottleType::new(scope, limit.unit),
        limit,
    }
}

#[test]
fn limits_parse_as_hbase_shell_writes_them() {
    let l = Limit::parse("100req/sec").unwrap();
    assert_eq!((l.amount, l.unit, l.per), (100, Unit::Number, Per::Sec));
    let l = Limit::parse("10M/sec").unwrap();
    assert_eq!((l.amount, l.unit), (10 << 20, Unit::Size));
    assert_eq!(Limit::parse("5K/MIN").unwrap().to_string(), "5K/min");
    assert_eq!(Limit::parse("1024b/hour").unwrap().to_string(), "1K/hour");
    assert_eq!(Limit::parse("7REQ/day").unwrap().to_string(), "7req/day");
    for bad in [
        "100",
        "100req",
        "req/sec",
        "10X/sec",
        "10req/week",
        "-1req/sec",
        "0req/sec",
    ] {
        assert!(Limit::parse(bad).is_err(), "{bad}");
    }
    assert!(Limit::parse("10cu/sec")
        .unwrap_err()
        .contains("capacity units"));
}

#[test]
fn waits_read_back_as_hbase_client_reads_them() {
    for ms in [0, 10, 250, 1000, 61_500, 3_723_450, 7_200_001] {
        let w = Duration::from_millis(ms);
        assert_eq!(
            wait_of(&format!("x - wait {}", format_wait(w))),
            Some(w),
            "{ms}"
        );
    }
    // HBase 2.6's own forms (RpcThrottlingException.stringFromMillis).
    assert_eq!(format_wait(Duration::from_millis(50)), "50ms");
    assert_eq!(format_wait(Duration::from_millis(1500)), "1sec, 500ms");
    assert_eq!(
        format_wait(Duration::from_millis(61_500)),
        "1min, 1sec, 500ms"
    );
    assert_eq!(
        format_wait(Duration::from_millis(3_723_004)),
        "1hr, 2mins, 3sec, 4ms"
    );
    let t = Throttled {
        kind: ThrottleType::new(Scope::Request, Unit::Number),
        wait: Duration::from_millis(120),
    };
    assert_eq!(t.to_string(), "number of requests exceeded - wait 120ms");
    assert_eq!(
        wait_of("UNAVAILABLE: timed out; last error: x - wait 2hrs, 5ms (gave up)"),
        Some(Duration::from_millis(7_200_005))
    );
    assert_eq!(wait_of("no such thing"), None);
}

#[test]
fn a_limiter_refills_at_its_rate_up_to_one_unit() {
    let l = RateLimiter::new(100, Duration::from_secs(1));
    let t0 = Instant::now();
    assert_eq!(l.wait_for(100, t0), None);
    l.spend(100, t0);
    let wait = l.wait_for(1, t0).unwrap();
    assert!((9..=11).contains(&wait.as_millis()), "{wait:?}");
    assert_eq!(l.wait_for(1, t0 + Duration::from_millis(11)), None);
    // Idle for a minute, it holds one second's worth, no more.
    let later = t0 + Duration::from_secs(60);
    assert_eq!(l.wait_for(100, later), None);
    l.spend(100, later);
    assert!(l.wait_for(1, later).is_some());
}

#[test]
fn requests_are_admitted_at_the_limit_of_every_subject() {
    let q = Quotas::default();
    assert!(!q.any());
    q.install(
        vec![
            throttle(Subject::User("bob".into()), Scope::Request, "5req/min"),
            throttle(Subject::table("t"), Scope::Write, "2req/min"),
        ],
        7,
    );
    assert_eq!(q.revision(), 7);
    for _ in 0..2 {
        q.admit("bob", "default:t", Cost::writes(1, 10)).unwrap();
    }
    let refused = q.admit("alice", "t", Cost::writes(1, 10)).unwrap_err();
    assert_eq!(refused.kind.name(), "WRITE_NUMBER");
    assert!(refused.wait > Duration::from_secs(20));
    // Reads on the table are not writes; bob's own limit still counts them.
    for _ in 0..3 {
        q.admit("bob", "t", Cost::READ).unwrap();
    }
    assert_eq!(
        q.admit("bob", "other", Cost::READ).unwrap_err().kind.name(),
        "REQUEST_NUMBER"
    );
    q.admit("carol", "other", Cost::READ).unwrap();
}

#[test]
fn read_sizes_are_charged_after_and_owed_before() {
    let q = Quotas::default();
    q.install(
        vec![throttle(
            Subject::Namespace("ns".into()),
            Scope::Read,
            "1K/min",
        )],
        1,
    );
    q.admit("u", "ns:t", Cost::READ).unwrap();
    q.charge_read("u", "ns:t", 4096);
    assert_eq!(
        q.admit("u", "ns:t", Cost::READ).unwrap_err().kind.name(),
        "READ_SIZE"
    );
    // Writes are not reads.
    q.admit("u", "ns:t", Cost::writes(1, 100)).unwrap();
    q.admit("u", "default:t", Cost::READ).unwrap();
}

#[test]
fn an_unchanged_throttle_keeps_what_was_spent() {
    let q = Quotas::default();
    let t = throttle(Subject::User("u".into()), Scope::Request, "1req/hour");
    q.install(vec![t.clone()], 1);
    q.admit("u", "t", Cost::READ).unwrap();
    q.install(vec![t], 2);
    assert!(q.admit("u", "t", Cost::READ).is_err());
    q.install(vec![], 3);
    assert!(!q.any());
    q.admit("u", "t", Cost::READ).unwrap();
}

#[test]
fn the_rpc_throttle_switch_stops_refusals_and_keeps_the_throttles() {
    let q = Quotas::default();
    let t = throttle(Subject::User("u".into()), Scope::Request, "1req/hour");
    q.install(vec![t.clone()], 1);
    q.admit("u", "t", Cost::READ).unwrap();
    assert!(q.admit("u", "t", Cost::READ).is_err());
    q.set_enforced(false);
    assert!(!q.enforced() && !q.any());
    for _ in 0..3 {
        q.admit("u", "t", Cost::READ).unwrap();
    }
    assert_eq!(q.throttles(), vec![t.clone()]);
    // Installed again while off, it stays off.
    q.install(vec![t], 2);
    q.admit("u", "t", Cost::READ).unwrap();
    // On again, the hour's one request was spent before: refused.
    q.set_enforced(true);
    assert!(q.any());
    assert!(q.admit("u", "t", Cost::READ).is_err());
}
