package executor

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Network is the cluster a console is connected to, identified by its genesis hash.
type Network string

const (
	Mainnet  Network = "mainnet-beta"
	Devnet   Network = "devnet"
	Testnet  Network = "testnet"
	Localnet Network = "localnet" // an unrecognised genesis hash served from this machine (loopback RPC)
	// UnknownNetwork is an unrecognised genesis hash served from anywhere else: a
	// private cluster, a new one, or a proxy that answers getGenesisHash
	// wrongly. Nothing says its funds are not real, so it is handled like
	// mainnet, with its own opt-in.
	UnknownNetwork Network = "unknown"
	// Unidentified is a cluster whose genesis hash could not be read at all;
	// no write is allowed on it.
	Unidentified Network = "unidentified"
)

// NetworkFromGenesis names the public cluster with this genesis hash. An
// unrecognised hash is UnknownNetwork: only IdentifyNetwork, which also knows the
// RPC URL, may call it a local ledger.
func NetworkFromGenesis(hash string) Network {
	if n, ok := publicClusters[hash]; ok {
		return n
	}
	if hash == "" {
		return Unidentified
	}
	return UnknownNetwork
}

// IdentifyNetwork decides the network from the genesis hash and the RPC URL.
// A public genesis hash is that cluster wherever it is served from (a
// loopback proxy to mainnet is mainnet). An unrecognised hash is a local
// ledger only when the RPC host is a loopback address; anywhere else it is
// UnknownNetwork.
func IdentifyNetwork(genesis, rpcURL string) Network {
	n := NetworkFromGenesis(genesis)
	if n == UnknownNetwork && IsLoopbackURL(rpcURL) {
		return Localnet
	}
	return n
}

// IsLoopbackURL reports whether the URL's host is this machine: localhost,
// an address in 127.0.0.0/8, or ::1. Any other name is not resolved: a name
// that happens to resolve to loopback today is still someone else's name.
func IsLoopbackURL(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsMainnet reports whether this is mainnet-beta itself.
func (n Network) IsMainnet() bool { return n == Mainnet }

// Guarded reports whether real funds may be at stake, so the console shows
// the network as loudly as mainnet and approval needs a second key: mainnet,
// and a cluster nobody can vouch for.
func (n Network) Guarded() bool { return n == Mainnet || n == UnknownNetwork }

// Label is the name shown to people.
func (n Network) Label() string {
	switch n {
	case Localnet:
		return "localnet/unknown"
	case UnknownNetwork:
		return "UNKNOWN NETWORK"
	case Unidentified:
		return "UNIDENTIFIED NETWORK"
	}
	return string(n)
}

// DetectNetwork asks the node for its genesis hash and identifies the
// network from it and the client's RPC URL.
func (c *Client) DetectNetwork(ctx context.Context) (Network, string, error) {
	h, err := c.rpc.GetGenesisHash(ctx)
	if err != nil {
		return Unidentified, "", fmt.Errorf("detect network: getGenesisHash: %w", err)
	}
	return IdentifyNetwork(h.String(), c.endpoint), h.String(), nil
}

// CAIP2 is the CAIP-2 id of the cluster with this genesis hash: "solana:"
// and the hash's first 32 characters. x402 offers and the Actions
// X-Blockchain-Ids header (sRFC 31) both name clusters this way.
func CAIP2(genesisHash string) string {
	if len(genesisHash) > 32 {
		genesisHash = genesisHash[:32]
	}
	return "solana:" + genesisHash
}
