package tui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// Issue 33: a full disk under the log never blocks an approval nor the
// spend. The console logs to a 64 KiB tmpfs that is then filled to the last
// byte; a proposal is shown, approved with a key, executed, and the ledger
// moves, while every log line in between meets ENOSPC.
func TestConsoleApprovesWithItsLogOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("requires root: the test mounts a 64 KiB tmpfs for the log and fills it")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	logFile := filepath.Join(dir, "console.log")
	w := startConsole(t, "--log-file", logFile)
	testkit.Eventually(t, 30*time.Second, "the start in the log", func() bool {
		raw, _ := os.ReadFile(logFile)
		return strings.Contains(string(raw), "console started")
	}, nil)
	// Pad the log to a page boundary, so that its next line needs a new
	// page (a tmpfs counts pages): with the disk full, that is ENOSPC.
	lf, err := os.OpenFile(logFile, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := lf.Stat()
	if pad := (4096 - fi.Size()%4096) % 4096; pad > 0 {
		if _, err := lf.Write([]byte(strings.Repeat("#", int(pad-1)) + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	lf.Close()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break // ENOSPC: the disk is full
		}
	}
	f.Close()
	before, _ := os.Stat(logFile)

	a := startAgent(t, w.socket, "full-disk-agent")
	const amount = 30_000_000
	args := map[string]any{"to": w.recipient.String(), "lamports": amount}
	st, text := a.call("transfer_sol", args)
	id, _ := st["proposal_id"].(string)
	if st["status"] != "pending_approval" || id == "" {
		t.Fatalf("propose: %v\n%s", st, text)
	}
	w.term.waitFor(30*time.Second, id, "0.03 SOL")
	w.term.approvable(id)
	w.term.keys("a")
	st, text = a.call("proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 30})
	token, _ := st["confirm"].(string)
	if st["status"] != "approved" || token == "" {
		t.Fatalf("after a: %v\n%s\nscreen:\n%s", st, text, w.term.screen())
	}
	args["confirm"] = token
	if st, text = a.call("transfer_sol", args); st["status"] != "executed" {
		t.Fatalf("execute: %v\n%s", st, text)
	}
	if got := w.balance(t, w.recipient); got != amount {
		t.Fatalf("recipient holds %d lamports, want %d", got, amount)
	}
	w.term.waitFor(30*time.Second, "verified", "EXECUTED")
	after, _ := os.Stat(logFile)
	if after.Size() != before.Size() {
		t.Fatalf("the log grew from %d to %d bytes: the disk was not full for it, so this test proved nothing", before.Size(), after.Size())
	}
}
