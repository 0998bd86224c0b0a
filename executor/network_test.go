package executor_test

import (
	"testing"

	"github.com/solgate/solgate/executor"
)

// Published values: the CAIP-2 ids of the public clusters as the CAIP
// namespace, the x402 SVM packages and @solana/actions (BLOCKCHAIN_IDS)
// spell them, from the genesis hashes `solana genesis-hash` prints.
// Spelled here, never imported.
func TestCAIP2FromGenesis(t *testing.T) {
	for genesis, want := range map[string]string{
		"5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
		"EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
		"4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY": "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z",
	} {
		if got := executor.CAIP2(genesis); got != want {
			t.Errorf("CAIP2(%s) = %s, want %s", genesis, got, want)
		}
	}
}
