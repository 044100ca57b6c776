package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func logLine(ts int64, message, region, key string, at int64) string {
	stamp := timeOfUs(ts)
	return fmt.Sprintf(`{"timestamp":"%s","level":"INFO","fields":{"message":"%s","region":"%s","server":"rs4","%s":%d}}`, stamp, message, region, key, at)
}

func TestTimesWrittenOnASteppedClockAreTakenBack(t *testing.T) {
	const real = int64(1_800_000_000_000_000)
	const off = int64(30_000_000)
	dir := t.TempDir()
	path := filepath.Join(dir, "rs4.log")
	before := logLine(real, "region open", "r", "since_us", real) + "\n"
	// Written in the byte range but before the step took effect: real times.
	early := logLine(real+1_000, "region open", "q", "since_us", real+1_000) + "\n"
	// Written on the clock 30 s ahead: region r closed 2 s after the jump.
	during := logLine(real+2_000_000+off, "region closed", "r", "until_us", real+2_000_000+off) + "\n"
	after := logLine(real+20_000_000, "region open", "r", "since_us", real+20_000_000) + "\n"
	if err := os.WriteFile(path, []byte(before+early+during+after), 0o644); err != nil {
		t.Fatal(err)
	}
	from := int64(len(before))
	shift := ClockShift{Log: path, FromByte: from, ToByte: from + int64(len(early)+len(during)), OffsetUs: off,
		InjectedUnixUs: real, HealedUnixUs: real + 10_000_000}
	other := filepath.Join(dir, "rs1.log")
	// rs1 opened r 5 s after the jump: after rs4 closed it, in real time.
	opened := `{"timestamp":"x","fields":{"message":"region open","region":"r","server":"rs1","since_us":` + fmt.Sprint(real+5_000_000) + `}}` + "\n" +
		`{"timestamp":"x","fields":{"message":"region closed","region":"r","server":"rs1","until_us":` + fmt.Sprint(real+19_000_000) + `}}` + "\n"
	if err := os.WriteFile(other, []byte(opened), 0o644); err != nil {
		t.Fatal(err)
	}
	intervals, err := ReadIntervals([]string{path, other}, []ClockShift{shift}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if found := Overlaps(intervals); len(found) != 0 {
		t.Fatalf("corrected, rs4 closed r before rs1 opened it: %+v", found)
	}
	for _, iv := range intervals {
		if iv.Region == "q" && iv.Since != real+1_000 {
			t.Fatalf("a line written before the step keeps its time: %+v", iv)
		}
	}
	intervals, err = ReadIntervals([]string{path, other}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if found := Overlaps(intervals); len(found) != 1 {
		t.Fatalf("uncorrected, rs4's close looks 30 s late: %+v", found)
	}
}

func timeOfUs(us int64) string {
	return time.UnixMicro(us).UTC().Format(time.RFC3339Nano)
}
