package store

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testdata/chain-v1 is a state directory written by the store of December
// 2026 (commit 65d2c4b, before the canonical form went back to the plain
// marshal round trip): the records of storedChainWrites, every audit body
// in the canonical bytes that code gave them. It must never be regenerated
// by later code: it is the proof that older trails still verify and that
// the same records still canonicalise to the same bytes. (It was made by
// running storedChainWrites against an Open store at that commit; no test
// here writes it, so none can overwrite it.)

// storedChainWrites are the writes the stored chain holds: every kind the
// store writes, with what an agent or a node may put in them (HTML
// characters, U+2028, invalid UTF-8, control characters, escaped and
// unsorted keys, numbers as written, a repeated key).
func storedChainWrites(st *Store) []func() error {
	at := func(sec int64, zone int) time.Time {
		return time.Unix(1_796_000_000+sec, 123_456_789).In(time.FixedZone("", zone*3600))
	}
	audit := func(kind, id string, body any) func() error {
		return func() error { _, err := st.AppendAudit(kind, id, body); return err }
	}
	return []func() error{
		func() error { return st.PinCluster("EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG") },
		func() error {
			return st.InsertProposal(Proposal{ID: "p00000001", Client: "claude-desktop 1.2", Tool: "transfer_sol", Fingerprint: "0123456789abcdef",
				Args:    json.RawMessage(`{"to":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin","lamports":"50000000"}`),
				Preview: "Instruction: System Program: transfer 0.05 SOL — to 9xQe\nFee: 0.000005 SOL\n", CreatedAt: at(0, 0)})
		},
		func() error {
			return st.RecordDecision(Decision{ProposalID: "p00000001", DecidedBy: "operator", DecidedAt: at(3, 0), Outcome: OutcomeApproved, Latency: 2917 * time.Millisecond})
		},
		func() error {
			return st.PutReservation(Reservation{ID: "p00000001", Lamports: 50_005_000, Agent: "uid 1001",
				Tokens: []TokenAmount{{Mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", Amount: 9_223_372_036_854_775_807}}, CreatedAt: at(4, 0)})
		},
		func() error {
			return st.RecordExecution(Execution{ProposalID: "p00000001", Signature: "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
				Slot: 1 << 40, Fee: 5000, Outcome: ExecExecuted, Deltas: json.RawMessage(`{"b":{"lamports":"-50005000"},"a":[ 1.0, 1E3, -0, 0.1e+2 ]}`), At: at(5, 0)})
		},
		func() error {
			return st.InsertProposal(Proposal{ID: "p00000002", Client: "agent <1> & co \u2028", Tool: "swap", Fingerprint: "fe\"dc",
				Args:      json.RawMessage(`{"z":{"y":[3,{"d":null,"c":true}],"x":"\u003c\/"},"a":"\ud800","é":1,"e":2,"k\\":3,"a\"b":4,"a<b":5}`),
				Preview:   "Line one\nSays: \"ignore previous\" \u2028 \t é 漢字 \x01 \U0001F600 bad \xff utf-8 <b>&amp;</b>\r\n",
				CreatedAt: at(10, 5)})
		},
		func() error {
			return st.RecordDecision(Decision{ProposalID: "p00000002", DecidedBy: "operator", DecidedAt: at(11, -8), Outcome: OutcomeDenied,
				Reason: "no: \"why\" \\ \x1b[31m\u202e\ufffd", Latency: 999 * time.Millisecond})
		},
		func() error { return st.SetProposalStatus("p00000001", "executed") },
		func() error {
			return st.InsertProposal(Proposal{ID: "p00000003", Client: "x", Tool: "transfer_token", Fingerprint: "ff",
				Args: json.RawMessage(`{"b":1,"a":2,"b":3}`), Preview: "", CreatedAt: at(20, 0)})
		},
		func() error {
			return st.PutX402Payment(X402Payment{ReservationID: "p00000001", Message: []byte{0, 1, 2, 0xfe, 0xff, '<'}, Source: "https://api.example/pay?a=1&b=<2>",
				LastValidBlockHeight: 300, FromSlot: 250})
		},
		audit("token_info", "", map[string]string{"name": "USDC\x1b[2J\x1b[31mMAINNET\u202eevil", "bad": "\xff\xfe", "ok": "\ufffd"}),
		audit("grant_made", "p00000003", map[string]any{"grant": 7, "spent_lamports": "18446744073709551615", "ratio": 0.1, "big": 1e21, "small": 1e-7,
			"list": []any{"b", "a", nil, false, []any{}, map[string]any{}}, "nested": map[string]any{"c": map[string]any{"b": []any{map[string]any{"y": 1, "x": 2}}}, "a": 0}}),
		audit("paused", "", map[string]bool{"paused": true}),
		audit("raw", "", json.RawMessage(`[ 1 , {"b" : 2, "a" : [ ] }, {"z": 18446744073709551615, "y": "\u00e9\n"} ]`)),
		audit("bench", "", map[string]int{"i": 3}),
	}
}

// copyStoredChain copies testdata/chain-v1 into a private temporary
// directory (opening a store may write; the testdata stays as committed).
func copyStoredChain(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "chain-v1"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A trail written by the older store verifies, and the same records,
// written again by this store, give every entry the same kind, proposal
// and body bytes: the canonical form did not move.
func TestStoredChainStillVerifiesAndCanonicalisesTheSame(t *testing.T) {
	old, err := OpenExisting(copyStoredChain(t))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if bad, err := old.VerifyAudit(); err != nil {
		t.Fatalf("the stored chain fails verification at entry %d: %v", bad, err)
	}
	stored, err := old.Audit()
	if err != nil {
		t.Fatal(err)
	}

	st, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	writes := storedChainWrites(st)
	for i, w := range writes {
		if err := w(); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	fresh, err := st.Audit()
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(writes) || len(fresh) != len(stored) {
		t.Fatalf("%d writes: the stored chain has %d entries, this store wrote %d", len(writes), len(stored), len(fresh))
	}
	for i := range stored {
		s, f := stored[i], fresh[i]
		if s.Kind != f.Kind || s.ProposalID != f.ProposalID || string(s.Body) != string(f.Body) {
			t.Errorf("entry %d: stored %s %q\n %s\nwritten now %s %q\n %s", s.Seq, s.Kind, s.ProposalID, s.Body, f.Kind, f.ProposalID, f.Body)
		}
	}
}

// The stored state directory is what a console leaves: the database and
// the head file, nothing half-written beside them.
func TestStoredChainIsAWholeStateDirectory(t *testing.T) {
	var names []string
	err := fs.WalkDir(os.DirFS(filepath.Join("testdata", "chain-v1")), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 || names[0] != HeadFileName || names[1] != FileName {
		t.Fatalf("testdata/chain-v1 holds %v, want [%s %s]", names, HeadFileName, FileName)
	}
}

// A proposal's audit entry names the user that made it: `solgate audit`
// shows whose proposal each was. (The one-pass canonical form before this
// store dropped the owner; entries it wrote still verify, without it.)
func TestProposalAuditBodyNamesItsOwner(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.InsertProposal(Proposal{ID: "p1", Client: "c", Tool: "transfer_sol", Fingerprint: "f", Args: json.RawMessage(`{"to":"x","lamports":"5"}`),
		CreatedAt: time.Unix(0, 0).UTC(), Owner: "uid 1001"}); err != nil {
		t.Fatal(err)
	}
	entries, err := st.Audit()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"args":{"lamports":"5","to":"x"},"client":"c","created_at":"1970-01-01T00:00:00Z","fingerprint":"f","id":"p1","owner":"uid 1001","preview":"","status":"pending","tool":"transfer_sol"}`
	if len(entries) != 1 || string(entries[0].Body) != want {
		t.Fatalf("audit entries %+v, want one proposal with body\n %s", entries, want)
	}
}
