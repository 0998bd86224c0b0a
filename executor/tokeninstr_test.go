package executor

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// The tags are the SPL Token program's published instruction numbers
// (spl-token TokenInstruction: Transfer = 3, CloseAccount = 9,
// TransferChecked = 12, SyncNative = 17), spelled here, not taken from the
// table under test.
func TestDescribeTokenInstruction(t *testing.T) {
	src, dst, auth, mint := pk("src"), pk("dst"), pk("auth"), pk("mint")
	le := func(v uint64) []byte {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return b
	}
	for _, tc := range []struct {
		data     []byte
		accounts []solana.PublicKey
		want     string
	}{
		{append([]byte{3}, le(1_250_000_000)...), []solana.PublicKey{src, dst, auth},
			"transfer 1250000000 base units from " + src.String() + " to " + dst.String() + " (authority " + auth.String() + ")"},
		{append(append([]byte{12}, le(5)...), 6), []solana.PublicKey{src, mint, dst, auth},
			"transfer 5 base units (6 decimals) of " + mint.String() + " from " + src.String()},
		{[]byte{9}, []solana.PublicKey{src, dst, auth}, "close account " + src.String() + ", balance to " + dst.String()},
		{[]byte{17}, []solana.PublicKey{src}, "sync native (wrapped SOL) of " + src.String()},
		{[]byte{1}, nil, "initialize account"},
		{[]byte{18}, nil, "initialize account (3)"},
		{[]byte{4}, nil, "approve a delegate"},
		{[]byte{200}, nil, "token instruction 200 (unknown)"},
		{nil, nil, "empty token instruction"},
	} {
		if got := describeTokenInstruction(tc.data, tc.accounts); !strings.HasPrefix(got, tc.want) {
			t.Errorf("% x: %q, want it to start %q", tc.data, got, tc.want)
		}
	}
}

func pk(seed string) solana.PublicKey {
	var b [32]byte
	copy(b[:], seed)
	return solana.PublicKeyFromBytes(b[:])
}
