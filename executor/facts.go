package executor

import solana "github.com/gagliardetto/solana-go"

// Facts from the world that solgate relies on, in one place. Each one has a
// source, and executor/facts_test.go spells every published value literally,
// so a typo here fails a test instead of agreeing with itself (a wrong
// mainnet genesis hash once passed every test because code, tests and the
// localnet shared one copy).
//
// Program ids and sysvars come from solana-go, which exports them
// (solana.SystemProgramID, solana.TokenProgramID, solana.Token2022ProgramID,
// solana.SPLAssociatedTokenAccountProgramID, solana.ComputeBudget,
// solana.MemoProgramID, solana.TokenMetadataProgramID,
// solana.AddressLookupTableProgramID, solana.SysVarRentPubkey, ...); the
// code uses those directly and the facts test checks them too. What
// solana-go does not export lives here.

// Genesis hashes of the public clusters: what `solana genesis-hash` prints
// against each cluster's public RPC endpoint, and the chain ids of the
// wallet-standard Solana chains (solana:mainnet, solana:devnet,
// solana:testnet) are derived from the same strings.
const (
	GenesisMainnetBeta = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"
	GenesisDevnet      = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"
	GenesisTestnet     = "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY"
)

// publicClusters maps each public genesis hash to its network. The network
// is decided from these and never from the RPC URL's name: a URL can be
// named anything, a genesis hash cannot.
var publicClusters = map[string]Network{
	GenesisMainnetBeta: Mainnet,
	GenesisDevnet:      Devnet,
	GenesisTestnet:     Testnet,
}

// Mints on mainnet-beta that impostor tokens imitate. Sources: Circle's list
// of USDC contract addresses (Solana) and Tether's list of supported
// protocols (Solana); wrapped SOL is the SPL Token native mint, exported by
// solana-go as solana.SolMint.
var (
	// WrappedSOL stands for SOL in swap quotes.
	WrappedSOL = solana.SolMint
	USDCMint   = solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
	USDTMint   = solana.MustPublicKeyFromBase58("Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB")
)

// Mints on devnet that impostor tokens imitate there. Source: Circle's list
// of USDC contract addresses (Solana devnet). Tether publishes no devnet
// USDT, so a "USDT" on devnet is judged against mainnet's.
var USDCMintDevnet = solana.MustPublicKeyFromBase58("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU")

// JupiterV6Program is the program every transaction of Jupiter's Swap API
// invokes (its v6 aggregator; the program id in Jupiter's docs and in
// jup-ag/jupiter-swap-api-client). Swappers always allow it.
var JupiterV6Program = solana.MustPublicKeyFromBase58("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4")
