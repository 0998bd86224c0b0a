package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// console --check asks the node for its genesis hash as the console would:
// it names the network it found, and an RPC nobody answers on is a refusal
// with a non-zero exit, never an "ok".
func TestConsoleCheckProbesTheRPC(t *testing.T) {
	isolateEnv(t)
	l, _ := testkit.StartLedger(t, localnet.Options{Network: "devnet"})
	key := testkit.NewWallet(t).File
	state := filepath.Join(t.TempDir(), "state")

	r := runSolgate(t, "console", "--check", "--keypair", key, "--state", state, "--rpc", l.RPC())
	// devnet's published genesis hash, spelled out (never the product's constant).
	want := "rpc " + l.RPC() + ": devnet (genesis EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG)"
	if r.exit != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "ok: the console would start") {
		t.Fatalf("--check against a devnet ledger: exit %d, want %q\n%s\n%s", r.exit, want, r.stdout, r.stderr)
	}

	dead := "http://127.0.0.1:9" // the discard port: nothing listens
	r = runSolgate(t, "console", "--check", "--keypair", key, "--state", state, "--rpc", dead)
	if r.exit == 0 || !strings.Contains(r.stdout, "REFUSED: rpc "+dead+" cannot be reached") || strings.Contains(r.stdout, "ok:") {
		t.Fatalf("--check with an unreachable RPC: exit %d\n%s\n%s", r.exit, r.stdout, r.stderr)
	}
}
