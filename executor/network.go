package executor

import (
	"context"
	"fmt"
)

// Network is the cluster a console is connected to, identified by its genesis hash.
type Network string

const (
	Mainnet  Network = "mainnet-beta"
	Devnet   Network = "devnet"
	Testnet  Network = "testnet"
	Localnet Network = "localnet" // any genesis hash we do not recognise
)

// Genesis hashes of the public clusters. The network is decided from these and
// never from the RPC URL: a URL can be named anything, a genesis hash cannot.
var genesisHashes = map[string]Network{
	"5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dm2NN":  Mainnet,
	"EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG": Devnet,
	"4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY": Testnet,
}

// NetworkFromGenesis maps a genesis hash to a network; unknown hashes are Localnet.
func NetworkFromGenesis(hash string) Network {
	if n, ok := genesisHashes[hash]; ok {
		return n
	}
	return Localnet
}

// IsMainnet reports whether real funds are at stake.
func (n Network) IsMainnet() bool { return n == Mainnet }

// Label is the name shown to people: unknown clusters are called "localnet/unknown"
// so nobody mistakes a private ledger for a public one.
func (n Network) Label() string {
	if n == Localnet {
		return "localnet/unknown"
	}
	return string(n)
}

// DetectNetwork asks the node for its genesis hash.
func (c *Client) DetectNetwork(ctx context.Context) (Network, string, error) {
	h, err := c.rpc.GetGenesisHash(ctx)
	if err != nil {
		return "", "", fmt.Errorf("detect network: getGenesisHash: %w", err)
	}
	return NetworkFromGenesis(h.String()), h.String(), nil
}
