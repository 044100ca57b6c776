// Command linearizability checks a history recorded by `strata bench history` for
// linearizability per row with Porcupine (register, compare-and-set register, counter and
// list models), counts acknowledged writes the final reads lost, checks from the region
// servers' logs that no region was served by two servers at once, and prints the figures
// per fault kind of `scripts/faults.sh` (docs/rfcs/0021-fault-harness.md).
//
//	linearizability -history H [-faults F] [-logs A,B,...] [-clock-shifts C] [-out DIR] [-timeout 2m]
//	    [-max-unknown 8] [-max-memory-mib 3072]
//
// Exit status: 0 when nothing was found, 1 on any anomaly, 2 when the input cannot be read or
// a search passed the memory bound.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "linearizability: "+format+"\n", args...)
	os.Exit(2)
}

// firstUnlinearized is the invocation time of the earliest operation that no longest
// partial linearization contains: where the row's history stopped making sense.
func firstUnlinearized(ops []porcupine.Operation, info porcupine.LinearizationInfo) int64 {
	included := map[int]bool{}
	best := 0
	for _, partition := range info.PartialLinearizations() {
		for _, lin := range partition {
			if len(lin) > best {
				best = len(lin)
				included = map[int]bool{}
				for _, i := range lin {
					included[i] = true
				}
			}
		}
	}
	at := int64(-1)
	for i, op := range ops {
		if !included[i] && (at < 0 || op.Call < at) {
			at = op.Call
		}
	}
	return at
}

func main() {
	historyPath := flag.String("history", "", "the history (JSON lines of `strata bench history`)")
	faultsPath := flag.String("faults", "", "the harness's fault log (JSON lines), for figures per fault kind")
	logs := flag.String("logs", "", "region servers' logs, comma-separated, for the check that no region was served twice")
	clockPath := flag.String("clock-shifts", "", "the harness's clock log (JSON lines): where a region server's clock was stepped, for the logs' times")
	outDir := flag.String("out", ".", "where visualizations of non-linearizable rows go")
	timeout := flag.Duration("timeout", 2*time.Minute, "longest search per row (then the row is inconclusive)")
	maxMemory := flag.Uint64("max-memory-mib", 3072, "heap size at which the check stops (status 2)")
	maxUnknown := flag.Int("max-unknown", 8, "most writes with unknown outcomes a row may have for the search (each may double its memory); a row with more is not searched")
	flag.Parse()
	if *historyPath == "" {
		fail("-history is required")
	}
	guardMemory(*maxMemory << 20)
	h, err := ReadHistory(*historyPath)
	if err != nil {
		fail("%v", err)
	}
	bad := 0
	anomalous := map[string]int64{}
	rows, byRow := ByRow(h.Records)
	inconclusive := 0
	for _, row := range rows {
		recs := byRow[row]
		model, err := ModelOf(recs[0].Model)
		if err != nil {
			fail("row %s: %v", row, err)
		}
		ops := Operations(Unobserved(recs))
		denseClients(ops)
		// The plain search first: the verbose one keeps every partial linearization, which
		// took gigabytes on rows of thousands of operations.
		unknown := 0
		for _, op := range ops {
			if op.Return == math.MaxInt64 {
				unknown++
			}
		}
		result := porcupine.Unknown
		searching.Store(row)
		if unknown <= *maxUnknown {
			result = porcupine.CheckOperationsTimeout(model, ops, *timeout)
		}
		switch result {
		case porcupine.Illegal:
			bad++
			_, info := porcupine.CheckOperationsVerbose(model, ops, *timeout)
			anomalous[row] = firstUnlinearized(ops, info)
			page := filepath.Join(*outDir, "linearizability-"+strings.ReplaceAll(row, "/", "_")+".html")
			if err := porcupine.VisualizePath(model, info, page); err != nil {
				page = "(no visualization: " + err.Error() + ")"
			}
			fmt.Printf("NOT LINEARIZABLE: row %s (%s, %d operations), seed %d: %s\n", row, recs[0].Model, len(ops), h.Seed, page)
		case porcupine.Unknown:
			inconclusive++
			if unknown > *maxUnknown {
				fmt.Printf("inconclusive: row %s (%s, %d operations): not searched, %d writes with unknown outcomes", row, recs[0].Model, len(ops), unknown)
			} else {
				fmt.Printf("inconclusive: row %s (%s, %d operations): no answer within %v", row, recs[0].Model, len(ops), *timeout)
			}
			if recs[0].Model != "counter" {
				fmt.Println()
				break
			}
			if why := CounterBounds(recs); why != "" {
				bad++
				anomalous[row] = 0
				fmt.Printf("; COUNTER OUT OF BOUNDS, seed %d: %s\n", h.Seed, why)
			} else {
				fmt.Println("; the counter's bounds check passed")
			}
		}
	}
	lost := LostWrites(h)
	for _, l := range lost {
		fmt.Printf("LOST ACKNOWLEDGED WRITE: row %s, %s (acknowledged at %.3fs), seed %d\n", l.Row, l.What, float64(l.AckedNs)/1e9, h.Seed)
	}
	fmt.Printf("linearizability: %d rows, %d operations: %d not linearizable, %d inconclusive, %d lost acknowledged writes\n",
		len(rows), len(h.Records), bad, inconclusive, len(lost))
	// The fault log: figures per kind, and where the harness killed a region server.
	var faults []Fault
	if *faultsPath != "" {
		if faults, err = ReadFaults(*faultsPath); err != nil {
			fail("%v", err)
		}
	}
	overlaps := 0
	if *logs != "" {
		var shifts []ClockShift
		if *clockPath != "" {
			if shifts, err = ReadClockShifts(*clockPath); err != nil {
				fail("%v", err)
			}
		}
		intervals, err := ReadIntervals(strings.Split(*logs, ","), shifts, Kills(faults))
		if err != nil {
			fail("%v", err)
		}
		found := Overlaps(intervals)
		overlaps = len(found)
		for _, pair := range found {
			a, b := pair[0], pair[1]
			fmt.Printf("REGION SERVED TWICE: %s by %s [%d, %s) and by %s [%d, %s) (Unix µs), seed %d\n", a.Region,
				a.Server, a.Since, until(a.Until), b.Server, b.Since, until(b.Until), h.Seed)
		}
		fmt.Printf("regions: %d serving intervals, %d overlapping pairs\n", len(intervals), overlaps)
	}
	if *faultsPath != "" {
		PrintFigures(os.Stdout, PerFault(h, faults, anomalous, lost))
	}
	if bad > 0 || len(lost) > 0 || overlaps > 0 {
		fmt.Printf("FAILED (seed %d)\n", h.Seed)
		os.Exit(1)
	}
}

func until(t int64) string {
	if t == 1<<63-1 {
		return "still serving"
	}
	return strconv.FormatInt(t, 10)
}
