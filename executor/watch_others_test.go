package executor_test

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
)

// With a configured swap program invoked, PrepareSwap also watches the
// wallet's other token accounts. Here the SPL Token program stands in for an
// aggregator's program so localnet's swap takes that path; a swap that leaves
// the other account alone must pass, and the other account is unchanged on
// the ledger afterwards.
func TestSwapWatchingOtherTokenAccountsStillSwaps(t *testing.T) {
	f := newSwapFixture(t, executor.SwapClientOptions{})
	ctx := context.Background()
	bait := f.demo.Bait.Mint
	other, err := f.ledger.MintTo(ctx, bait, f.key.PublicKey().String(), 777)
	if err != nil {
		t.Fatal(err)
	}
	sw := executor.NewSwapper(f.ex, f.sw.API(), executor.SwapOptions{SwapPrograms: []solana.PublicKey{solana.TokenProgramID}})
	q := f.quote(t, f.wsol, f.usdc, 10_000_000)
	p, err := sw.PrepareSwap(ctx, q)
	if err != nil {
		t.Fatalf("prepare with other token accounts watched: %v", err)
	}
	res, err := sw.SubmitSwap(ctx, p, nil)
	if err != nil || res.Outcome != executor.Executed {
		t.Fatalf("submit: %v %+v", err, res)
	}
	if got := f.tokenBalance(t, solana.MustPublicKeyFromBase58(other)); got != 777 {
		t.Errorf("the untouched token account holds %d, want 777", got)
	}
	if got := f.tokenBalance(t, f.ownTA); got < q.OtherAmountThreshold {
		t.Errorf("received %d, minimum %d", got, q.OtherAmountThreshold)
	}
}
