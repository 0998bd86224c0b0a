package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A notify command that hangs is killed at its timeout, with whatever it
// started (its process group), and the failure says so.
func TestNotifyCommandTimesOut(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "late")
	n := newNotifier("sleep 5 & wait; touch "+marker, 300*time.Millisecond, nil)
	start := time.Now()
	err := n.run(notifyFields{ID: "p_x"})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 300ms") {
		t.Fatalf("err %v", err)
	}
	if took > 3*time.Second {
		t.Fatalf("run returned after %s", took)
	}
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command went on after its timeout")
	}
}

// Fields reach the command as sanitised environment variables: an escape
// sequence in them never does.
func TestNotifyFieldsAreSanitised(t *testing.T) {
	out := filepath.Join(t.TempDir(), "env")
	n := newNotifier(`printf '%s' "$SOLGATE_FLAGS" > `+out, time.Second, nil)
	if err := n.run(notifyFields{ID: "p_x", Flags: "LOOK-ALIKE\x1b]2;pwned\x07,text!"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if strings.ContainsAny(string(got), "\x1b\x07") || !strings.HasPrefix(string(got), "LOOK-ALIKE") {
		t.Fatalf("SOLGATE_FLAGS=%q", got)
	}
}
