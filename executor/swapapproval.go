package executor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// ErrSwapChanged is matched by *SwapChangedError: at execution the swap API
// answered with a transaction other than the one the human approved.
var ErrSwapChanged = errors.New("the swap API returned a different transaction than the one approved")

// SwapChangedError names the difference. Nothing was signed or sent.
type SwapChangedError struct {
	Difference string
}

func (e *SwapChangedError) Error() string {
	return ErrSwapChanged.Error() + ": " + e.Difference + "; nothing was signed or sent"
}

func (e *SwapChangedError) Is(target error) bool { return target == ErrSwapChanged }

// SwapApproval is what a human approved about a swap transaction: its
// terms, the programs it runs, the wallet's accounts it names (and whether
// it can write them), and the budget its simulated outflow fitted. The
// transaction built at execution must match it.
type SwapApproval struct {
	Terms    SwapTerms
	Programs []solana.PublicKey
	// WalletAccounts maps each of the wallet's accounts the message names to
	// whether the message can write it.
	WalletAccounts map[solana.PublicKey]bool
	Budget         SwapBudget
	MessageSHA256  string
}

// Approval is what approving p binds.
func (p *PreparedSwap) Approval() SwapApproval {
	wa := make(map[solana.PublicKey]bool, len(p.walletAccounts))
	for k, v := range p.walletAccounts {
		wa[k] = v
	}
	return SwapApproval{
		Terms:          p.Terms,
		Programs:       append([]solana.PublicKey(nil), p.Preview.Programs...),
		WalletAccounts: wa,
		Budget:         p.Budget,
		MessageSHA256:  p.Preview.MessageSHA256,
	}
}

// Check compares a transaction prepared at execution with the approved one.
// A nil error means it may be signed.
func (a SwapApproval) Check(p *PreparedSwap) error {
	changed := func(format string, args ...any) error {
		return &SwapChangedError{Difference: fmt.Sprintf(format, args...)}
	}
	t, at := p.Terms, a.Terms
	switch {
	case !t.InputMint.Equals(at.InputMint) || !t.OutputMint.Equals(at.OutputMint):
		return changed("it swaps %s for %s, the approval %s for %s", t.InputMint, t.OutputMint, at.InputMint, at.OutputMint)
	case t.InAmount != at.InAmount:
		return changed("its input is %d, the approved input %d", t.InAmount, at.InAmount)
	case t.MinimumOut < at.MinimumOut:
		return changed("its minimum out is %d, below the approved %d", t.MinimumOut, at.MinimumOut)
	case p.Preview.SimulatedOut < at.MinimumOut:
		return changed("its simulation gives %d, below the approved minimum %d", p.Preview.SimulatedOut, at.MinimumOut)
	}
	if got, want := keyList(p.Preview.Programs), keyList(a.Programs); got != want {
		return changed("it runs programs [%s], the approved one [%s]", got, want)
	}
	for k, w := range p.walletAccounts {
		aw, ok := a.WalletAccounts[k]
		switch {
		case !ok:
			return changed("it names the wallet's account %s, which the approved one did not", k)
		case aw != w:
			return changed("it can write the wallet's account %s: %v, in the approved one: %v", k, w, aw)
		}
	}
	for k := range a.WalletAccounts {
		if _, ok := p.walletAccounts[k]; !ok {
			return changed("it leaves out the wallet's account %s, which the approved one named", k)
		}
	}
	if p.Preview.Fee > a.Budget.Fee {
		return changed("its fee is %d lamports (priority fee %d), above the approved bound of %d", p.Preview.Fee, p.Preview.PriorityFee, a.Budget.Fee)
	}
	if err := a.Budget.Check(p.Effect); err != nil {
		return changed("in its simulation %v", err)
	}
	return nil
}

func keyList(keys []solana.PublicKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = k.String()
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// PrepareApproved prepares the execution of an approved swap: a fresh quote
// (refused with *PriceMovedError when its minimum fell), the API's new
// transaction inspected and simulated, and compared with the approval. Any
// refusal of the new transaction is a *SwapChangedError: the approved one
// passed the same checks.
func (s *Swapper) PrepareApproved(ctx context.Context, approved SwapApproval) (*PreparedSwap, error) {
	q, err := s.Requote(ctx, approved.Terms)
	if err != nil {
		return nil, err
	}
	// The API's bytes are signed as given, so they cannot carry a memo of
	// ours: bytes another execution of this console already claimed (two
	// identical swaps approved together, built on one blockhash) are built
	// again once the chain has a new blockhash.
	const builds = 3
	for n := 1; ; n++ {
		p, err := s.PrepareSwap(ctx, q)
		if err != nil {
			if errors.Is(err, ErrUnsafeTransaction) || errors.Is(err, ErrSwapRefused) {
				d := strings.TrimPrefix(err.Error(), "prepare swap: ")
				d = strings.TrimSuffix(strings.TrimSuffix(d, " (nothing was signed or sent)"), "; nothing was signed or sent")
				return nil, &SwapChangedError{Difference: d}
			}
			return nil, err
		}
		if err := approved.Check(p); err != nil {
			return nil, err
		}
		if s.ex.ClaimMessage(p.Tx.MessageBytes) {
			return p, nil
		}
		if n == builds {
			return nil, fmt.Errorf("%w: the swap API built the bytes of a swap this console already executed %d times, on new blockhashes (nothing was signed or sent)", ErrSameBytes, builds)
		}
		if err := s.ex.awaitNewBlockhash(ctx, p.Tx.Blockhash()); err != nil {
			return nil, fmt.Errorf("%w: %v (nothing was signed or sent)", ErrSameBytes, err)
		}
		// The wait may have let the market move (the identical swap
		// that took these bytes has landed): quote again.
		if q, err = s.Requote(ctx, approved.Terms); err != nil {
			return nil, err
		}
	}
}
