package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

// searching is the row whose search runs, for the memory guard's message.
var searching atomic.Value

// guardMemory ends the process (status 2) if the heap grows past limit bytes: Porcupine's
// memoization grows with the writes of unknown outcome a row has, and a search that would
// take the machine's memory is stopped rather than let it.
func guardMemory(limit uint64) {
	go func() {
		var m runtime.MemStats
		for range time.Tick(200 * time.Millisecond) {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > limit {
				fmt.Fprintf(os.Stderr, "linearizability: the search of row %v passed %d MiB; lower -max-unknown\n",
					searching.Load(), limit>>20)
				os.Exit(2)
			}
		}
	}()
}
