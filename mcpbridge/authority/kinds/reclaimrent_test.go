package kinds

import (
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// tokenAccountData is an SPL token account as the programs lay it out
// (165 bytes: mint, owner, amount, delegate COption, state, is_native
// COption, delegated amount, close authority COption), written here byte
// by byte rather than through the decoder under test.
func tokenAccountData(owner solana.PublicKey, amount uint64, state byte, native *uint64, closeAuth *solana.PublicKey) []byte {
	d := make([]byte, 165)
	copy(d[32:64], owner[:])
	binary.LittleEndian.PutUint64(d[64:], amount)
	d[108] = state
	if native != nil {
		binary.LittleEndian.PutUint32(d[109:], 1)
		binary.LittleEndian.PutUint64(d[113:], *native)
	}
	if closeAuth != nil {
		binary.LittleEndian.PutUint32(d[129:], 1)
		copy(d[133:165], closeAuth[:])
	}
	return d
}

// with2022 appends Token-2022's account type byte (2: Account) and TLV
// entries (type u16, length u16, value).
func with2022(d []byte, accountType byte, tlv ...[]byte) []byte {
	d = append(d, accountType)
	for _, e := range tlv {
		d = append(d, e...)
	}
	return d
}

func tlvEntry(typ uint16, v []byte) []byte {
	e := make([]byte, 4, 4+len(v))
	binary.LittleEndian.PutUint16(e, typ)
	binary.LittleEndian.PutUint16(e[2:], uint16(len(v)))
	return append(e, v...)
}

func u64le(n uint64) []byte { return binary.LittleEndian.AppendUint64(nil, n) }

// reclaim_rent closes only accounts whose closing returns nothing but rent:
// never one holding tokens, frozen, another's to close, a wrapped-SOL
// account with a balance, or (Token-2022) one with a withheld fee or
// confidential balances.
func TestClosableAccounts(t *testing.T) {
	wallet, other := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	const rent = 2_039_280
	reserve := uint64(rent)
	const initialized, frozen = 1, 2
	for _, tc := range []struct {
		name     string
		data     []byte
		lamports uint64
		want     bool
	}{
		{"empty", tokenAccountData(wallet, 0, initialized, nil, nil), rent, true},
		{"holds tokens", tokenAccountData(wallet, 5, initialized, nil, nil), rent, false},
		{"frozen", tokenAccountData(wallet, 0, frozen, nil, nil), rent, false},
		{"another owner", tokenAccountData(other, 0, initialized, nil, nil), rent, false},
		{"another close authority", tokenAccountData(wallet, 0, initialized, nil, &other), rent, false},
		{"the wallet as close authority", tokenAccountData(wallet, 0, initialized, nil, &wallet), rent, true},
		{"wrapped SOL, nothing wrapped", tokenAccountData(wallet, 0, initialized, &reserve, nil), rent, true},
		{"wrapped SOL with a balance", tokenAccountData(wallet, 1_000_000, initialized, &reserve, nil), rent + 1_000_000, false},
		{"wrapped SOL, lamports not yet synced", tokenAccountData(wallet, 0, initialized, &reserve, nil), rent + 1, false},
		{"Token-2022, no fee withheld", with2022(tokenAccountData(wallet, 0, initialized, nil, nil), 2, tlvEntry(7, nil), tlvEntry(2, u64le(0))), rent, true},
		{"Token-2022, a fee withheld", with2022(tokenAccountData(wallet, 0, initialized, nil, nil), 2, tlvEntry(2, u64le(7))), rent, false},
		{"Token-2022, confidential balances", with2022(tokenAccountData(wallet, 0, initialized, nil, nil), 2, tlvEntry(5, make([]byte, 286))), rent, false},
		{"Token-2022, not an account", with2022(tokenAccountData(wallet, 0, initialized, nil, nil), 1), rent, false},
		{"Token-2022, an entry overruns", with2022(tokenAccountData(wallet, 0, initialized, nil, nil), 2, tlvEntry(2, u64le(0))[:8]), rent, false},
		{"too short", tokenAccountData(wallet, 0, initialized, nil, nil)[:164], rent, false},
	} {
		if _, got := closable(tc.data, tc.lamports, wallet); got != tc.want {
			t.Errorf("%s: closable %v, want %v", tc.name, got, tc.want)
		}
	}
}
