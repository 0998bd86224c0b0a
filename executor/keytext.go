package executor

import (
	"sync/atomic"

	"github.com/gagliardetto/solana-go"
)

// KeyString is k.String(), the base58 text of an address, from a small
// cache. A proposal spells the same few addresses (the wallet, the
// recipient, the programs) a dozen times over, in the RPC batch, the
// instruction summaries, the preview and the answers, and each encoding
// costs about 3 µs: about 5 % of the console's CPU a proposal before the
// cache.
//
// The cache is direct-mapped and lock-free: a slot per low bits of the
// key, holding the last key seen there and its text. Its size is fixed,
// so a flood of distinct addresses costs misses, never memory, and two
// hot keys in one slot only take turns.
func KeyString(k solana.PublicKey) string {
	slot := &keyTexts[(uint(k[30])|uint(k[31])<<8)%uint(len(keyTexts))]
	if e := slot.Load(); e != nil && e.key == k {
		return e.text
	}
	e := &keyText{key: k, text: k.String()}
	slot.Store(e)
	return e.text
}

type keyText struct {
	key  solana.PublicKey
	text string
}

var keyTexts [1024]atomic.Pointer[keyText]
