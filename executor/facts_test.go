package executor_test

import (
	"testing"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/policy"
)

// Every fact solgate relies on, against its published value spelled out
// here, never taken from the product. Sources: `solana genesis-hash` against
// each public cluster; the Solana docs' program and sysvar lists; Circle's
// and Tether's published Solana mint addresses.
func TestFactsMatchPublishedValues(t *testing.T) {
	for _, f := range []struct {
		name, got, published string
	}{
		{"mainnet-beta genesis", executor.GenesisMainnetBeta, "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"},
		{"devnet genesis", executor.GenesisDevnet, "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"},
		{"testnet genesis", executor.GenesisTestnet, "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY"},
		{"USDC mint", executor.USDCMint.String(), "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
		{"USDC mint on devnet (Circle)", executor.USDCMintDevnet.String(), "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"},
		{"USDT mint", executor.USDTMint.String(), "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"},
		{"wrapped SOL mint", executor.WrappedSOL.String(), "So11111111111111111111111111111111111111112"},
		{"policy's native mint", policy.NativeMint, "So11111111111111111111111111111111111111112"},
		{"Jupiter v6 aggregator", executor.JupiterV6Program.String(), "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"},
		// Exported by solana-go and used directly by the product.
		{"System Program", solana.SystemProgramID.String(), "11111111111111111111111111111111"},
		{"SPL Token", solana.TokenProgramID.String(), "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"},
		{"SPL Token-2022", solana.Token2022ProgramID.String(), "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"},
		{"Associated Token Account", solana.SPLAssociatedTokenAccountProgramID.String(), "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"},
		{"Compute Budget", solana.ComputeBudget.String(), "ComputeBudget111111111111111111111111111111"},
		{"Memo", solana.MemoProgramID.String(), "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"},
		{"Token Metadata", solana.TokenMetadataProgramID.String(), "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s"},
		{"Address Lookup Table", solana.AddressLookupTableProgramID.String(), "AddressLookupTab1e1111111111111111111111111"},
		{"sysvar Rent", solana.SysVarRentPubkey.String(), "SysvarRent111111111111111111111111111111111"},
		{"sysvar Clock", solana.SysVarClockPubkey.String(), "SysvarC1ock11111111111111111111111111111111"},
		{"sysvar Instructions", solana.SysVarInstructionsPubkey.String(), "Sysvar1nstructions1111111111111111111111111"},
	} {
		if f.got != f.published {
			t.Errorf("%s is %s, published value %s", f.name, f.got, f.published)
		}
	}
}

// The published genesis hashes, spelled out, identify their clusters wherever
// they are served from; anything else depends on where the RPC is.
func TestIdentifyNetwork(t *testing.T) {
	const private = "GH7ome3EiwEr7tu9JuTh2dpYWBJK3z69Xm1ZE3MEE6JC" // no public cluster's
	for _, tc := range []struct {
		genesis, url string
		want         executor.Network
	}{
		{"5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d", "http://127.0.0.1:8899", executor.Mainnet},
		{"5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d", "https://rpc.example.org", executor.Mainnet},
		{"EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG", "https://rpc.example.org", executor.Devnet},
		{"4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY", "http://localhost:8899", executor.Testnet},
		// The wrong value solgate once shipped is just an unknown hash.
		{"5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dm2NN", "https://rpc.example.org", executor.UnknownNetwork},
		{private, "http://127.0.0.1:8899", executor.Localnet},
		{private, "http://127.4.5.6:8899", executor.Localnet},
		{private, "http://[::1]:8899", executor.Localnet},
		{private, "http://LOCALHOST:8899", executor.Localnet},
		{private, "https://rpc.example.org", executor.UnknownNetwork},
		{private, "http://10.0.0.5:8899", executor.UnknownNetwork},
		{private, "http://0.0.0.0:8899", executor.UnknownNetwork},
		{private, "http://127.0.0.1.example.org:8899", executor.UnknownNetwork},
		{private, "http://localhost.example.org", executor.UnknownNetwork},
		{private, "http://[::ffff:10.0.0.1]:8899", executor.UnknownNetwork},
		{private, "not a url\x7f", executor.UnknownNetwork},
		{"", "http://127.0.0.1:8899", executor.Unidentified},
	} {
		if got := executor.IdentifyNetwork(tc.genesis, tc.url); got != tc.want {
			t.Errorf("IdentifyNetwork(%s, %q) = %s, want %s", tc.genesis, tc.url, got, tc.want)
		}
	}
	for n, guarded := range map[executor.Network]bool{
		executor.Mainnet: true, executor.UnknownNetwork: true,
		executor.Devnet: false, executor.Testnet: false, executor.Localnet: false,
	} {
		if n.Guarded() != guarded {
			t.Errorf("%s.Guarded() = %v", n, !guarded)
		}
	}
}
