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
	if found := Overlaps(Intervals(events)); len(found) != 1 || found[0][0].Server != "c" || found[0][1].Server != "a2" {
		t.Fatalf("c never closed r, so a2 serving it overlaps: %+v", found)
	}
	events = append(events, logEvent{message: "region closed", region: "r", server: "c", at: 350})
	if found := Overlaps(Intervals(events)); len(found) != 0 {
		t.Fatalf("intervals that only touch do not overlap: %+v", found)
	}
	early := append(events,
		logEvent{message: "region open", region: "r", server: "d", at: 150},
		logEvent{message: "region closed", region: "r", server: "d", at: 180})
	if found := Overlaps(Intervals(early)); len(found) != 1 || found[0][0].Server != "a" || found[0][1].Server != "d" {
		t.Fatalf("d opened r while a's gate was open: %+v", found)
	}
}
