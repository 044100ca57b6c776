package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A region server logs, per region it serves, `region open` with `since_us` (wall time just
// before the region could take requests) and `region closed` with `until_us` (after it could
// not any more), and per incarnation `incarnation stopped serving` with `until_us` (when its
// lease gate closed: no request was admitted from then on). Times are microseconds since the
// Unix epoch; every process of the harness runs on one machine, so their wall clocks agree,
// except where the harness stepped a server's clock (clock shifts: those lines' times are
// taken back to the real clock).

// Interval is one server's service of one region: [Since, Until) in Unix microseconds.
type Interval struct {
	Region, Server string
	Since, Until   int64
}

type logEvent struct {
	message, region, server string
	at                      int64
	// The host whose log the line is from (the log's name without .log), for its kills.
	host string
}

// parseLogLine reads one line of a region server's log, JSON (`--log-format json`) or the
// compact format (`key=value` fields after the message); ok is false for other lines.
func parseLogLine(line string) (logEvent, bool) {
	var ev logEvent
	if strings.HasPrefix(line, "{") {
		var j struct {
			Fields map[string]interface{} `json:"fields"`
		}
		if json.Unmarshal([]byte(line), &j) != nil || j.Fields == nil {
			return ev, false
		}
		str := func(k string) string { s, _ := j.Fields[k].(string); return s }
		num := func(k string) int64 { f, _ := j.Fields[k].(float64); return int64(f) }
		ev = logEvent{message: str("message"), region: str("region"), server: str("server")}
		ev.at = num("since_us") + num("until_us")
	} else {
		for _, m := range []string{"region open", "region closed", "incarnation stopped serving"} {
			if strings.Contains(line, " "+m+" ") || strings.HasSuffix(line, " "+m) {
				ev.message = m
				break
			}
		}
		if ev.message == "" {
			return ev, false
		}
		for _, tok := range strings.Fields(line) {
			k, v, found := strings.Cut(tok, "=")
			if !found {
				continue
			}
			v = strings.Trim(v, `"`)
			switch k {
			case "region":
				ev.region = v
			case "server":
				ev.server = v
			case "since_us", "until_us":
				ev.at, _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	switch ev.message {
	case "region open", "region closed":
		return ev, ev.region != "" && ev.server != "" && ev.at > 0
	case "incarnation stopped serving":
		return ev, ev.server != "" && ev.at > 0
	}
	return ev, false
}

// ReadIntervals reads the logs and reconstructs every serving interval. An interval ends at
// the region's next close on that server, when that server's incarnation stopped serving, or
// when the harness killed the process that logged it (kills: per host, see Kills), whichever
// is first; without any (a process killed outside the harness), it never ends. The times of
// lines written while a shift stepped their server's clock are corrected by its offset.
func ReadIntervals(paths []string, shifts []ClockShift, kills map[string][]int64) ([]Interval, error) {
	var events []logEvent
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		scanner := bufio.NewScanner(f)
		scanner.Buffer(make([]byte, 1<<20), 16<<20)
		var offset int64
		host := strings.TrimSuffix(filepath.Base(p), ".log")
		for scanner.Scan() {
			line := scanner.Text()
			if ev, ok := parseLogLine(line); ok {
				ev.at -= shifted(shifts, p, offset, line)
				ev.host = host
				events = append(events, ev)
			}
			offset += int64(len(scanner.Bytes())) + 1
		}
		f.Close()
		if err := scanner.Err(); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
	}
	return Intervals(events, kills), nil
}

// Intervals pairs opens with closes (events in any order); an open lasts at most until the
// first kill of its host at or after it.
func Intervals(events []logEvent, kills map[string][]int64) []Interval {
	stopped := map[string]int64{}
	closes := map[[2]string][]int64{}
	for _, ev := range events {
		switch ev.message {
		case "incarnation stopped serving":
			stopped[ev.server] = ev.at
		case "region closed":
			k := [2]string{ev.region, ev.server}
			closes[k] = append(closes[k], ev.at)
		}
	}
	for _, c := range closes {
		sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	}
	var out []Interval
	for _, ev := range events {
		if ev.message != "region open" {
			continue
		}
		until := int64(math.MaxInt64)
		if t, ok := stopped[ev.server]; ok {
			until = t
		}
		for _, k := range kills[ev.host] {
			if k >= ev.at {
				until = min(until, k)
				break
			}
		}
		for _, c := range closes[[2]string{ev.region, ev.server}] {
			if c >= ev.at {
				if c < until {
					until = c
				}
				break
			}
		}
		if until > ev.at {
			out = append(out, Interval{Region: ev.region, Server: ev.server, Since: ev.at, Until: until})
		}
	}
	return out
}

// Overlaps answers every pair of intervals of one region on two servers that overlap.
func Overlaps(intervals []Interval) [][2]Interval {
	byRegion := map[string][]Interval{}
	for _, iv := range intervals {
		byRegion[iv.Region] = append(byRegion[iv.Region], iv)
	}
	regions := make([]string, 0, len(byRegion))
	for r := range byRegion {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	var found [][2]Interval
	for _, r := range regions {
		ivs := byRegion[r]
		sort.Slice(ivs, func(i, j int) bool { return ivs[i].Since < ivs[j].Since })
		for i := range ivs {
			for j := i + 1; j < len(ivs) && ivs[j].Since < ivs[i].Until; j++ {
				if ivs[j].Server != ivs[i].Server {
					found = append(found, [2]Interval{ivs[i], ivs[j]})
				}
			}
		}
	}
	return found
}
