package main

// LostWrite is an acknowledged write that the row's final read does not show.
type LostWrite struct {
	Row     string
	What    string
	AckedNs int64
}

// LostWrites compares each list and counter row's last answered read with the writes
// acknowledged before it: an acknowledged append whose element is missing, or an
// acknowledged increment whose answered value exceeds the final count, was lost. (For
// registers a lost write is not told apart from an overwritten one: the linearizability
// check covers them.)
func LostWrites(h *History) []LostWrite {
	rows, byRow := ByRow(h.Records)
	var lost []LostWrite
	for _, row := range rows {
		recs := byRow[row]
		final := -1
		for i, r := range recs {
			if r.Op == "read" && r.Outcome == "ok" && (final < 0 || r.InvokedNs > recs[final].InvokedNs) {
				final = i
			}
		}
		if final < 0 {
			continue
		}
		last := recs[final]
		inList := map[uint64]bool{}
		for _, e := range last.List {
			inList[e] = true
		}
		for _, r := range recs {
			if r.Outcome != "ok" || r.CompletedNs >= last.InvokedNs {
				continue
			}
			switch {
			case r.Op == "append" && !inList[r.Arg]:
				lost = append(lost, LostWrite{row, "append " + u64(r.Arg), r.CompletedNs})
			case r.Op == "add" && r.Value > last.Value:
				lost = append(lost, LostWrite{row, "increment to " + u64(r.Value), r.CompletedNs})
			}
		}
	}
	return lost
}
