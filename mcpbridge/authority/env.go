package authority

import (
	"context"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/writekind"
	"github.com/solgate/solgate/policy"
	"github.com/solgate/solgate/policy/store"
)

// hubEnv is the hub's writekind.Env for one proposal; the skeletons make one for
// each call of a kind's hooks.
type hubEnv struct {
	h *Hub
	// proposal is the id of the proposal the hooks are working for ("" in
	// a draft that is not yet one).
	proposal string
}

func (e hubEnv) ProposalMemo() string {
	if e.proposal == "" {
		return ""
	}
	return "solgate " + e.proposal
}

func (e hubEnv) Executor() *executor.Executor { return e.h.opts.Executor }

func (e hubEnv) Swapper() *executor.Swapper { return e.h.opts.Swapper }

func (e hubEnv) Network() executor.Network { return e.h.opts.Network }
func (e hubEnv) Policy() policy.Config     { return e.h.opts.Policy }
func (e hubEnv) Wallet() solana.PublicKey  { return e.h.opts.Executor.Wallet() }

func (e hubEnv) Genesis() string { return e.h.opts.Genesis }

func (e hubEnv) Label(ctx context.Context, mint solana.PublicKey) (writekind.TokenLabel, error) {
	return e.h.label(ctx, mint)
}

func (e hubEnv) LabelOf(info *executor.TokenInfo) writekind.TokenLabel {
	return writekind.LabelOf(info, e.h.opts.Network)
}

func (e hubEnv) Audit(kind, proposalID string, body map[string]any) {
	e.h.audit(kind, proposalID, body)
}

func (e hubEnv) RecordX402(r executor.X402Record) error {
	if st := e.h.opts.Store; st != nil {
		if err := st.PutX402Payment(store.X402Payment{ReservationID: e.proposal, Message: r.Message, Source: r.Source.String(), LastValidBlockHeight: r.LastValid, FromSlot: r.FromSlot}); err != nil {
			return err
		}
	}
	e.h.mu.Lock()
	e.h.x402[e.proposal] = r
	e.h.mu.Unlock()
	return nil
}

var _ writekind.Env = hubEnv{}

// label reads a mint's facts and metadata; text from the chain is
// sanitised by writekind.LabelOf.
func (h *Hub) label(ctx context.Context, mint solana.PublicKey) (writekind.TokenLabel, error) {
	if writekind.IsSOL(mint) {
		return writekind.TokenLabel{Mint: mint.String(), Decimals: 9, Name: "Wrapped SOL", Symbol: "SOL"}, nil
	}
	info, err := h.opts.Executor.Client().TokenInfo(ctx, mint)
	if err != nil {
		return writekind.TokenLabel{}, err
	}
	return writekind.LabelOf(info, h.opts.Network), nil
}
