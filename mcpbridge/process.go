package mcpbridge

import (
	"crypto/rand"
	"encoding/hex"
)

// processSecret is this process's secret for the console
// (CallRequest.Process): 128 bits from crypto/rand, made once per process
// image. A program this process execs starts without it, since it is in no
// file, argument or environment variable; `solgate mcp` is non-dumpable, so
// no other process of its user can read it from its memory.
var processSecret = func() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand's contract since Go 1.24)
	return hex.EncodeToString(b)
}()
