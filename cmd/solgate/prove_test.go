package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// solgateBinary is the real command, driven as a user would, as a separate process.
func solgateBinary(t *testing.T) string { return testkit.Binary(t) }

type proveRun struct {
	stdout, stderr string
	exit           int
}

func runSolgate(t *testing.T, args ...string) proveRun {
	t.Helper()
	cmd := exec.Command(solgateBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return proveRun{stdout: out.String(), stderr: errb.String(), exit: code}
}

func fundedKeyFile(t *testing.T, l *localnet.Ledger, lamports uint64) (string, solana.PublicKey) {
	t.Helper()
	w := testkit.FundedWallet(t, l, lamports)
	return w.File, w.Pub
}

var toLine = regexp.MustCompile(`(?m)^  to\s+(\S+)$`)

func recipientFrom(t *testing.T, stdout string) solana.PublicKey {
	t.Helper()
	m := toLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no recipient line in output:\n%s", stdout)
	}
	return solana.MustPublicKeyFromBase58(m[1])
}

func TestProvePrintsProofAndTheLedgerAgrees(t *testing.T) {
	ctx := context.Background()
	l, _ := testkit.StartLedger(t, localnet.Options{})
	keyFile, key := fundedKeyFile(t, l, solana.LAMPORTS_PER_SOL)

	r := runSolgate(t, "prove", "--rpc", l.RPC(), "--keypair", keyFile, "--lamports", "1234567")
	if r.exit != 0 {
		t.Fatalf("prove exited %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	}
	for _, want := range []string{"PROOF\n", "  signature  ", "  slot       ", "  wall time  ", "verified slot=", "err=null fee=5000"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	chain := rpc.New(l.RPC())
	to := recipientFrom(t, r.stdout)
	if bal, err := chain.GetBalance(ctx, to, rpc.CommitmentConfirmed); err != nil || bal.Value != 1234567 {
		t.Errorf("recipient balance on the ledger: %v %v, want 1234567", bal, err)
	}
	if bal, err := chain.GetBalance(ctx, key, rpc.CommitmentConfirmed); err != nil || bal.Value != solana.LAMPORTS_PER_SOL-1234567-5000 {
		t.Errorf("sender balance on the ledger: %v %v", bal, err)
	}
}

func TestProveFailsWhenSendsAreDropped(t *testing.T) {
	ctx := context.Background()
	// Fast: prove gives up only once the blockhash expired, 150 blocks
	// (a minute at the real pace).
	l, _ := testkit.StartLedger(t, localnet.Options{SlotMS: localnet.FastSlotMS})
	keyFile, key := fundedKeyFile(t, l, solana.LAMPORTS_PER_SOL)
	// Every send and rebroadcast is swallowed: the chain never sees it.
	if err := l.DropNextSends(ctx, 1_000_000); err != nil {
		t.Fatal(err)
	}
	r := runSolgate(t, "prove", "--rpc", l.RPC(), "--keypair", keyFile)
	if r.exit == 0 {
		t.Fatalf("prove exited 0 although nothing landed:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "verified") || !strings.Contains(r.stdout, "NO PROOF — expired") {
		t.Errorf("output claims or lacks the outcome:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "NOT PROVEN") {
		t.Errorf("stderr lacks the reason:\n%s", r.stderr)
	}
	to := recipientFrom(t, r.stdout)
	chain := rpc.New(l.RPC())
	if bal, err := chain.GetBalance(ctx, to, rpc.CommitmentConfirmed); err != nil || bal.Value != 0 {
		t.Errorf("recipient balance %v %v, want 0", bal, err)
	}
	if bal, err := chain.GetBalance(ctx, key, rpc.CommitmentConfirmed); err != nil || bal.Value != solana.LAMPORTS_PER_SOL {
		t.Errorf("sender balance %v %v, want untouched", bal, err)
	}
}

func TestProveRefusesBadInputClearly(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose.json")
	k, _ := executor.NewRandomKeypair()
	if err := k.WriteFile(loose); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prove", "--keypair", filepath.Join(dir, "missing.json")}, "does not exist (create one with `solgate keygen -o " + filepath.Join(dir, "missing.json") + "`"},
		{[]string{"prove", "--keypair", loose}, "chmod 600"},
		{[]string{"prove", "--keypair", loose, "--lamports", "0"}, "--lamports must be greater than zero"},
		{[]string{"prove", "--lamports", "-5"}, "invalid argument \"-5\""},
	} {
		r := runSolgate(t, tc.args...)
		if r.exit == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want non-zero and %q", tc.args, r.exit, r.stderr, tc.want)
		}
	}
}

func TestProveRefusesMainnetWithoutOptIn(t *testing.T) {
	ctx := context.Background()
	l, _ := testkit.StartLedger(t, localnet.Options{Network: "mainnet-beta"})
	keyFile, _ := fundedKeyFile(t, l, solana.LAMPORTS_PER_SOL)
	r := runSolgate(t, "prove", "--rpc", l.RPC(), "--keypair", keyFile)
	if r.exit == 0 || !strings.Contains(r.stderr, "MAINNET") || !strings.Contains(r.stderr, "--allow-mainnet") {
		t.Fatalf("exit %d stderr %q", r.exit, r.stderr)
	}
	if s, err := l.Stats(ctx); err != nil || s.SendsReceived != 0 || s.Simulations != 0 {
		t.Errorf("ledger saw activity on refused mainnet run: %+v %v", s, err)
	}
}

// An unrecognised genesis hash behind a URL that is not loopback (0.0.0.0
// reaches this machine but is not 127.0.0.0/8) is an unknown network: prove
// refuses it like mainnet, and --allow-mainnet does not open it.
func TestProveRefusesUnknownNetworkWithoutOptIn(t *testing.T) {
	ctx := context.Background()
	l, _ := testkit.StartLedger(t, localnet.Options{})
	keyFile, _ := fundedKeyFile(t, l, solana.LAMPORTS_PER_SOL)
	remote := strings.Replace(l.RPC(), "127.0.0.1", "0.0.0.0", 1)
	r := runSolgate(t, "prove", "--rpc", remote, "--keypair", keyFile, "--allow-mainnet")
	if r.exit == 0 || !strings.Contains(r.stderr, "UNKNOWN NETWORK") || !strings.Contains(r.stderr, "--allow-unknown-network") {
		t.Fatalf("exit %d stderr %q", r.exit, r.stderr)
	}
	if s, err := l.Stats(ctx); err != nil || s.SendsReceived != 0 || s.Simulations != 0 {
		t.Errorf("ledger saw activity on a refused unknown-network run: %+v %v", s, err)
	}
}
