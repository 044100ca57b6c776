package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// Fault is one line of the harness's fault log: a fault kind injected and healed. Target
// names the host it hit, when the kind picks one; InEffectUnixNs is when the injection's
// commands had returned (a killed process had been reaped), 0 in logs written before it.
type Fault struct {
	Kind           string `json:"kind"`
	Target         string `json:"target"`
	InjectedUnixNs int64  `json:"injected_unix_ns"`
	InEffectUnixNs int64  `json:"in_effect_unix_ns"`
	HealedUnixNs   int64  `json:"healed_unix_ns"`
}

// Kills answers, per host whose region server a fault killed (kind rs-killed), the Unix
// microseconds at which it was dead: its log is <host>.log, and no interval it logged before
// that lasts past it.
func Kills(faults []Fault) map[string][]int64 {
	kills := map[string][]int64{}
	for _, f := range faults {
		if f.Kind != "rs-killed" || f.Target == "" {
			continue
		}
		at := f.InEffectUnixNs
		if at == 0 {
			// A log without it: the kill followed its injection within milliseconds, and
			// the regions reopened elsewhere only after the lease, seconds later.
			at = f.InjectedUnixNs
		}
		kills[f.Target] = append(kills[f.Target], at/1000)
	}
	for _, k := range kills {
		sort.Slice(k, func(i, j int) bool { return k[i] < k[j] })
	}
	return kills
}

// ReadFaults reads the harness's fault log (JSON lines).
func ReadFaults(path string) ([]Fault, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var faults []Fault
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if strings.TrimSpace(scanner.Text()) == "" {
			continue
		}
		var ft Fault
		if err := json.Unmarshal(scanner.Bytes(), &ft); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		faults = append(faults, ft)
	}
	sort.Slice(faults, func(i, j int) bool { return faults[i].InjectedUnixNs < faults[j].InjectedUnixNs })
	return faults, scanner.Err()
}

// Figures of one fault kind, over every time it was injected.
type Figures struct {
	Kind              string
	Times             int
	Attempted, Acked  int
	Unknown           int
	Anomalies         int
	LostAcked         int
	WritableDelays    []time.Duration // per row and injection: first answered write after the heal
	RowsNeverWritable int
}

func isWrite(op string) bool { return op != "read" }

// PerFault attributes each operation to the fault whose window (from its injection to the
// next one's) it was invoked in, and measures per row written between the heal and the
// window's end the time from the heal to the first answered write completed after it (the
// row was writable again then; rows are written every few hundred milliseconds, which bounds
// how late this is seen). A row the workload first writes after the heal (a list's next
// generation) is measured from that first write's invocation: it was not waiting before.
func PerFault(h *History, faults []Fault, anomalousRows map[string]int64, lost []LostWrite) []*Figures {
	// Operations before the first fault (the workload starts a few seconds earlier) are a
	// window of their own.
	faults = append([]Fault{{Kind: "(before faults)", InjectedUnixNs: h.StartUnixNs, HealedUnixNs: h.StartUnixNs}}, faults...)
	byKind := map[string]*Figures{}
	var kinds []string
	mono := func(unixNs int64) int64 { return unixNs - h.StartUnixNs }
	firstWrite := map[string]int64{}
	for _, r := range h.Records {
		if t, seen := firstWrite[r.Row]; isWrite(r.Op) && (!seen || r.InvokedNs < t) {
			firstWrite[r.Row] = r.InvokedNs
		}
	}
	for i, f := range faults {
		fig, ok := byKind[f.Kind]
		if !ok {
			fig = &Figures{Kind: f.Kind}
			byKind[f.Kind] = fig
			kinds = append(kinds, f.Kind)
		}
		fig.Times++
		start, end := mono(f.InjectedUnixNs), int64(1<<62)
		if i+1 < len(faults) {
			end = mono(faults[i+1].InjectedUnixNs)
		}
		healed := mono(f.HealedUnixNs)
		first := map[string]int64{}
		rows := map[string]bool{}
		for _, r := range h.Records {
			// The rows written from the heal to the window's end: a row the workload no longer
			// writes (a list of an earlier generation) is not one that never became writable.
			if isWrite(r.Op) && r.InvokedNs >= healed && r.InvokedNs < end {
				rows[r.Row] = true
			}
			if r.InvokedNs >= start && r.InvokedNs < end {
				fig.Attempted++
				switch r.Outcome {
				case "ok":
					fig.Acked++
				case "unknown":
					fig.Unknown++
				}
			}
			if isWrite(r.Op) && r.Outcome == "ok" && r.CompletedNs >= healed && r.InvokedNs < end {
				if t, seen := first[r.Row]; !seen || r.CompletedNs < t {
					first[r.Row] = r.CompletedNs
				}
			}
		}
		for row := range rows {
			if t, ok := first[row]; ok {
				from := max(healed, firstWrite[row])
				fig.WritableDelays = append(fig.WritableDelays, time.Duration(t-from))
			} else {
				fig.RowsNeverWritable++
			}
		}
		for _, at := range anomalousRows {
			if at >= start && at < end {
				fig.Anomalies++
			}
		}
		for _, l := range lost {
			if l.AckedNs >= start && l.AckedNs < end {
				fig.LostAcked++
			}
		}
	}
	out := make([]*Figures, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, byKind[k])
	}
	return out
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1)+0.5)]
}

// PrintFigures writes the per-fault-kind table.
func PrintFigures(w io.Writer, figs []*Figures) {
	fmt.Fprintf(w, "%-20s %5s %9s %7s %7s %9s %9s %14s %12s\n", "fault", "times", "attempted", "acked",
		"unknown", "anomalies", "lost-ack", "writable-p50", "writable-max")
	for _, f := range figs {
		worst := fmt.Sprintf("%.2fs", quantile(f.WritableDelays, 1).Seconds())
		if f.RowsNeverWritable > 0 {
			worst = fmt.Sprintf("never(%d rows)", f.RowsNeverWritable)
		}
		fmt.Fprintf(w, "%-20s %5d %9d %7d %7d %9d %9d %13.2fs %12s\n", f.Kind, f.Times, f.Attempted, f.Acked,
			f.Unknown, f.Anomalies, f.LostAcked, quantile(f.WritableDelays, 0.5).Seconds(), worst)
	}
}
