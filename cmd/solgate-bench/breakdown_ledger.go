package main

import (
	"errors"
	"time"
)

// ledgerCPUAround runs the in-process preview loop (previewAloneRow: n
// previews one after another, nothing but the ledger's round and the
// effects decoding) and returns its row with an info row of the ledger
// process's CPU (utime+stime from /proc) over that loop, per preview: the
// ledger's cost of one proposal's batch, its slot ticks during the loop
// included, apart from the throughput run's mix.
func ledgerCPUAround(w *world, n int, alone func() row) (row, row) {
	const name = "info: ledger CPU per preview (in-process preview loop)"
	pid := w.ledger.Pid()
	start := procCPU(pid)
	r := alone()
	took := procCPU(pid) - start
	if n == 0 || start == 0 {
		return r, errorRow(name, errNoLedgerCPU)
	}
	return r, singleRow(name, n, "ms", float64(took)/float64(time.Millisecond)/float64(n), nil,
		"the ledger process's CPU (user + system, /proc) over the loop of the row above, per preview: its HTTP, JSON-RPC, litesvm simulation, reads and JSON, and its slot ticks meanwhile (/proc counts in 10 ms clock ticks)")
}

var errNoLedgerCPU = errors.New("the ledger's CPU could not be read from /proc")
