package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// ClockShift is one clock jump of a region server, as the harness logs it: from byte FromByte
// to byte ToByte of that server's log, its wall clock read OffsetUs ahead of the real one
// (behind when negative). The harness takes FromByte before it steps the clock and ToByte
// after it steps it back, so the range may hold a few lines written at the real time on
// either side; a line's own timestamp tells them apart (see shifted).
type ClockShift struct {
	Log            string `json:"log"`
	FromByte       int64  `json:"from_byte"`
	ToByte         int64  `json:"to_byte"`
	OffsetUs       int64  `json:"offset_us"`
	InjectedUnixUs int64  `json:"injected_unix_us"`
	HealedUnixUs   int64  `json:"healed_unix_us"`
}

// ReadClockShifts reads the harness's clock log (JSON lines).
func ReadClockShifts(path string) ([]ClockShift, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var shifts []ClockShift
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if strings.TrimSpace(scanner.Text()) == "" {
			continue
		}
		var s ClockShift
		if err := json.Unmarshal(scanner.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		shifts = append(shifts, s)
	}
	return shifts, scanner.Err()
}

// lineTimeUs is the wall time a JSON log line was written at (its `timestamp`), 0 if none.
func lineTimeUs(line string) int64 {
	var j struct {
		Timestamp string `json:"timestamp"`
	}
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &j) != nil {
		return 0
	}
	t, err := time.Parse(time.RFC3339Nano, j.Timestamp)
	if err != nil {
		return 0
	}
	return t.UnixMicro()
}

// shifted is the offset to take off the times of the line at byte `at` of log `path`: the
// shift's offset when the line lies in its byte range and was written on the shifted clock.
// A line without a timestamp in the range counts as shifted; one with a timestamp counts as
// shifted when that timestamp is nearer the shifted window than the real one (a hold shorter
// than the offset keeps the two apart).
func shifted(shifts []ClockShift, path string, at int64, line string) int64 {
	for _, s := range shifts {
		if s.Log != path || at < s.FromByte || at >= s.ToByte {
			continue
		}
		ts := lineTimeUs(line)
		if ts == 0 {
			return s.OffsetUs
		}
		mid := (s.InjectedUnixUs + s.HealedUnixUs) / 2
		if abs(ts-mid-s.OffsetUs) < abs(ts-mid) {
			return s.OffsetUs
		}
	}
	return 0
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
