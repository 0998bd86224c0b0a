package answer

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
)

// previewTextFmt and pendingTextFmt are Preview and Pending's
// text as they were written with fmt.
func previewTextFmt(p *writekind.Proposal, n executor.Network) string {
	var b strings.Builder
	for _, l := range p.Kind.PreviewLines(p) {
		b.WriteString(l + "\n")
	}
	if eff := p.Preview.Effects; !eff.Wallet.IsZero() {
		fmt.Fprintf(&b, "Effects (simulated, the measure the caps use): %s\n", eff.Summary())
	}
	for _, ins := range p.Preview.Instructions {
		fmt.Fprintf(&b, "Instruction: %s: %s\n", ins.Name, ins.Summary)
	}
	fmt.Fprintf(&b, "Network: %s", networkLine(n))
	if p.Preview.MessageSHA256 != "" {
		fmt.Fprintf(&b, "\nMessage sha256: %s", p.Preview.MessageSHA256)
	}
	for _, f := range p.Flags {
		fmt.Fprintf(&b, "\nWarning: %s", f.Text)
	}
	return b.String()
}

func pendingTextFmt(p *writekind.Proposal, text string, v approval.SpendSummary, n executor.Network, repeated bool) string {
	var b strings.Builder
	b.WriteString("CONFIRMATION REQUIRED — nothing has been signed or sent.\n")
	if repeated {
		b.WriteString("(This is the proposal already waiting for these exact arguments.)\n")
	}
	fmt.Fprintf(&b, "Proposal: %s (from %s)\n", p.ID, p.Client)
	if text != "" {
		b.WriteString(text)
	} else {
		b.WriteString(previewTextFmt(p, n))
	}
	b.WriteString("\n" + Caps(v) + "\n")
	fmt.Fprintf(&b, "Next: a human must approve this in the solgate console before %s. Call proposal_status with proposal_id %q and wait_seconds up to 45 to learn the decision. Once approved, call %s again with exactly the same arguments plus confirm set to the token proposal_status returns (if it returns none, ask the human for the token shown in their console).",
		p.ExpiresAt.UTC().Format(time.RFC3339), p.ID, p.Tool)
	return b.String()
}

// linesKind is a kind with given preview lines and nothing else.
type linesKind struct {
	writekind.Kind
	lines []string
}

func (k linesKind) PreviewLines(*writekind.Proposal) []string           { return k.lines }
func (k linesKind) Structured(_ *writekind.Proposal, st map[string]any) { st["kind"] = "lines" }

// TestProposalTextsAsFmt: Preview and Pending's text are the fmt
// spellings they had, on 20,000 proposals with texts of every kind (empty,
// %-verbs, quotes, control characters, invalid UTF-8, unicode).
func TestProposalTextsAsFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 10))
	text := func() string {
		return []string{"", "plain", "100% of %s %d %q", `a "quoted" \ one`, "tab\tnew\nline", "\xff\xfe bad", "日本 🔴", "Proposal p_1"}[r.IntN(8)]
	}
	for i := range 20_000 {
		var lines []string
		for range r.IntN(4) {
			lines = append(lines, text())
		}
		p := &writekind.Proposal{ID: "p_" + text(), Tool: text(), Client: text(), Kind: linesKind{lines: lines},
			ExpiresAt: time.Unix(int64(r.Uint32()), int64(r.IntN(1e9))).In(time.FixedZone("x", 3600*(r.IntN(25)-12)))}
		if r.IntN(2) == 0 {
			var w solana.PublicKey
			w[0] = byte(1 + r.IntN(255))
			p.Preview.Effects = executor.Effects{Wallet: w, SOLBefore: r.Uint64() >> r.IntN(64), SOLAfter: r.Uint64() >> r.IntN(64), NetworkFee: 5000}
		}
		for range r.IntN(3) {
			p.Preview.Instructions = append(p.Preview.Instructions, executor.InstructionSummary{Name: text(), Summary: text()})
		}
		if r.IntN(2) == 0 {
			p.Preview.MessageSHA256 = fmt.Sprintf("%064x", r.Uint64())
		}
		for range r.IntN(3) {
			p.Flags = append(p.Flags, approval.Flag{Text: text()})
		}
		var recorded string
		if i%5 == 0 {
			recorded = text()
		}
		n := []executor.Network{"localnet", "devnet", "mainnet-beta", "unknown"}[r.IntN(4)]
		v := approval.SpendSummary{PerTx: r.Uint64() >> r.IntN(64), PerDay: uint64(r.IntN(2)) * 7}
		if got, want := Preview(p, n), previewTextFmt(p, n); got != want {
			t.Fatalf("Preview\n%q\nfmt\n%q", got, want)
		}
		repeated := i%3 == 0
		res := Pending(p, recorded, v, n, repeated)
		if want := pendingTextFmt(p, recorded, v, n, repeated); res.Text != want {
			t.Fatalf("Pending text\n%q\nfmt\n%q", res.Text, want)
		}
		if got := res.Structured["expires_at"]; !reflect.DeepEqual(got, p.ExpiresAt.UTC().Format(time.RFC3339)) {
			t.Fatalf("expires_at %v", got)
		}
	}
}
