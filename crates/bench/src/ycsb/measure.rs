//! Latency and return-code bookkeeping per operation kind, in YCSB's output format, plus a
//! per-second timeline for progress lines and plots.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// Measurements of one thread (merged at the end).
#[derive(Default, Clone)]
pub struct Measurements {
    /// Per operation kind: latencies in µs.
    latencies: BTreeMap<&'static str, Vec<u32>>,
    /// Per operation kind: return code → count.
    returns: BTreeMap<&'static str, BTreeMap<String, u64>>,
    /// Per second of the run: (operations, latencies in µs).
    timeline: BTreeMap<u32, Vec<u32>>,
}

impl Measurements {
    /// Records one operation of `kind` that ended `at` into the run, took `took`, and
    /// returned `code` (`OK`, `NOT_FOUND`, `ERROR`).
    pub fn record(&mut self, kind: &'static str, at: Duration, took: Duration, code: &str) {
        let us = u32::try_from(took.as_micros()).unwrap_or(u32::MAX);
        self.latencies.entry(kind).or_default().push(us);
        *self
            .returns
            .entry(kind)
            .or_default()
            .entry(code.to_string())
            .or_default() += 1;
        self.timeline
            .entry(at.as_secs() as u32)
            .or_default()
            .push(us);
    }

    /// Adds another thread's measurements.
    pub fn merge(&mut self, other: Measurements) {
        for (k, v) in other.latencies {
            self.latencies.entry(k).or_default().extend(v);
        }
        for (k, v) in other.returns {
            let e = self.returns.entry(k).or_default();
            for (code, n) in v {
                *e.entry(code).or_default() += n;
            }
        }
        for (s, v) in other.timeline {
            self.timeline.entry(s).or_default().extend(v);
        }
    }

    /// Operations recorded.
    pub fn operations(&self) -> u64 {
        self.latencies.values().map(|v| v.len() as u64).sum()
    }

    /// Operations that returned `ERROR`.
    pub fn errors(&self) -> u64 {
        self.returns.values().filter_map(|m| m.get("ERROR")).sum()
    }

    /// YCSB's final report.
    pub fn report(&mut self, runtime: Duration) -> String {
        let mut out = String::new();
        let ms = runtime.as_millis().max(1);
        let _ = writeln!(out, "[OVERALL], RunTime(ms), {ms}");
        let _ = writeln!(
            out,
            "[OVERALL], Throughput(ops/sec), {:.1}",
            self.operations() as f64 * 1000.0 / ms as f64
        );
        for (kind, lat) in &mut self.latencies {
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
                    percentile(lat, p)
                );
            }
            for (code, count) in self.returns.get(kind).into_iter().flatten() {
                let _ = writeln!(out, "[{kind}], Return={code}, {count}");
            }
        }
        out
    }

    /// Per second: (second, operations, p99 µs).
    pub fn timeline(&self) -> Vec<(u32, usize, u32)> {
        self.timeline
            .iter()
            .map(|(s, v)| {
                let mut v = v.clone();
                v.sort_unstable();
                (*s, v.len(), percentile(&v, 0.99))
            })
            .collect()
    }
}

/// The `p` quantile of sorted samples.
pub fn percentile(sorted: &[u32], p: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// An SVG chart of throughput (ops/s) and p99 latency (ms) per second.
pub fn plot_svg(title: &str, timeline: &[(u32, usize, u32)]) -> String {
    let (w, h, pad) = (800.0, 360.0, 50.0);
    let max_s = timeline.last().map_or(1, |t| t.0.max(1)) as f64;
    let max_ops = timeline.iter().map(|t| t.1).max().unwrap_or(1).max(1) as f64;
    let max_p99 = timeline.iter().map(|t| t.2).max().unwrap_or(1).max(1) as f64 / 1000.0;
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
<polyline fill=\"none\" stroke=\"firebrick\" stroke-width=\"1.5\" points=\"{p99}\"/></svg>\n",
        b = h - pad,
        r = w - pad,
        lb = h - pad + 18.0,
        t = pad - 8.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_has_ycsb_lines() {
        let mut m = Measurements::default();
        for i in 1..=100u64 {
            m.record(
                "READ",
                Duration::from_millis(i * 10),
                Duration::from_micros(i),
                "OK",
            );
        }
        m.record("UPDATE", Duration::ZERO, Duration::from_micros(7), "ERROR");
        let r = m.report(Duration::from_secs(2));
        assert!(r.contains("[OVERALL], Throughput(ops/sec), 50.5"), "{r}");
        assert!(r.contains("[READ], 99thPercentileLatency(us), 99"), "{r}");
        assert!(r.contains("[READ], Return=OK, 100"), "{r}");
        assert!(r.contains("[UPDATE], Return=ERROR, 1"), "{r}");
        assert_eq!(m.errors(), 1);
        let svg = plot_svg("t", &m.timeline());
        assert!(svg.starts_with("<svg") && svg.contains("polyline"));
    }
}
