package localnet_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mr-tron/base58"

	"github.com/solgate/solgate/localnet"
)

// TestBase58MatchesTheReference holds the ledger's own base58 (wire.mjs,
// which every address and signature it reads or writes goes through) to
// mr-tron/base58, solana-go's: random byte strings of every length up to
// 100 with and without leading zeros encode to the same text and decode
// back, and characters outside the alphabet are refused.
func TestBase58MatchesTheReference(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("needs node (Node.js 20+) on PATH: the ledger is a Node program, and .ci/run installs it")
	}
	const script = `
import readline from 'node:readline';
import { b58encode, b58decode } from './wire.mjs';
const out = [];
for await (const line of readline.createInterface({ input: process.stdin })) {
  const kind = line.slice(0, 3);
  const arg = line.slice(4);
  if (kind === 'enc') {
    const s = b58encode(Buffer.from(arg ?? '', 'hex'));
    out.push(s + ' ' + Buffer.from(b58decode(s)).toString('hex'));
  } else {
    try { out.push('ok ' + Buffer.from(b58decode(arg)).toString('hex')); } catch (e) { out.push('refused'); }
  }
}
process.stdout.write(out.join('\n') + '\n');
`
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for n := 0; n <= 100; n++ {
		for k := 0; k < 20; k++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.UintN(256))
			}
			switch k {
			case 0:
				clear(b)
			case 1:
				for i := range b {
					b[i] = 0xff
				}
			default:
				for i := 0; i < k%4 && i < n; i++ {
					b[i] = 0
				}
			}
			inputs = append(inputs, b)
		}
	}
	bad := []string{"0", "O", "I", "l", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNL0", "é", "abc!", " 1"}
	var in strings.Builder
	for _, b := range inputs {
		fmt.Fprintf(&in, "enc %s\n", hex.EncodeToString(b))
	}
	for _, s := range bad {
		fmt.Fprintf(&in, "dec %s\n", s)
	}
	cmd := exec.Command("node", "--input-type=module", "-e", script)
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimRight(string(got), "\n"), "\n")
	if len(lines) != len(inputs)+len(bad) {
		t.Fatalf("%d answers for %d inputs", len(lines), len(inputs)+len(bad))
	}
	for i, b := range inputs {
		enc, back, _ := strings.Cut(lines[i], " ")
		if want := base58.Encode(b); enc != want {
			t.Fatalf("b58encode(%x) = %q, want %q", b, enc, want)
		}
		if back != hex.EncodeToString(b) {
			t.Fatalf("b58decode(%q) = %s, want %x", enc, back, b)
		}
	}
	for i, s := range bad {
		if l := lines[len(inputs)+i]; l != "refused" {
			t.Errorf("b58decode(%q) = %q, want it refused", s, l)
		}
	}
}

// TestAnswersWriteU64sExactly reads an account whose balance is above 2^53
// and checks the answer's text: lamports and rentEpoch (u64::MAX for a
// rent-exempt account, as real nodes write it) are bare integers, exact.
func TestAnswersWriteU64sExactly(t *testing.T) {
	l, _ := start(t, localnet.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr := "7RKQHYRXwdM1WeioBWMrmSWQj6nJkxwjkfnK78DYZUeN"
	const lamports = 1<<53 + 1 // a float64 would round it to 2^53
	if err := l.Fund(ctx, addr, lamports); err != nil {
		t.Fatal(err)
	}
	body := postRaw(t, l, `[{"jsonrpc":"2.0","id":1,"method":"getAccountInfo","params":["`+addr+`",{"encoding":"base64"}]},`+
		`{"jsonrpc":"2.0","id":2,"method":"getBalance","params":["`+addr+`"]}]`)
	for _, want := range []string{
		`"lamports":9007199254740993,`,
		`"rentEpoch":18446744073709551615,`,
		`"value":9007199254740993}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("answer lacks %s:\n%s", want, body)
		}
	}
}

// TestSlotHashesSysvarFollowsTheSlots reads the SlotHashes sysvar after
// 600 slots, each of whose blockhash was read as it was issued, and checks
// it as a node's: 20 488 bytes owned by the sysvar program, 512 entries,
// newest first, each slot with the blockhash issued at it. A sysvar not
// rewritten at each slot, or rewritten out of order, fails here.
func TestSlotHashesSysvarFollowsTheSlots(t *testing.T) {
	l, _ := start(t, localnet.Options{SlotMS: 400})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	type slotHash struct {
		slot uint64
		hash string
	}
	type answer struct {
		Result json.RawMessage `json:"result"`
		Error  any             `json:"error"`
	}
	blockhash := func(a answer) slotHash {
		var r struct {
			Context struct{ Slot uint64 } `json:"context"`
			Value   struct{ Blockhash string }
		}
		if err := json.Unmarshal(a.Result, &r); err != nil || a.Error != nil {
			t.Fatalf("getLatestBlockhash: %v %v", err, a.Error)
		}
		return slotHash{r.Context.Slot, r.Value.Blockhash}
	}
	// issue has the ledger pass n slots, one a call of a split batch, and
	// returns the blockhash issued at each.
	issue := func(n int) map[uint64]string {
		if err := l.SplitBatchSlots(ctx, 1); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `,{"jsonrpc":"2.0","id":%d,"method":"getLatestBlockhash","params":[]}`, i)
		}
		var answers []answer
		if err := json.Unmarshal([]byte(postRaw(t, l, "["+b.String()[1:]+"]")), &answers); err != nil || len(answers) != n {
			t.Fatalf("batch answer: %v (%d answers)", err, len(answers))
		}
		issued := map[uint64]string{}
		for _, a := range answers {
			h := blockhash(a)
			issued[h.slot] = h.hash
		}
		return issued
	}
	// read returns the latest blockhash and the sysvar's entries, read in
	// one batch (one slot), and the sysvar's size.
	read := func() (latest slotHash, entries []slotHash, size int) {
		var answers []answer
		body := postRaw(t, l, `[{"jsonrpc":"2.0","id":1,"method":"getLatestBlockhash","params":[]},`+
			`{"jsonrpc":"2.0","id":2,"method":"getAccountInfo","params":["SysvarS1otHashes111111111111111111111111111",{"encoding":"base64"}]}]`)
		if err := json.Unmarshal([]byte(body), &answers); err != nil || len(answers) != 2 {
			t.Fatalf("batch answer: %v: %s", err, body)
		}
		latest = blockhash(answers[0])
		var acct struct {
			Context struct{ Slot uint64 } `json:"context"`
			Value   struct {
				Lamports   uint64    `json:"lamports"`
				Owner      string    `json:"owner"`
				Executable bool      `json:"executable"`
				Data       [2]string `json:"data"`
			}
		}
		if err := json.Unmarshal(answers[1].Result, &acct); err != nil {
			t.Fatalf("getAccountInfo: %v: %s", err, answers[1].Result)
		}
		if acct.Context.Slot != latest.slot {
			t.Fatalf("sysvar read at slot %d, blockhash at %d", acct.Context.Slot, latest.slot)
		}
		if acct.Value.Lamports != 1 || acct.Value.Owner != "Sysvar1111111111111111111111111111111111111" || acct.Value.Executable {
			t.Fatalf("SlotHashes account: %+v", acct.Value)
		}
		data, err := base64.StdEncoding.DecodeString(acct.Value.Data[0])
		if err != nil {
			t.Fatal(err)
		}
		n := binary.LittleEndian.Uint64(data)
		if n > 512 || len(data) < 8+int(n)*40 {
			t.Fatalf("SlotHashes: %d entries in %d bytes", n, len(data))
		}
		for i := 0; i < int(n); i++ {
			e := data[8+40*i:]
			entries = append(entries, slotHash{binary.LittleEndian.Uint64(e), base58.Encode(e[8:40])})
		}
		if !bytes.Equal(data[8+40*n:], make([]byte, len(data)-8-40*int(n))) {
			t.Errorf("SlotHashes: bytes after the %d entries are not zero", n)
		}
		return latest, entries, len(data)
	}

	// A young ledger: fewer entries than the sysvar holds.
	latest, entries, size := read()
	if size != 20488 {
		t.Errorf("SlotHashes data is %d bytes, want 20488", size)
	}
	if len(entries) == 0 || len(entries) >= 512 || entries[0] != latest {
		t.Fatalf("SlotHashes: %d entries, head %+v, want %+v", len(entries), entries, latest)
	}

	// 600 more slots, each blockhash read as it was issued.
	issued := issue(600)
	latest, entries, size = read()
	issued[latest.slot] = latest.hash
	if size != 20488 || len(entries) != 512 {
		t.Fatalf("SlotHashes after 600 slots: %d entries in %d bytes, want 512 in 20488", len(entries), size)
	}
	for i, e := range entries {
		s := latest.slot - uint64(i)
		want, ok := issued[s]
		if !ok && i < 500 {
			t.Fatalf("no blockhash seen at slot %d", s)
		}
		if e.slot != s || (ok && e.hash != want) {
			t.Fatalf("SlotHashes entry %d = %+v, want slot %d with %s (the blockhash issued at it)", i, e, s, want)
		}
	}
}

// postRaw sends body to the ledger's JSON-RPC endpoint and returns the
// answer's text.
func postRaw(t *testing.T, l *localnet.Ledger, body string) string {
	t.Helper()
	resp, err := http.Post(l.RPC(), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(bufio.NewReader(resp.Body))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d: %v: %s", resp.StatusCode, err, b)
	}
	return string(b)
}
