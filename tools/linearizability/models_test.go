package main

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

func rec(model, op string, arg uint64, outcome string, call, ret int64) Record {
	return Record{Model: model, Row: "r", Op: op, Arg: arg, Outcome: outcome, InvokedNs: call, CompletedNs: ret}
}

func check(t *testing.T, model string, recs []Record) bool {
	t.Helper()
	m, err := ModelOf(model)
	if err != nil {
		t.Fatal(err)
	}
	return porcupine.CheckOperations(m, Operations(recs))
}

func TestAStaleReadOfARegisterIsNotLinearizable(t *testing.T) {
	w1 := rec("register", "write", 1, "ok", 0, 10)
	w2 := rec("register", "write", 2, "ok", 20, 30)
	read := rec("register", "read", 0, "ok", 40, 50)
	read.Value = 2
	if !check(t, "register", []Record{w1, w2, read}) {
		t.Fatal("reading the latest write must pass")
	}
	read.Value = 1
	if check(t, "register", []Record{w1, w2, read}) {
		t.Fatal("reading an overwritten value after the overwrite was acknowledged must fail")
	}
}

func TestAnUnknownWriteMayApplyLateOrNever(t *testing.T) {
	lost := rec("register", "write", 7, "unknown", 0, 5)
	late := rec("register", "read", 0, "ok", 100, 110)
	before := rec("register", "read", 0, "ok", 10, 20)
	before.Value = 0
	late.Value = 7
	if !check(t, "register", []Record{lost, before, late}) {
		t.Fatal("an unknown write may take effect after its caller gave up")
	}
	late.Value = 0
	if !check(t, "register", []Record{lost, before, late}) {
		t.Fatal("an unknown write may never take effect")
	}
	failed := rec("register", "read", 0, "fail", 1, 2)
	failed.Value = 99
	if !check(t, "register", []Record{lost, failed}) {
		t.Fatal("a failed read is dropped")
	}
}

func TestCompareAndSetAppliesExactlyWhenTheValueWasExpected(t *testing.T) {
	w := rec("cas", "write", 3, "ok", 0, 10)
	cas := rec("cas", "cas", 3, "ok", 20, 30)
	cas.New, cas.Applied = 4, true
	read := rec("cas", "read", 0, "ok", 40, 50)
	read.Value = 4
	if !check(t, "cas", []Record{w, cas, read}) {
		t.Fatal("an applied compare-and-set of the current value must pass")
	}
	cas.Applied = false
	read.Value = 3
	if check(t, "cas", []Record{w, cas, read}) {
		t.Fatal("a compare-and-set refused although the value was the expected one must fail")
	}
}

func TestADoubledOrLostIncrementIsNotLinearizable(t *testing.T) {
	a := rec("counter", "add", 1, "ok", 0, 10)
	a.Value = 1
	b := rec("counter", "add", 1, "ok", 20, 30)
	b.Value = 2
	read := rec("counter", "read", 0, "ok", 40, 50)
	read.Value = 2
	if !check(t, "counter", []Record{a, b, read}) {
		t.Fatal("two increments read as 2 must pass")
	}
	read.Value = 3
	if check(t, "counter", []Record{a, b, read}) {
		t.Fatal("an increment applied twice must fail")
	}
	read.Value = 1
	if check(t, "counter", []Record{a, b, read}) {
		t.Fatal("a lost increment must fail")
	}
}

func TestListsShowReorderedAndLostAppends(t *testing.T) {
	a := rec("list", "append", 5, "ok", 0, 10)
	a.List = []uint64{5}
	b := rec("list", "append", 9, "ok", 20, 30)
	b.List = []uint64{5, 9}
	read := rec("list", "read", 0, "ok", 40, 50)
	read.List = []uint64{5, 9}
	if !check(t, "list", []Record{a, b, read}) {
		t.Fatal("appends read in order must pass")
	}
	read.List = []uint64{9, 5}
	if check(t, "list", []Record{a, b, read}) {
		t.Fatal("reordered appends must fail")
	}
	read.List = []uint64{5}
	if check(t, "list", []Record{a, b, read}) {
		t.Fatal("a lost append must fail")
	}
	h := &History{Records: []Record{a, b, read}}
	if lost := LostWrites(h); len(lost) != 1 || lost[0].What != "append 9" {
		t.Fatalf("the lost append must be named: %+v", lost)
	}
}

func TestUnknownWritesNoAnswerShowedAreLeftOut(t *testing.T) {
	lost := rec("list", "append", 3, "unknown", 0, 5)
	applied := rec("list", "append", 4, "unknown", 1, 6)
	read := rec("list", "read", 0, "ok", 10, 20)
	read.List = []uint64{4}
	kept := Unobserved([]Record{lost, applied, read})
	if len(kept) != 2 || kept[0].Arg != 4 {
		t.Fatalf("only the append never seen goes: %+v", kept)
	}
	counter := []Record{rec("counter", "add", 1, "unknown", 0, 5)}
	if len(Unobserved(counter)) != 1 {
		t.Fatal("increments are all alike: none is left out")
	}
}

func TestCounterBoundsCatchAReadBeyondEveryInvokedIncrement(t *testing.T) {
	a := rec("counter", "add", 1, "ok", 0, 10)
	a.Value = 1
	u := rec("counter", "add", 1, "unknown", 20, 30)
	read := rec("counter", "read", 0, "ok", 40, 50)
	read.Value = 2
	if why := CounterBounds([]Record{a, u, read}); why != "" {
		t.Fatalf("the unknown increment may have applied: %s", why)
	}
	read.Value = 0
	if CounterBounds([]Record{a, u, read}) == "" {
		t.Fatal("a read below the increments acknowledged before it must fail")
	}
	read.Value = 3
	if CounterBounds([]Record{a, u, read}) == "" {
		t.Fatal("a read above every increment invoked before it must fail")
	}
}
