//! Latency and return-code bookkeeping per operation kind, in YCSB's output format, plus a
//! per-second timeline for progress lines and plots and, on request, YCSB-style time series:
//! per kind and interval, operations and p50 / p99 latency.
//!
//! Samples are kept raw (µs, `u32`), once, filed by kind and by the second of the run in which
//! the operation ended: the whole-run percentiles, the per-second timeline and the
//! per-interval time series are all read from that one store, so percentiles are exact and
//! the time series costs no memory beyond a map entry per kind and second.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// The time series' interval unless set otherwise (YCSB's `timeseries.granularity` is 1 s; 10 s
/// suits runs of minutes).
pub const DEFAULT_INTERVAL_SECS: u32 = 10;

/// One interval of one operation kind's time series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalStats {
    /// Start of the interval, seconds into the run.
    pub start_s: u32,
    /// Operations of the kind that ended in the interval.
    pub ops: usize,
    /// Median latency, µs.
    pub p50_us: u32,
    /// 99th percentile latency, µs.
    pub p99_us: u32,
}

/// Measurements of one thread (merged at the end).
#[derive(Clone)]
pub struct Measurements {
    /// Per operation kind, per second of the run in which operations ended: latencies in µs.
    samples: BTreeMap<&'static str, BTreeMap<u32, Vec<u32>>>,
    /// Per operation kind: return code → count.
    returns: BTreeMap<&'static str, BTreeMap<String, u64>>,
    /// Seconds per time-series interval.
    interval_secs: u32,
    /// Whether the report ends with the time series.
    report_timeseries: bool,
}

impl Default for Measurements {
    fn default() -> Self {
        Self {
            samples: BTreeMap::new(),
            returns: BTreeMap::new(),
            interval_secs: DEFAULT_INTERVAL_SECS,
            report_timeseries: false,
        }
    }
}

impl Measurements {
    /// Records one operation of `kind` that ended `at` into the run, took `took`, and
    /// returned `code` (`OK`, `NOT_FOUND`, `ERROR`).
    pub fn record(&mut self, kind: &'static str, at: Duration, took: Duration, code: &str) {
        let us = u32::try_from(took.as_micros()).unwrap_or(u32::MAX);
        let second = u32::try_from(at.as_secs()).unwrap_or(u32::MAX);
        self.samples
            .entry(kind)
            .or_default()
            .entry(second)
            .or_default()
            .push(us);
        *self
            .returns
            .entry(kind)
            .or_default()
            .entry(code.to_string())
            .or_default() += 1;
    }

    /// Adds another thread's measurements (keeps this one's time-series settings).
    pub fn merge(&mut self, other: Measurements) {
        for (k, per_second) in other.samples {
            let mine = self.samples.entry(k).or_default();
            for (s, v) in per_second {
                mine.entry(s).or_default().extend(v);
            }
        }
        for (k, v) in other.returns {
            let e = self.returns.entry(k).or_default();
            for (code, n) in v {
                *e.entry(code).or_default() += n;
            }
        }
    }

    /// Sets the time series' interval to `secs` seconds and has the report end with it; 0
    /// turns the report's time series off (and keeps the interval).
    pub fn set_timeseries(&mut self, secs: u32) {
        self.report_timeseries = secs > 0;
        if secs > 0 {
            self.interval_secs = secs;
        }
    }

    /// The time series' interval, seconds.
    pub fn interval_secs(&self) -> u32 {
        self.interval_secs
    }

    /// Operations recorded.
    pub fn operations(&self) -> u64 {
        self.samples
            .values()
            .flat_map(BTreeMap::values)
            .map(|v| v.len() as u64)
            .sum()
    }

    /// Operations that returned `ERROR`.
    pub fn errors(&self) -> u64 {
        self.returns.values().filter_map(|m| m.get("ERROR")).sum()
    }

    /// YCSB's final report; with [`set_timeseries`](Self::set_timeseries) on, followed per
    /// kind by one `[KIND-TS], <interval start ms>, ops=<n>, p50=<µs>, p99=<µs>` line per
    /// interval and a `[KIND], P99OverTime(us), min=<µs>, median=<µs>, max=<µs>` line over
    /// the intervals' p99s.
    pub fn report(&self, runtime: Duration) -> String {
        let mut out = String::new();
        let ms = runtime.as_millis().max(1);
        let _ = writeln!(out, "[OVERALL], RunTime(ms), {ms}");
        let _ = writeln!(
            out,
            "[OVERALL], Throughput(ops/sec), {:.1}",
            self.operations() as f64 * 1000.0 / ms as f64
        );
        for (kind, per_second) in &self.samples {
            let mut lat: Vec<u32> = per_second.values().flatten().copied().collect();
            lat.sort_unstable();
            let n = lat.len();
            let avg = lat.iter().map(|&v| f64::from(v)).sum::<f64>() / n.max(1) as f64;
            let _ = writeln!(out, "[{kind}], Operations, {n}");
            let _ = writeln!(out, "[{kind}], AverageLatency(us), {avg:.1}");
            let _ = writeln!(
                out,
                "[{kind}], MinLatency(us), {}",
                lat.first().unwrap_or(&0)
            );
            let _ = writeln!(
                out,
                "[{kind}], MaxLatency(us), {}",
                lat.last().unwrap_or(&0)
            );
            for (p, name) in [
                (0.50, "50th"),
                (0.95, "95th"),
                (0.99, "99th"),
                (0.999, "99.9th"),
            ] {
                let _ = writeln!(
                    out,
                    "[{kind}], {name}PercentileLatency(us), {}",
                    percentile(&lat, p)
                );
            }
            for (code, count) in self.returns.get(kind).into_iter().flatten() {
                let _ = writeln!(out, "[{kind}], Return={code}, {count}");
            }
        }
        if self.report_timeseries {
            for (kind, series) in self.timeseries() {
                for i in &series {
                    let _ = writeln!(
                        out,
                        "[{kind}-TS], {}, ops={}, p50={}, p99={}",
                        u64::from(i.start_s) * 1000,
                        i.ops,
                        i.p50_us,
                        i.p99_us
                    );
                }
                if let Some((min, median, max)) = p99_over_time(&series) {
                    let _ = writeln!(
                        out,
                        "[{kind}], P99OverTime(us), min={min}, median={median}, max={max}"
                    );
                }
            }
        }
        out
    }

    /// Per operation kind, per interval of [`interval_secs`](Self::interval_secs) in which
    /// operations of the kind ended: (start, operations, p50, p99). Intervals without
    /// operations of the kind are left out; the last one may be partial.
    pub fn timeseries(&self) -> BTreeMap<&'static str, Vec<IntervalStats>> {
        let every = self.interval_secs.max(1);
        self.samples
            .iter()
            .map(|(&kind, per_second)| {
                let mut intervals: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
                for (s, v) in per_second {
                    intervals
                        .entry(s / every * every)
                        .or_default()
                        .extend_from_slice(v);
                }
                let series = intervals
                    .into_iter()
                    .map(|(start_s, mut v)| {
                        v.sort_unstable();
                        IntervalStats {
                            start_s,
                            ops: v.len(),
                            p50_us: percentile(&v, 0.50),
                            p99_us: percentile(&v, 0.99),
                        }
                    })
                    .collect();
                (kind, series)
            })
            .collect()
    }

    /// Per second, all kinds together: (second, operations, p99 µs).
    pub fn timeline(&self) -> Vec<(u32, usize, u32)> {
        let mut per_second: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (s, v) in self.samples.values().flatten() {
            per_second.entry(*s).or_default().extend_from_slice(v);
        }
        per_second
            .into_iter()
            .map(|(s, mut v)| {
                v.sort_unstable();
                (s, v.len(), percentile(&v, 0.99))
            })
            .collect()
    }

    /// The reads' p99 per interval as points of [`plot_svg`]'s `read_p99`: (middle of the
    /// interval, clamped to the last second with operations, p99 µs). Empty without reads.
    pub fn read_p99_points(&self) -> Vec<(u32, u32)> {
        let last = self
            .samples
            .values()
            .filter_map(|m| m.keys().next_back())
            .max()
            .copied()
            .unwrap_or(0);
        let half = self.interval_secs.max(1) / 2;
        self.timeseries()
            .get("READ")
            .into_iter()
            .flatten()
            .map(|i| (i.start_s.saturating_add(half).min(last), i.p99_us))
            .collect()
    }
}

/// (min, median, max) of a series' per-interval p99s; the median of an even number of
/// intervals is the lower middle one. `None` for an empty series.
pub fn p99_over_time(series: &[IntervalStats]) -> Option<(u32, u32, u32)> {
    let mut p99s: Vec<u32> = series.iter().map(|i| i.p99_us).collect();
    p99s.sort_unstable();
    Some((*p99s.first()?, percentile(&p99s, 0.5), *p99s.last()?))
}

/// The `p` quantile of sorted samples.
pub fn percentile(sorted: &[u32], p: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// An SVG chart of throughput (ops/s) and p99 latency (ms) per second, plus the reads' p99
/// per interval if `read_p99` (points of [`Measurements::read_p99_points`]) is not empty, on
/// the same latency scale.
pub fn plot_svg(title: &str, timeline: &[(u32, usize, u32)], read_p99: &[(u32, u32)]) -> String {
    let (w, h, pad) = (800.0, 360.0, 50.0);
    let max_s = timeline.last().map_or(1, |t| t.0.max(1)) as f64;
    let max_ops = timeline.iter().map(|t| t.1).max().unwrap_or(1).max(1) as f64;
    let max_p99 = timeline
        .iter()
        .map(|t| t.2)
        .chain(read_p99.iter().map(|p| p.1))
        .max()
        .unwrap_or(1)
        .max(1) as f64
        / 1000.0;
    let x = |s: u32| pad + f64::from(s) / max_s * (w - 2.0 * pad);
    let y = |v: f64, max: f64| h - pad - v / max * (h - 2.0 * pad);
    let line = |pts: Vec<(f64, f64)>| {
        pts.iter()
            .map(|(a, b)| format!("{a:.1},{b:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let ops = line(
        timeline
            .iter()
            .map(|t| (x(t.0), y(t.1 as f64, max_ops)))
            .collect(),
    );
    let p99 = line(
        timeline
            .iter()
            .map(|t| (x(t.0), y(f64::from(t.2) / 1000.0, max_p99)))
            .collect(),
    );
    let reads = if read_p99.is_empty() {
        String::new()
    } else {
        let pts = line(
            read_p99
                .iter()
                .map(|&(s, us)| (x(s), y(f64::from(us) / 1000.0, max_p99)))
                .collect(),
        );
        format!(
            "<text x=\"{r}\" y=\"{t}\" fill=\"darkorange\" text-anchor=\"end\">READ p99</text>\
<polyline fill=\"none\" stroke=\"darkorange\" stroke-width=\"2\" points=\"{pts}\"/>",
            r = w - pad,
            t = pad + 8.0,
        )
    };
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\
<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
<text x=\"{pad}\" y=\"20\" font-size=\"14\">{title}</text>\
<line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"black\"/>\
<line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{b}\" stroke=\"black\"/>\
<text x=\"{pad}\" y=\"{lb}\">0 s</text><text x=\"{r}\" y=\"{lb}\" text-anchor=\"end\">{max_s} s</text>\
<text x=\"5\" y=\"{pad}\" fill=\"steelblue\">{max_ops:.0} ops/s</text>\
<text x=\"{r}\" y=\"{t}\" fill=\"firebrick\" text-anchor=\"end\">p99 {max_p99:.2} ms</text>\
<polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"1.5\" points=\"{ops}\"/>\
<polyline fill=\"none\" stroke=\"firebrick\" stroke-width=\"1.5\" points=\"{p99}\"/>{reads}</svg>\n",
        b = h - pad,
        r = w - pad,
        lb = h - pad + 18.0,
        t = pad - 8.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 reads of 1..=100 µs over a second, and one failed update of 7 µs.
    fn sample(m: &mut Measurements) {
        for i in 1..=100u64 {
            m.record(
                "READ",
                Duration::from_millis(i * 10),
                Duration::from_micros(i),
                "OK",
            );
        }
        m.record("UPDATE", Duration::ZERO, Duration::from_micros(7), "ERROR");
    }

    #[test]
    fn report_has_ycsb_lines() {
        let mut m = Measurements::default();
        sample(&mut m);
        let r = m.report(Duration::from_secs(2));
        assert!(r.contains("[OVERALL], Throughput(ops/sec), 50.5"), "{r}");
        assert!(r.contains("[READ], 99thPercentileLatency(us), 99"), "{r}");
        assert!(r.contains("[READ], Return=OK, 100"), "{r}");
        assert!(r.contains("[UPDATE], Return=ERROR, 1"), "{r}");
        assert_eq!(m.errors(), 1);
        let svg = plot_svg("t", &m.timeline(), &m.read_p99_points());
        assert!(svg.starts_with("<svg") && svg.contains("polyline"));
        assert!(svg.contains("READ p99"), "{svg}");
    }

    /// The report without time series, byte for byte as YCSB-format parsers expect it.
    const GOLDEN: &str = "\
[OVERALL], RunTime(ms), 2000
[OVERALL], Throughput(ops/sec), 50.5
[READ], Operations, 100
[READ], AverageLatency(us), 50.5
[READ], MinLatency(us), 1
[READ], MaxLatency(us), 100
[READ], 50thPercentileLatency(us), 50
[READ], 95thPercentileLatency(us), 95
[READ], 99thPercentileLatency(us), 99
[READ], 99.9thPercentileLatency(us), 100
[READ], Return=OK, 100
[UPDATE], Operations, 1
[UPDATE], AverageLatency(us), 7.0
[UPDATE], MinLatency(us), 7
[UPDATE], MaxLatency(us), 7
[UPDATE], 50thPercentileLatency(us), 7
[UPDATE], 95thPercentileLatency(us), 7
[UPDATE], 99thPercentileLatency(us), 7
[UPDATE], 99.9thPercentileLatency(us), 7
[UPDATE], Return=ERROR, 1
";

    #[test]
    fn report_unchanged_without_timeseries() {
        let golden = sample;
        let mut off = Measurements::default();
        golden(&mut off);
        let mut zero = Measurements::default();
        zero.set_timeseries(0);
        golden(&mut zero);
        let mut on = Measurements::default();
        on.set_timeseries(1);
        golden(&mut on);
        let runtime = Duration::from_secs(2);
        assert_eq!(off.report(runtime), GOLDEN);
        assert_eq!(zero.report(runtime), GOLDEN);
        let with = on.report(runtime);
        let extra = with
            .strip_prefix(GOLDEN)
            .expect("time series follow the standard lines");
        assert_eq!(
            extra,
            "[READ-TS], 0, ops=99, p50=50, p99=99\n\
             [READ-TS], 1000, ops=1, p50=100, p99=100\n\
             [READ], P99OverTime(us), min=99, median=99, max=100\n\
             [UPDATE-TS], 0, ops=1, p50=7, p99=7\n\
             [UPDATE], P99OverTime(us), min=7, median=7, max=7\n"
        );
    }

    /// Reads in three 10 s intervals (0, 10, 30; none in 20), spread over their seconds and
    /// over two threads, with updates that must not leak into the reads' figures.
    fn three_intervals() -> Measurements {
        let mut a = Measurements::default();
        let mut b = Measurements::default();
        // [0, 10): 1..=100 µs → p50 50, p99 99.
        for i in 1..=100u64 {
            let m = if i % 2 == 0 { &mut a } else { &mut b };
            m.record(
                "READ",
                Duration::from_millis(i * 97),
                Duration::from_micros(i),
                "OK",
            );
            m.record(
                "UPDATE",
                Duration::from_millis(i * 97),
                Duration::from_micros(9000),
                "OK",
            );
        }
        // [10, 20): 101..=300 µs → p50 200 (100th of 200), p99 298 (198th).
        for i in 101..=300u64 {
            let m = if i % 3 == 0 { &mut a } else { &mut b };
            let at = Duration::from_millis(10_000 + (i - 101) * 49);
            m.record("READ", at, Duration::from_micros(i), "OK");
        }
        // [30, 40): one slow read.
        b.record(
            "READ",
            Duration::from_millis(39_999),
            Duration::from_micros(5000),
            "OK",
        );
        a.merge(b);
        a
    }

    #[test]
    fn per_interval_percentiles() {
        let m = three_intervals();
        assert_eq!(m.interval_secs(), DEFAULT_INTERVAL_SECS);
        let ts = m.timeseries();
        let stats = |s, ops, p50, p99| IntervalStats {
            start_s: s,
            ops,
            p50_us: p50,
            p99_us: p99,
        };
        assert_eq!(
            ts["READ"],
            vec![
                stats(0, 100, 50, 99),
                stats(10, 200, 200, 298),
                stats(30, 1, 5000, 5000)
            ]
        );
        assert_eq!(ts["UPDATE"], vec![stats(0, 100, 9000, 9000)]);
        assert_eq!(p99_over_time(&ts["READ"]), Some((99, 298, 5000)));
        assert_eq!(p99_over_time(&[]), None);

        // A 5 s interval splits the first ten seconds: reads i = 1..=51 end in [0, 5) (at
        // i·97 ms < 5 s), 52..=100 in [5, 10).
        let mut five = m.clone();
        five.set_timeseries(5);
        let ts = five.timeseries();
        assert_eq!(ts["READ"][0], stats(0, 51, 26, 51));
        assert_eq!(ts["READ"][1], stats(5, 49, 76, 100));
        assert_eq!(ts["READ"].last(), Some(&stats(35, 1, 5000, 5000)));
        assert_eq!(five.operations(), 401);
        assert!(five
            .report(Duration::from_secs(40))
            .contains("[READ-TS], 35000, ops=1, p50=5000, p99=5000\n"));
    }

    #[test]
    fn p99_over_time_summary() {
        let mut m = three_intervals();
        m.set_timeseries(10);
        let r = m.report(Duration::from_secs(40));
        assert!(r.contains("[READ-TS], 0, ops=100, p50=50, p99=99\n"), "{r}");
        assert!(
            r.contains("[READ-TS], 10000, ops=200, p50=200, p99=298\n"),
            "{r}"
        );
        assert!(
            r.contains("[READ-TS], 30000, ops=1, p50=5000, p99=5000\n"),
            "{r}"
        );
        assert!(!r.contains("[READ-TS], 20000"), "{r}");
        assert!(
            r.contains("[READ], P99OverTime(us), min=99, median=298, max=5000\n"),
            "{r}"
        );
        assert!(
            r.contains("[UPDATE], P99OverTime(us), min=9000, median=9000, max=9000\n"),
            "{r}"
        );
        // The whole run's figures still cover every read.
        assert!(r.contains("[READ], Operations, 301\n"), "{r}");
        // An even number of intervals: the lower middle p99 is the median.
        let series: Vec<IntervalStats> = [40, 10, 30, 20]
            .iter()
            .enumerate()
            .map(|(i, &p99)| IntervalStats {
                start_s: i as u32 * 10,
                ops: 1,
                p50_us: p99,
                p99_us: p99,
            })
            .collect();
        assert_eq!(p99_over_time(&series), Some((10, 20, 40)));
    }

    #[test]
    fn plot_draws_read_p99_only_with_reads() {
        let m = three_intervals();
        // Interval middles, the last clamped to the last second with operations (39).
        assert_eq!(m.read_p99_points(), vec![(5, 99), (15, 298), (35, 5000)]);
        assert!(plot_svg("t", &m.timeline(), &m.read_p99_points()).contains("READ p99"));
        let mut w = Measurements::default();
        w.record(
            "UPDATE",
            Duration::from_secs(3),
            Duration::from_micros(10),
            "OK",
        );
        assert!(w.read_p99_points().is_empty());
        let svg = plot_svg("t", &w.timeline(), &w.read_p99_points());
        assert!(
            svg.starts_with("<svg") && !svg.contains("READ p99"),
            "{svg}"
        );
    }
}
