package executor

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// Every execution's bytes must be its own: the same message signed twice is
// one signature, and the second send is refused as already processed. The
// transactions solgate builds carry a memo naming their proposal; a swap's
// bytes are the swap API's, signed as given, so two identical swaps approved
// together could be built on one blockhash. An execution claims its message
// before it is signed; a message already claimed is built again on the
// chain's next blockhash.

// claimedMessageAge is how long a claim is kept: longer than a blockhash
// lives on mainnet (150 blocks, about a minute).
const claimedMessageAge = 5 * time.Minute

// maxClaimedMessages bounds the claims kept.
const maxClaimedMessages = 4096

// messageClaims are the messages this executor has prepared for execution.
type messageClaims struct {
	mu sync.Mutex
	m  map[[32]byte]time.Time
}

// claim records msg and reports whether it was new.
func (c *messageClaims) claim(msg []byte) bool {
	h := sha256.Sum256(msg)
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[[32]byte]time.Time{}
	}
	if at, ok := c.m[h]; ok && now.Sub(at) < claimedMessageAge {
		return false
	}
	if len(c.m) >= maxClaimedMessages {
		for k, at := range c.m {
			if now.Sub(at) >= claimedMessageAge {
				delete(c.m, k)
			}
		}
	}
	if len(c.m) >= maxClaimedMessages {
		// Every claim is recent: refuse rather than forget one.
		return false
	}
	c.m[h] = now
	return true
}

// ClaimMessage claims msg (a transaction's message bytes) for one
// execution; false: this console already prepared these exact bytes.
func (e *Executor) ClaimMessage(msg []byte) bool { return e.claims.claim(msg) }

// ErrSameBytes is wrapped when an execution could not get bytes of its own.
var ErrSameBytes = errors.New("the transaction's bytes are the same as another execution's")

// awaitNewBlockhash waits until the node's latest blockhash is no longer
// old: the event that lets a builder make different bytes. It asks the
// node about twice a slot at mainnet's pace.
func (e *Executor) awaitNewBlockhash(ctx context.Context, old solana.Hash) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		out, err := e.client.rpc.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
		if err == nil && out != nil && out.Value != nil && out.Value.Blockhash != old {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for a blockhash newer than %s: %w", old, ctx.Err())
		case <-tick.C:
		}
	}
}
