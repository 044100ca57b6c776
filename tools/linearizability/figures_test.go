package main

import (
	"sort"
	"testing"
)

// A row written only before a fault's heal (a list of an earlier generation) does not count as
// a row that never became writable after it; a row written after the heal and never answered
// does. A row written before the fault is measured from the heal; a row first written after
// it (the next list) from its first write.
func TestWritableCountsTheRowsWrittenInTheWindow(t *testing.T) {
	const s = int64(1_000_000_000)
	h := &History{StartUnixNs: 0, Records: []Record{
		{Row: "old", Op: "append", Outcome: "ok", InvokedNs: 1 * s, CompletedNs: 1*s + 1},
		{Row: "old", Op: "append", Outcome: "ok", InvokedNs: 10*s + 1, CompletedNs: 11*s - 1},
		{Row: "waiting", Op: "append", Outcome: "ok", InvokedNs: 2 * s, CompletedNs: 3 * s},
		{Row: "waiting", Op: "append", Outcome: "ok", InvokedNs: 12 * s, CompletedNs: 13 * s},
		{Row: "new", Op: "append", Outcome: "ok", InvokedNs: 14 * s, CompletedNs: 14*s + s/2},
		{Row: "stuck", Op: "write", Outcome: "unknown", InvokedNs: 12 * s, CompletedNs: 20 * s},
	}}
	faults := []Fault{{Kind: "k", InjectedUnixNs: 10 * s, HealedUnixNs: 11 * s}}
	figs := PerFault(h, faults, map[string]int64{}, nil)
	var k *Figures
	for _, f := range figs {
		if f.Kind == "k" {
			k = f
		}
	}
	if k == nil {
		t.Fatal("no figures for the fault")
	}
	if k.RowsNeverWritable != 1 {
		t.Fatalf("rows never writable: %d, want 1 (the stuck row only)", k.RowsNeverWritable)
	}
	sort.Slice(k.WritableDelays, func(i, j int) bool { return k.WritableDelays[i] < k.WritableDelays[j] })
	if len(k.WritableDelays) != 2 || k.WritableDelays[0] != 5e8 || k.WritableDelays[1] != 2e9 {
		t.Fatalf("writable delays %v, want [500ms 2s]", k.WritableDelays)
	}
}
