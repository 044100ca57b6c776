package main

import "fmt"

// CounterBounds is the check of Jepsen's counter checker, for a counter row whose
// linearizability search did not end: every value answered (a read's, or an increment's new
// value) must be at least the increments acknowledged before the operation was invoked (plus
// itself, for an increment) and at most the increments invoked before it completed, unknown
// ones included. Weaker than linearizability (it does not relate two reads), but linear in
// the history and blind to how many increments have unknown outcomes. Answers the first
// violation, or "".
func CounterBounds(records []Record) string {
	for _, r := range records {
		if r.Outcome != "ok" || (r.Op != "read" && r.Op != "add") {
			continue
		}
		var lower, upper uint64
		for _, a := range records {
			if a.Op != "add" || a.Outcome == "fail" {
				continue
			}
			if a.Outcome == "ok" && a.CompletedNs < r.InvokedNs {
				lower++
			}
			if a.InvokedNs <= r.CompletedNs {
				upper++
			}
		}
		if r.Op == "add" {
			lower++
		}
		if r.Value < lower || r.Value > upper {
			return fmt.Sprintf("%s at %.3fs answered %d, outside [%d, %d]", r.Op, float64(r.InvokedNs)/1e9, r.Value, lower, upper)
		}
	}
	return ""
}
