package store

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childDirEnv makes the test binary act as the writer process in
// TestKillNineLosesNothingAcknowledged instead of running tests.
const childDirEnv = "SOLGATE_STORE_TEST_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		os.Exit(runWriterChild(dir))
	}
	os.Exit(m.Run())
}

// runWriterChild writes as fast as it can and, after each commit returns,
// prints "ack <seq> <hash> <proposal>" — the promise the parent checks after
// killing it.
func runWriterChild(dir string) int {
	st, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		return 2
	}
	round := os.Getenv("SOLGATE_STORE_TEST_ROUND")
	if n, _ := strconv.Atoi(os.Getenv(childWritersEnv)); n > 1 {
		return runGroupWriters(st, round, n)
	}
	for i := 0; ; i++ {
		id := fmt.Sprintf("r%s-p%d", round, i)
		var e AuditEntry
		if i%2 == 0 {
			if err := st.InsertProposal(Proposal{ID: id, Client: "child", Tool: "transfer_sol", Fingerprint: "fp", Preview: "p", CreatedAt: time.Now()}); err != nil {
				fmt.Fprintln(os.Stderr, "child insert:", err)
				return 2
			}
			entries, err := st.Audit() // the entry just committed is the newest
			if err != nil {
				fmt.Fprintln(os.Stderr, "child audit:", err)
				return 2
			}
			e = entries[len(entries)-1]
		} else {
			e, err = st.AppendAudit("note", id, map[string]any{"i": i, "round": round})
			if err != nil {
				fmt.Fprintln(os.Stderr, "child append:", err)
				return 2
			}
		}
		fmt.Printf("ack %d %s %s\n", e.Seq, e.Hash, id)
	}
}

type ack struct {
	seq      int64
	hash, id string
}

// A real child process writes and acknowledges; the parent kill -9s it
// mid-stream, reopens the database, and every acknowledged record is there
// with an intact chain. Three rounds on one database, so recovery after a
// kill is itself followed by more writes and another kill.
// childWritersEnv makes the child write from that many goroutines at once,
// so its writes share group commits.
const childWritersEnv = "STORE_TEST_CHILD_WRITERS" // not SOLGATE_*: a test-only variable of this package

// runGroupWriters is the child with n concurrent writers: each prints its
// ack only after its own write returned, as the hub answers an agent only
// after its row is written.
func runGroupWriters(st *Store, round string, n int) int {
	var mu sync.Mutex
	fail := make(chan int, n)
	for g := 0; g < n; g++ {
		go func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("r%s-g%d-n%d", round, g, i)
				e, err := st.AppendAudit("note", id, map[string]any{"g": g, "i": i})
				if err != nil {
					fmt.Fprintln(os.Stderr, "child append:", err)
					fail <- 2
					return
				}
				mu.Lock()
				fmt.Printf("ack %d %s %s\n", e.Seq, e.Hash, id)
				mu.Unlock()
			}
		}()
	}
	return <-fail
}

func TestKillNineLosesNothingAcknowledged(t *testing.T) { killNineRounds(t, 1) }

// With eight writers at once, writes share commits: still nothing
// acknowledged is lost.
func TestKillNineLosesNothingAcknowledgedUnderGroupCommit(t *testing.T) { killNineRounds(t, 8) }

func killNineRounds(t *testing.T, writers int) {
	dir := t.TempDir()
	var acks []ack
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childDirEnv+"="+dir, "SOLGATE_STORE_TEST_ROUND="+strconv.Itoa(round), childWritersEnv+"="+strconv.Itoa(writers))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		killAfter := 30 + 17*round
		got := 0
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 4 || f[0] != "ack" {
				t.Fatalf("child said %q", sc.Text())
			}
			seq, _ := strconv.ParseInt(f[1], 10, 64)
			acks = append(acks, ack{seq, f[2], f[3]})
			got++
			if got == killAfter {
				// Mid-stream: the child is already inside its next write.
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		// Drain acks that were printed before the kill landed: they were
		// promises too.
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 4 {
				seq, _ := strconv.ParseInt(f[1], 10, 64)
				acks = append(acks, ack{seq, f[2], f[3]})
			}
		}
		err = cmd.Wait()
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child did not die of SIGKILL: %v", round, err)
		}
		if got < killAfter {
			t.Fatalf("round %d: child acknowledged only %d writes", round, got)
		}
	}

	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if bad, err := st.VerifyAudit(); err != nil {
		t.Fatalf("chain after kill -9: entry %d: %v", bad, err)
	}
	entries, err := st.Audit()
	if err != nil {
		t.Fatal(err)
	}
	bySeq := make(map[int64]AuditEntry, len(entries))
	for _, e := range entries {
		bySeq[e.Seq] = e
	}
	for _, a := range acks {
		e, ok := bySeq[a.seq]
		if !ok || e.Hash != a.hash || e.ProposalID != a.id {
			t.Fatalf("acknowledged entry %d (%s) lost or changed: %+v", a.seq, a.id, e)
		}
		if strings.Contains(a.id, "-p") {
			n, _ := strconv.Atoi(a.id[strings.LastIndex(a.id, "p")+1:])
			if n%2 == 0 {
				if _, err := st.GetProposal(a.id); err != nil {
					t.Fatalf("acknowledged proposal %s: %v", a.id, err)
				}
			}
		}
	}
	if len(acks) < 3*30 {
		t.Fatalf("only %d acknowledgements", len(acks))
	}
	t.Logf("%d acknowledged writes across 3 kills, %d entries on disk, chain intact", len(acks), len(entries))
}
