package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
)

// A token transfer's bytes depend on what is read before them: the mint's
// token program (which decides both associated token accounts) and
// decimals (TransferChecked carries them), and whether the recipient's
// account exists (the transaction creates it or not). Read first, that is
// a round before the round that simulates. A mint's program and decimals
// do not change, and a recipient's account rarely comes or goes, so a
// preview builds on what the last preview of the same mint and recipient
// read, and reads the mint, its metadata and the recipient's address in
// the simulating round itself (besideBatch). The result stands only when
// those fresh reads, and the token accounts as the simulation's own reads
// saw them, pass every check the long way makes and give the same bytes:
// otherwise nothing of it is used and the preview reads first, as before.
// Execution never guesses.

// tokenShape is what building a token transfer needs from the chain.
type tokenShape struct {
	program  solana.PublicKey
	decimals uint8
	create   bool
}

type tokenShapes struct {
	mu sync.Mutex
	m  map[string]tokenShape
	// mints are the mints as the last token preview read them.
	mints map[solana.PublicKey]*TokenInfo
}

// RecentTokenInfo is mint as the last token transfer preview read it, if
// one did: for what does not change (its program and decimals) and for a
// label to show until the next read. Whatever judges a transfer comes from
// its own preview's read.
func (e *Executor) RecentTokenInfo(mint solana.PublicKey) (*TokenInfo, bool) {
	s := &e.tokenShapes
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.mints[mint]
	return info, ok
}

func (s *tokenShapes) putMint(info *TokenInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mints == nil || len(s.mints) >= maxForecasts {
		s.mints = map[solana.PublicKey]*TokenInfo{}
	}
	s.mints[info.Mint] = info
}

func tokenShapeKey(t TokenTransfer) string { return string(t.Mint[:]) + string(t.To[:]) }

func (s *tokenShapes) get(t TokenTransfer) (tokenShape, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[tokenShapeKey(t)]
	return v, ok
}

func (s *tokenShapes) put(t TokenTransfer, v tokenShape) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxForecasts {
		s.m = map[string]tokenShape{}
	}
	s.m[tokenShapeKey(t)] = v
}

func (s *tokenShapes) forget(t TokenTransfer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, tokenShapeKey(t))
}

// errShapeChanged: the chain no longer matches what the transfer was built on.
var errShapeChanged = errors.New("token transfer: the mint or the recipient's account changed since the last preview")

// tokenInOneRound builds t on shape and simulates it in one round with the
// reads the long way makes first, then checks them as the long way does.
func (e *Executor) tokenInOneRound(ctx context.Context, t TokenTransfer, maxAge time.Duration, shape tokenShape) (builtToken, error) {
	wallet := e.key.PublicKey()
	src, err := AssociatedTokenAddress(wallet, t.Mint, shape.program)
	if err != nil {
		return builtToken{}, err
	}
	dst, err := AssociatedTokenAddress(t.To, t.Mint, shape.program)
	if err != nil {
		return builtToken{}, err
	}
	mdAddr, _, err := solana.FindTokenMetadataAddress(t.Mint)
	if err != nil {
		return builtToken{}, err
	}
	ixs, err := tokenInstructions(wallet, t, &TokenInfo{Program: shape.program, Decimals: shape.decimals}, src, dst, shape.create)
	if err != nil {
		return builtToken{}, err
	}
	reads := &besideBatch{calls: []marketCall{{"getMultipleAccounts", []any{keyStrings([]solana.PublicKey{t.Mint, mdAddr, t.To}), accountsOpts}}}}
	tx, _, bh, preview, sim, err := e.budgetedSimulation(ctx, "token transfer", ixs, maxAge, nil, reads)
	if err != nil {
		return builtToken{}, err
	}
	if len(reads.answers) != 1 {
		return builtToken{}, errors.New("token transfer: the mint was not read with the simulation")
	}
	var got accountsAnswer
	if err := reads.answers[0].decode(&got); err != nil || len(got.Value) != 3 {
		return builtToken{}, fmt.Errorf("token transfer: read the mint and the recipient: %v", err)
	}
	read, err := got.Value.accounts()
	if err != nil {
		return builtToken{}, fmt.Errorf("token transfer: read the mint and the recipient: %w", err)
	}
	info, err := tokenInfoFrom(t.Mint, mdAddr, read[0], read[1])
	if err != nil {
		return builtToken{}, err
	}
	if !info.Program.Equals(shape.program) || info.Decimals != shape.decimals {
		return builtToken{}, errShapeChanged
	}
	for _, w := range info.Warnings {
		if _, ok := refusedExtensions[w.Kind]; ok {
			return builtToken{}, errShapeChanged // the long way says why
		}
	}
	// The token accounts as the simulation's own reads saw them (both are
	// written by the transfer, so the engine watches them).
	var srcAcct, dstAcct = -1, -1
	for i, k := range sim.Keys {
		switch {
		case k.Equals(src):
			srcAcct = i
		case k.Equals(dst):
			dstAcct = i
		}
	}
	if srcAcct < 0 || dstAcct < 0 {
		return builtToken{}, errors.New("token transfer: the simulation did not read the token accounts")
	}
	create, err := checkTokenAccounts(t, wallet, src, dst, sim.Before[srcAcct], sim.Before[dstAcct], read[2])
	if err != nil || create != shape.create {
		return builtToken{}, errShapeChanged
	}
	return builtToken{info: info, src: src, dst: dst, create: create, tx: tx, bh: bh, preview: preview, sim: sim}, nil
}
