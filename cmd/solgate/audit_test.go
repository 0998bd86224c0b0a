package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/solgate/solgate/policy/store"
)

// auditSeed writes a small, realistic trail (proposal, decision,
// reservation, execution, one hostile memo) and closes the store, as a
// console would leave it.
func auditSeed(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	steps := []func() error{
		func() error {
			return st.InsertProposal(store.Proposal{ID: "p1", Client: "claude", Tool: "transfer_sol", Fingerprint: "fp1",
				Args: json.RawMessage(`{"to":"X","lamports":"50000000"}`), Preview: "Transfer 0.05 SOL", CreatedAt: now})
		},
		func() error {
			return st.RecordDecision(store.Decision{ProposalID: "p1", DecidedBy: "operator", DecidedAt: now, Outcome: store.OutcomeApproved, Latency: time.Second})
		},
		func() error {
			return st.PutReservation(store.Reservation{ID: "p1", Lamports: 50_005_000, CreatedAt: now})
		},
		func() error {
			return st.RecordExecution(store.Execution{ProposalID: "p1", Signature: "sig1", Slot: 7, Fee: 5000, Outcome: store.ExecExecuted, At: now})
		},
		func() error {
			_, err := st.AppendAudit("token_info", "", map[string]string{"name": "USDC\x1b[2J\x1b[31mMAINNET\u202eevil"})
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func auditRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newAuditCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// auditSQL tampers with the database the way an attacker with file access
// would: plain SQL, no solgate code.
func auditSQL(t *testing.T, dir, query string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(query)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%q touched %d rows", query, n)
	}
}

func TestAuditPrintsAndVerifiesIntactTrail(t *testing.T) {
	dir := auditSeed(t)
	out, err := auditRun(t, "--state", dir)
	if err != nil {
		t.Fatalf("intact trail: %v\n%s", err, out)
	}
	for _, want := range []string{"SEQ", "KIND", "proposal", "decision", "reservation", "execution", "token_info", "chain intact: 5 entries"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Attacker text cannot drive the terminal.
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, '\u202e') {
		t.Errorf("raw escape or bidi character reached the output:\n%q", out)
	}
	if !strings.Contains(out, `\u001b`) {
		t.Errorf("escaped ESC not shown:\n%s", out)
	}
}

func TestAuditJSONLines(t *testing.T) {
	dir := auditSeed(t)
	out, err := auditRun(t, "--state", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d JSON lines, want 5:\n%s", len(lines), out)
	}
	for i, line := range lines {
		var e store.AuditEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, line)
		}
		if e.Seq != int64(i+1) || len(e.Hash) != 64 {
			t.Fatalf("line %d: %+v", i+1, e)
		}
	}
	if strings.ContainsRune(out, '\u202e') || strings.ContainsRune(out, 0x1b) {
		t.Errorf("raw bidi/escape in JSON output: %q", out)
	}
	if !strings.Contains(lines[4], `\u202e`) {
		t.Errorf("bidi override not escaped in JSON: %s", lines[4])
	}
}

func TestAuditFailsOnEditedRow(t *testing.T) {
	dir := auditSeed(t)
	auditSQL(t, dir, `UPDATE audit SET body = replace(body, '50005000', '5000') WHERE seq = 3`)
	out, err := auditRun(t, "--state", dir)
	if err == nil {
		t.Fatalf("an edited entry passed verification:\n%s", out)
	}
	if !strings.Contains(err.Error(), "entry 3") || !strings.Contains(err.Error(), "hash mismatch") {
		t.Fatalf("error %q does not name entry 3 and the hash mismatch", err)
	}
	if !strings.Contains(out, "chain BROKEN at entry 3") {
		t.Fatalf("table output does not flag entry 3:\n%s", out)
	}
	// The JSON mode fails the same way.
	if _, err := auditRun(t, "--state", dir, "--json"); err == nil || !strings.Contains(err.Error(), "entry 3") {
		t.Fatalf("--json on an edited trail: %v", err)
	}
}

func TestAuditFailsOnDeletedRow(t *testing.T) {
	dir := auditSeed(t)
	auditSQL(t, dir, `DELETE FROM audit WHERE seq = 2`)
	_, err := auditRun(t, "--state", dir)
	if err == nil || !strings.Contains(err.Error(), "entry 2") || !strings.Contains(err.Error(), "gap") {
		t.Fatalf("deleted entry 2: %v", err)
	}
}

func TestAuditFailsOnDeletedNewestRow(t *testing.T) {
	dir := auditSeed(t)
	auditSQL(t, dir, `DELETE FROM audit WHERE seq = 5`)
	_, err := auditRun(t, "--state", dir)
	if err == nil || !strings.Contains(err.Error(), "entry 5") || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("deleted newest entry: %v", err)
	}
}

func TestAuditStateFromEnvAndMissingDatabase(t *testing.T) {
	for _, name := range []string{"SOLGATE_STATE", "SOLGATE_STATE_DIR"} {
		t.Run(name, func(t *testing.T) {
			dir := auditSeed(t)
			t.Setenv(name, dir)
			if out, err := auditRun(t); err != nil || !strings.Contains(out, "chain intact") {
				t.Fatalf("state from %s: %v\n%s", name, err, out)
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "none")
	_, err := auditRun(t, "--state", missing)
	if err == nil || !strings.Contains(err.Error(), "no solgate database") || !strings.Contains(err.Error(), "solgate console") {
		t.Fatalf("missing database: %v", err)
	}
	if _, err := auditRun(t, "--state", ""); err == nil || !strings.Contains(err.Error(), "--state") {
		t.Fatalf("empty --state: %v", err)
	}
}

// The default state directory is the console's: $XDG_STATE_HOME/solgate, and
// a flag beats the variable.
func TestAuditStateDirDefaultAndPrecedence(t *testing.T) {
	seeded := auditSeed(t)
	xdg := t.TempDir()
	if err := os.Rename(seeded, filepath.Join(xdg, "solgate")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", xdg)
	if out, err := auditRun(t); err != nil || !strings.Contains(out, "chain intact") {
		t.Fatalf("XDG default: %v\n%s", err, out)
	}
	t.Setenv("SOLGATE_STATE", filepath.Join(t.TempDir(), "elsewhere"))
	if out, err := auditRun(t, "--state", filepath.Join(xdg, "solgate")); err != nil || !strings.Contains(out, "chain intact") {
		t.Fatalf("--state must beat SOLGATE_STATE: %v\n%s", err, out)
	}
}

// auditRechain forges the trail as an attacker who can write the database
// would: edit one entry, then recompute every hash from it on and the head
// row. The hash rule is spelled out here from its documentation
// (store.AuditEntry), not borrowed from solgate.
func auditRechain(t *testing.T, dir string, seq int64, body string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE audit SET body = ? WHERE seq = ?`, body, seq); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT seq, at, kind, proposal_id, body, prev_hash FROM audit ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		seq, at               int64
		kind, pid, body, prev string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.seq, &r.at, &r.kind, &r.pid, &r.body, &r.prev); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	rows.Close()
	prev := strings.Repeat("0", 64)
	for _, r := range all {
		canon := fmt.Sprintf(`{"seq":%d,"at":%d,"kind":%q,"proposal_id":%q,"body":%s}`, r.seq, r.at, r.kind, r.pid, r.body)
		sum := sha256.Sum256([]byte(prev + canon))
		h := hex.EncodeToString(sum[:])
		if _, err := db.Exec(`UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?`, prev, h, r.seq); err != nil {
			t.Fatal(err)
		}
		prev = h
	}
	if _, err := db.Exec(`UPDATE audit_head SET seq = ?, hash = ?`, len(all), prev); err != nil {
		t.Fatal(err)
	}
}

// The forgery from issue 11: the reservation's amount cut and the chain
// recomputed. The database alone then verifies (shown by removing the head
// file); with the head file beside it, `solgate audit` fails and names the
// entry the file vouches for.
func TestAuditFailsOnRechainedDatabase(t *testing.T) {
	dir := auditSeed(t)
	head, err := os.ReadFile(filepath.Join(dir, "audit.head"))
	if err != nil {
		t.Fatalf("the console left no head file: %v", err)
	}
	auditRechain(t, dir, 3, `{"id":"p1","lamports":5000}`)
	out, err := auditRun(t, "--state", dir)
	if err == nil {
		t.Fatalf("a re-chained database passed verification:\n%s", out)
	}
	if !strings.Contains(err.Error(), "entry 5") || !strings.Contains(err.Error(), "re-chained") {
		t.Fatalf("error %q does not name entry 5 and the re-chaining", err)
	}
	if !strings.Contains(out, "chain BROKEN at entry 5") {
		t.Fatalf("table output does not flag entry 5:\n%s", out)
	}
	// The forgery is a faithful one: without the head file the chain
	// itself verifies, so a missing head on a trail with entries is a
	// failure of its own (a forger would delete it), passed only with
	// --accept-missing-head.
	os.Remove(filepath.Join(dir, "audit.head"))
	out, err = auditRun(t, "--state", dir)
	if err == nil || !strings.Contains(err.Error(), "no head file") || !strings.Contains(err.Error(), "--accept-missing-head") || !strings.Contains(out, "chain intact") {
		t.Fatalf("re-chained database without head file: %v\n%s", err, out)
	}
	if out, err := auditRun(t, "--state", dir, "--accept-missing-head"); err != nil || !strings.Contains(out, "chain intact") || !strings.Contains(out, "no head file") {
		t.Fatalf("re-chained database without head file, --accept-missing-head: %v\n%s", err, out)
	}
	// A console does not bless it either: put the file back and open.
	os.WriteFile(filepath.Join(dir, "audit.head"), head, 0o600)
	if st, err := store.Open(dir); err == nil {
		st.Close()
		t.Fatal("a console opened a re-chained database and would have written its head")
	} else if !strings.Contains(err.Error(), "entry 5") {
		t.Fatalf("console open: %v", err)
	}
}

// A console configured by a TOML file keeps its state where the file says;
// audit reads the same file, from --config or SOLGATE_CONFIG, and is not put
// off by the policy keys in it.
func TestAuditReadsTheConsolesConfigFile(t *testing.T) {
	isolateEnv(t)
	dir := auditSeed(t)
	cfg := filepath.Join(t.TempDir(), "solgate.toml")
	body := "state = \"" + dir + "\"\nmax_sol_per_tx = 0.05\nallow_recipient = [\"" + addrA + "\"]\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := auditRun(t, "--config", cfg); err != nil || !strings.Contains(out, "chain intact") {
		t.Fatalf("audit --config: %v\n%s", err, out)
	}
	t.Setenv("SOLGATE_CONFIG", cfg)
	if out, err := auditRun(t); err != nil || !strings.Contains(out, "chain intact") {
		t.Fatalf("audit with SOLGATE_CONFIG: %v\n%s", err, out)
	}
	// The variable beats the file, as for the console.
	t.Setenv("SOLGATE_STATE", filepath.Join(t.TempDir(), "elsewhere"))
	if _, err := auditRun(t); err == nil || !strings.Contains(err.Error(), "no solgate database") {
		t.Fatalf("SOLGATE_STATE over the file's state: %v", err)
	}
}

// A trail an older solgate wrote (policy/store/testdata/chain-v1, written
// before the audit's canonical form went back to the plain marshal round
// trip) still verifies with `solgate audit`; a copy is audited, as the
// command may write nothing but a store opening may.
func TestAuditVerifiesATrailAnOlderSolgateWrote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "policy", "store", "testdata", "chain-v1"))); err != nil {
		t.Fatal(err)
	}
	out, err := auditRun(t, "--state", dir)
	if err != nil {
		t.Fatalf("the older trail fails `solgate audit`: %v\n%s", err, out)
	}
	for _, want := range []string{"chain intact: 15 entries, head 5384d4d981b51f530c59e679f56d075018a51586c33dae49c14f01d2fb82acfd", "head file " + filepath.Join(dir, store.HeadFileName) + " agrees", "x402_payment", "grant_made"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A trail an older store wrote (policy/store's testdata/chain-v1, from
// before issue 35 put encoding/json back under the audit body) still
// verifies with `solgate audit` itself: the canonical bytes every entry's
// hash covers did not move. The head is the one that trail was written
// with.
func TestAuditVerifiesATrailAnOlderStoreWrote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "policy", "store", "testdata", "chain-v1"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := auditRun(t, "--state", dir)
	if err != nil {
		t.Fatalf("solgate audit on the stored trail: %v\n%s", err, out)
	}
	const want = "chain intact: 15 entries, head 5384d4d981b51f530c59e679f56d075018a51586c33dae49c14f01d2fb82acfd"
	if !strings.Contains(out, want) || !strings.Contains(out, "agrees") {
		t.Errorf("solgate audit on the stored trail says:\n%s\nwant %q and the head file agreeing", out, want)
	}
}
