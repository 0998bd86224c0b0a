package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// Trying localnet and then devnet with the default state just works: each
// cluster gets its own state directory under the default one, both consoles
// start, and `solgate audit` reads both. An explicit --state that belongs to
// another cluster is refused by --check as by the console, naming the flag
// and the variable the console reads.
func TestDefaultStateIsPerCluster(t *testing.T) {
	isolateEnv(t)
	xdg := t.TempDir()
	t.Setenv("XDG_STATE_HOME", xdg)
	base := filepath.Join(xdg, "solgate")

	w := newConsoleWorld(t, localnet.Options{}, 1_000_000_000)
	devnet, _ := testkit.StartLedger(t, localnet.Options{Network: "devnet"})
	start := func(name, rpc string) {
		socket := filepath.Join(testkit.SocketDir(t), name+".sock")
		errLog := filepath.Join(w.tmp, name+".stderr")
		command := "env XDG_STATE_HOME=" + shellWords(xdg) + " " +
			shellWords(w.bin, "console", "--rpc", rpc, "--keypair", w.keyFile, "--socket", socket, "--no-bell") + " 2>>" + shellWords(errLog)
		openConsole(t, 120, 40, command, errLog)
	}
	start("local", w.l.RPC())
	start("devnet", devnet.RPC())

	// devnet's published genesis hash, spelled out.
	const devnetGenesis = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"
	localDir, devnetDir := filepath.Join(base, w.l.GenesisHash()), filepath.Join(base, devnetGenesis)
	for _, d := range []string{localDir, devnetDir} {
		if _, err := os.Stat(filepath.Join(d, "solgate.db")); err != nil {
			t.Errorf("no state database in %s: %v", d, err)
		}
	}

	r := runSolgate(t, "audit")
	if r.exit != 0 || !strings.Contains(r.stdout, "state "+localDir) || !strings.Contains(r.stdout, "state "+devnetDir) ||
		!strings.Contains(r.stdout, "devnet (genesis "+devnetGenesis+")") {
		t.Errorf("solgate audit with the default state: exit %d\n%s\n%s", r.exit, r.stdout, r.stderr)
	}

	// The localnet's directory, named explicitly, on devnet.
	r = runSolgate(t, "console", "--check", "--keypair", w.keyFile, "--rpc", devnet.RPC(), "--state", localDir)
	for _, want := range []string{"REFUSED: --state " + localDir, "SOLGATE_STATE=", devnetGenesis, w.l.GenesisHash()} {
		if r.exit == 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("--check on another cluster's state: exit %d, stdout lacks %q\n%s\n%s", r.exit, want, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "ok:") {
		t.Errorf("--check says ok for another cluster's state:\n%s", r.stdout)
	}
}
