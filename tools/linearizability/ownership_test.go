package main

import "testing"

func TestLogLinesOfBothFormatsAreRead(t *testing.T) {
	json := `{"timestamp":"2026-01-01T00:00:00.000001Z","level":"INFO","fields":{"message":"region open","region":"t,00000001.00000002","server":"198.18.0.21:16020:17","epoch":4,"since_us":1700000000000001,"recovered":0,"ms":3},"target":"strata_cluster_node::host"}`
	ev, ok := parseLogLine(json)
	if !ok || ev.message != "region open" || ev.region != "t,00000001.00000002" || ev.server != "198.18.0.21:16020:17" || ev.at != 1700000000000001 {
		t.Fatalf("json: %+v %v", ev, ok)
	}
	compact := `2026-01-01T00:00:00.000001Z  INFO strata_cluster_node::host: region closed region="t,00000001.00000002" server=198.18.0.21:16020:17 until_us=1700000000000009`
	ev, ok = parseLogLine(compact)
	if !ok || ev.message != "region closed" || ev.region != "t,00000001.00000002" || ev.at != 1700000000000009 {
		t.Fatalf("compact: %+v %v", ev, ok)
	}
	if _, ok := parseLogLine(`2026-01-01T00:00:00Z  INFO strata_cluster_node::serve: serving 4 regions`); ok {
		t.Fatal("other lines are skipped")
	}
}

func TestARegionOpenedElsewhereBeforeItsHolderStoppedIsFound(t *testing.T) {
	events := []logEvent{
		{message: "region open", region: "r", server: "a", at: 100},
		{message: "incarnation stopped serving", server: "a", at: 200},
		{message: "region open", region: "r", server: "b", at: 250},
		{message: "region closed", region: "r", server: "b", at: 300},
		{message: "region open", region: "r", server: "c", at: 300},
		// Opened by `a`'s successor after `b` closed it: a name of its own, no overlap.
		{message: "region open", region: "r", server: "a2", at: 400},
	}
	if found := Overlaps(Intervals(events, nil)); len(found) != 1 || found[0][0].Server != "c" || found[0][1].Server != "a2" {
		t.Fatalf("c never closed r, so a2 serving it overlaps: %+v", found)
	}
	events = append(events, logEvent{message: "region closed", region: "r", server: "c", at: 350})
	if found := Overlaps(Intervals(events, nil)); len(found) != 0 {
		t.Fatalf("intervals that only touch do not overlap: %+v", found)
	}
	early := append(events,
		logEvent{message: "region open", region: "r", server: "d", at: 150},
		logEvent{message: "region closed", region: "r", server: "d", at: 180})
	if found := Overlaps(Intervals(early, nil)); len(found) != 1 || found[0][0].Server != "a" || found[0][1].Server != "d" {
		t.Fatalf("d opened r while a's gate was open: %+v", found)
	}
}

// A killed server logs no close: its intervals end when the harness killed it, so a region
// reopened elsewhere after the kill is no overlap, and one reopened before it is.
func TestAKilledServersIntervalsEndAtTheKill(t *testing.T) {
	events := []logEvent{
		{message: "region open", region: "r", server: "a:1", at: 100, host: "rs1"},
		{message: "region open", region: "r", server: "b:1", at: 300, host: "rs2"},
		// rs1 restarted as a new incarnation, which opens r after b closed it.
		{message: "region closed", region: "r", server: "b:1", at: 400, host: "rs2"},
		{message: "region open", region: "r", server: "a:2", at: 500, host: "rs1"},
	}
	if found := Overlaps(Intervals(events, nil)); len(found) != 2 {
		t.Fatalf("without the kill a:1 serves r for ever: %+v", found)
	}
	kills := Kills([]Fault{{Kind: "rs-killed", Target: "rs1", InjectedUnixNs: 150_000, InEffectUnixNs: 200_000}})
	if found := Overlaps(Intervals(events, kills)); len(found) != 0 {
		t.Fatalf("a:1 died at 200: %+v", found)
	}
	late := Kills([]Fault{{Kind: "rs-killed", Target: "rs1", InEffectUnixNs: 350_000}})
	if found := Overlaps(Intervals(events, late)); len(found) != 1 || found[0][0].Server != "a:1" || found[0][1].Server != "b:1" {
		t.Fatalf("b opened r while a:1 still lived: %+v", found)
	}
}
