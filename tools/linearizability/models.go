package main

import (
	"fmt"
	"strconv"

	"github.com/anishathalye/porcupine"
)

// The sequential objects of the workloads, one per row (the history is already partitioned
// by row, so each model's state is one row's). Each Step accepts an unknown output whatever
// it is: an operation that never answered constrains nothing but the state it leaves.

// registerStep: writes of unique values and reads; 0 is the absent value.
func registerStep(state, input, output interface{}) (bool, interface{}) {
	s, in, out := state.(uint64), input.(Input), output.(Output)
	switch in.Op {
	case "write":
		return true, in.Arg
	case "read":
		return out.Value == s, s
	}
	return false, s
}

// casStep: a register with compare-and-set. An answered one applied exactly when the value
// was the expected one; an unknown one is linearized where it applies if it can, and its
// "never applied" case is its linearization after every other operation.
func casStep(state, input, output interface{}) (bool, interface{}) {
	s, in, out := state.(uint64), input.(Input), output.(Output)
	if in.Op != "cas" {
		return registerStep(state, input, output)
	}
	holds := s == in.Arg
	switch {
	case out.Unknown && holds:
		return true, in.New
	case out.Unknown:
		return true, s
	case out.Applied:
		return holds, in.New
	default:
		return !holds, s
	}
}

// counterStep: increments by one, each answering the new value, and reads.
func counterStep(state, input, output interface{}) (bool, interface{}) {
	s, in, out := state.(uint64), input.(Input), output.(Output)
	switch in.Op {
	case "add":
		return out.Unknown || out.Value == s+in.Arg, s + in.Arg
	case "read":
		return out.Value == s, s
	}
	return false, s
}

// listStep: appends of unique elements, each answering the new list, and reads of the list.
func listStep(state, input, output interface{}) (bool, interface{}) {
	s, in, out := state.(string), input.(Input), output.(Output)
	switch in.Op {
	case "append":
		next := strconv.FormatUint(in.Arg, 10)
		if s != "" {
			next = s + "," + next
		}
		return out.Unknown || out.List == next, next
	case "read":
		return out.List == s, s
	}
	return false, s
}

func describe(input, output interface{}) string {
	in, out := input.(Input), output.(Output)
	var answer string
	switch {
	case out.Unknown:
		answer = "?"
	case in.Op == "cas":
		answer = strconv.FormatBool(out.Applied)
	case in.Op == "append" || out.List != "":
		answer = "[" + out.List + "]"
	case in.Op == "write":
		answer = "ok"
	default:
		answer = strconv.FormatUint(out.Value, 10)
	}
	switch in.Op {
	case "cas":
		return fmt.Sprintf("cas(%d→%d) → %s", in.Arg, in.New, answer)
	case "read":
		return "read → " + answer
	default:
		return fmt.Sprintf("%s(%d) → %s", in.Op, in.Arg, answer)
	}
}

// ModelOf is the Porcupine model of a workload's rows.
func ModelOf(name string) (porcupine.Model, error) {
	m := porcupine.Model{DescribeOperation: describe}
	switch name {
	case "register":
		m.Init, m.Step = func() interface{} { return uint64(0) }, registerStep
	case "cas":
		m.Init, m.Step = func() interface{} { return uint64(0) }, casStep
	case "counter":
		m.Init, m.Step = func() interface{} { return uint64(0) }, counterStep
	case "list":
		m.Init, m.Step = func() interface{} { return "" }, listStep
	default:
		return m, fmt.Errorf("unknown model %q", name)
	}
	return m, nil
}
