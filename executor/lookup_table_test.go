package executor_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
)

// An address lookup table account as the program lays it out (its
// ProgramState: u32 type 1 = LookupTable, u64 deactivation slot, u64 last
// extended slot, u8 start index, Option<Pubkey> authority, u16 padding: 56
// bytes), then the addresses, 32 bytes each. Built here from that layout, not
// with the decoder under test.
func lookupTableBytes(typ uint32, addrs ...solana.PublicKey) []byte {
	b := binary.LittleEndian.AppendUint32(nil, typ)
	b = binary.LittleEndian.AppendUint64(b, ^uint64(0)) // not deactivated
	b = binary.LittleEndian.AppendUint64(b, 7)
	b = append(b, 0, 1) // start index, authority present
	b = append(b, solana.NewWallet().PublicKey().Bytes()...)
	b = append(b, 0, 0) // padding
	for _, a := range addrs {
		b = append(b, a.Bytes()...)
	}
	return b
}

func TestParseLookupTable(t *testing.T) {
	a, b := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	alt := solana.MustPublicKeyFromBase58("AddressLookupTab1e1111111111111111111111111")
	got, err := executor.ParseLookupTable(alt, lookupTableBytes(1, a, b))
	if err != nil || len(got) != 2 || !got[0].Equals(a) || !got[1].Equals(b) {
		t.Fatalf("two addresses: %v %v", got, err)
	}
	if got, err := executor.ParseLookupTable(alt, lookupTableBytes(1)); err != nil || len(got) != 0 {
		t.Fatalf("an empty table: %v %v", got, err)
	}
	for _, tc := range []struct {
		name  string
		owner solana.PublicKey
		data  []byte
		want  string
	}{
		{"another owner", solana.SystemProgramID, lookupTableBytes(1, a), "not the address lookup table program"},
		{"ragged tail", alt, append(lookupTableBytes(1, a), 1, 2, 3), "not a lookup table layout"},
		{"short header", alt, lookupTableBytes(1)[:54], "not a lookup table layout"},
		{"uninitialized", alt, lookupTableBytes(0, a), "not an initialized lookup table"},
	} {
		if _, err := executor.ParseLookupTable(tc.owner, tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
