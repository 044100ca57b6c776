package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Record is one line of a history written by `strata bench history`.
type Record struct {
	Process     int      `json:"process"`
	Model       string   `json:"model"`
	Row         string   `json:"row"`
	Op          string   `json:"op"`
	Arg         uint64   `json:"arg"`
	New         uint64   `json:"new"`
	Outcome     string   `json:"outcome"`
	Applied     bool     `json:"applied"`
	Value       uint64   `json:"value"`
	List        []uint64 `json:"list"`
	InvokedNs   int64    `json:"invoked_ns"`
	CompletedNs int64    `json:"completed_ns"`
}

// History is a recorded run: its seed, the wall time its monotonic clock starts at, and its
// operations in file order.
type History struct {
	Seed        uint64
	StartUnixNs int64
	Records     []Record
}

type header struct {
	History     *int   `json:"history"`
	Seed        uint64 `json:"seed"`
	StartUnixNs int64  `json:"start_unix_ns"`
}

// ReadHistory reads a history file.
func ReadHistory(path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := &History{}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for scanner.Scan() {
		line++
		text := scanner.Bytes()
		if len(text) == 0 {
			continue
		}
		if line == 1 {
			var hd header
			if err := json.Unmarshal(text, &hd); err != nil || hd.History == nil {
				return nil, fmt.Errorf("%s: the first line is not a history header", path)
			}
			h.Seed, h.StartUnixNs = hd.Seed, hd.StartUnixNs
			continue
		}
		var r Record
		if err := json.Unmarshal(text, &r); err != nil {
			// A run killed mid-line leaves a torn last line.
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		h.Records = append(h.Records, r)
	}
	return h, scanner.Err()
}

// Input is what an operation asked, as the models see it.
type Input struct {
	Op  string
	Arg uint64
	New uint64
}

// Output is what it answered; Unknown when it never answered (a write that may or may not
// have taken effect).
type Output struct {
	Unknown bool
	Applied bool
	Value   uint64
	List    string
}

// listString is a list as the list model's state: elements joined by commas.
func listString(l []uint64) string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = strconv.FormatUint(e, 10)
	}
	return strings.Join(parts, ",")
}

// Operations turns a row's records into Porcupine's operations: failed reads (no answer, no
// effect) are left out; an unknown write completes at infinity, so it may be linearized
// anywhere after its invocation, which includes after every other operation: never.
func Operations(records []Record) []porcupine.Operation {
	var ops []porcupine.Operation
	for _, r := range records {
		if r.Outcome == "fail" {
			continue
		}
		out := Output{Unknown: r.Outcome == "unknown", Applied: r.Applied, Value: r.Value, List: listString(r.List)}
		ret := r.CompletedNs
		if out.Unknown {
			ret = math.MaxInt64
		}
		ops = append(ops, porcupine.Operation{
			ClientId: r.Process,
			Input:    Input{Op: r.Op, Arg: r.Arg, New: r.New},
			Call:     r.InvokedNs,
			Output:   out,
			Return:   ret,
		})
	}
	return ops
}

// Unobserved leaves out of a register or list row's records the unknown writes whose value
// no answer ever showed. Such a write can be linearized after every other operation (nothing
// after it saw it), so the row is linearizable with it exactly when it is without it; left
// in, each one doubles the states the search may visit. (Not so for compare-and-set rows, where
// a refused compare-and-set observes a value without showing it, nor for counters, whose
// increments are all alike.)
func Unobserved(records []Record) []Record {
	if len(records) == 0 || (records[0].Model != "register" && records[0].Model != "list") {
		return records
	}
	seen := map[uint64]bool{}
	for _, r := range records {
		if r.Outcome != "ok" {
			continue
		}
		if r.Op == "read" && r.Model == "register" {
			seen[r.Value] = true
		}
		for _, e := range r.List {
			seen[e] = true
		}
	}
	kept := records[:0:0]
	for _, r := range records {
		if r.Outcome == "unknown" && !seen[r.Arg] {
			continue
		}
		kept = append(kept, r)
	}
	return kept
}

// ByRow groups records by row, rows sorted.
func ByRow(records []Record) ([]string, map[string][]Record) {
	rows := map[string][]Record{}
	for _, r := range records {
		rows[r.Row] = append(rows[r.Row], r)
	}
	names := make([]string, 0, len(rows))
	for name := range rows {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, rows
}

// denseClients renumbers processes 0..n-1 per row (the visualization draws one line each).
func denseClients(ops []porcupine.Operation) {
	ids := map[int]int{}
	for i := range ops {
		id, ok := ids[ops[i].ClientId]
		if !ok {
			id = len(ids)
			ids[ops[i].ClientId] = id
		}
		ops[i].ClientId = id
	}
}
