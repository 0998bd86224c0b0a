package kinds

import (
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/mcpbridge/authority/args"
)

// TestTransferFingerprintAsNormalized: the transfer's directly written
// fingerprint is the generic one of its normalised arguments.
func TestTransferFingerprintAsNormalized(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 5))
	for i := range 20_000 {
		var to solana.PublicKey
		for j := range to {
			to[j] = byte(r.Uint32())
		}
		if i%7 == 0 {
			to = solana.PublicKey{} // "11111111111111111111111111111111"
		}
		a := TransferArgs{To: to, Lamports: r.Uint64() >> r.IntN(64)}
		if got, want := a.Fingerprint(), args.Fingerprint(a.ToolName(), a.Normalized()); got != want {
			t.Fatalf("%+v: %s, generic %s", a, got, want)
		}
	}
}
