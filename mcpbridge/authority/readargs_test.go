package authority

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// The read tools' arguments, parsed through the core's one entry
// (ParseArgs), as a forwarded call is.
func TestParseReadArgs(t *testing.T) {
	sig := solana.Signature{1, 2, 3, 250}.String()
	good := []struct {
		tool string
		raw  map[string]any
		norm map[string]string
	}{
		{wire.ToolGetBalance, nil, map[string]string{}},
		{wire.ToolGetBalance, map[string]any{"address": ""}, map[string]string{}},
		{wire.ToolGetBalance, map[string]any{"address": addrA}, map[string]string{"address": addrA}},
		{wire.ToolGetTokenBalances, map[string]any{"owner": addrB}, map[string]string{"owner": addrB}},
		{wire.ToolGetTokenInfo, map[string]any{"mint": addrB}, map[string]string{"mint": addrB}},
		{wire.ToolGetSpendStatus, map[string]any{}, map[string]string{}},
		{wire.ToolGetTransaction, map[string]any{"signature": sig}, map[string]string{"signature": sig}},
		{wire.ToolProposalStatus, map[string]any{"proposal_id": "p-01_x"}, map[string]string{"proposal_id": "p-01_x", "wait_seconds": "0"}},
		{wire.ToolProposalStatus, map[string]any{"proposal_id": "p1", "wait_seconds": float64(45)}, map[string]string{"proposal_id": "p1", "wait_seconds": "45"}},
		{wire.ToolGetQuote, map[string]any{"input_mint": wSOL, "output_mint": addrB, "amount": float64(7), "slippage_bps": "300"},
			map[string]string{"input_mint": wSOL, "output_mint": addrB, "amount": "7", "slippage_bps": "300"}},
	}
	for _, g := range good {
		a, err := ParseArgs(g.tool, g.raw)
		if err != nil {
			t.Errorf("%s %v: %v", g.tool, g.raw, err)
			continue
		}
		if a.ToolName() != g.tool || !maps.Equal(a.Normalized(), g.norm) {
			t.Errorf("%s %v: normalised to %v, want %v", g.tool, g.raw, a.Normalized(), g.norm)
		}
	}
	bad := []struct {
		tool, arg, msg string
		raw            map[string]any
	}{
		{wire.ToolGetSpendStatus, "x", "get_spend_status takes no arguments", map[string]any{"x": 1}},
		{wire.ToolGetBalance, "owner", "accepted arguments: address", map[string]any{"owner": addrA}},
		{wire.ToolGetTransaction, "signature", "base58 transaction signature", map[string]any{"signature": addrA}},
		{wire.ToolProposalStatus, "wait_seconds", "from 0 to 45", map[string]any{"proposal_id": "p1", "wait_seconds": float64(46)}},
		{wire.ToolProposalStatus, "wait_seconds", "from 0 to 45", map[string]any{"proposal_id": "p1", "wait_seconds": 1.5}},
		{wire.ToolProposalStatus, "proposal_id", "proposal_id must be", map[string]any{"proposal_id": "../../etc"}},
		{wire.ToolProposalStatus, "proposal_id", "proposal_id must be", map[string]any{"proposal_id": float64(3)}},
		{wire.ToolProposalStatus, "proposal_id", "missing required argument proposal_id", map[string]any{}},
		{wire.ToolGetTokenInfo, "mint", "missing required argument mint", nil},
	}
	for _, b := range bad {
		_, err := ParseArgs(b.tool, b.raw)
		var ae *args.ArgError
		if !errors.As(err, &ae) || ae.Arg != b.arg || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%s %v: got %v, want an error on %s saying %q", b.tool, b.raw, err, b.arg, b.msg)
		}
	}
	if _, err := ParseArgs("drain_wallet", nil); err == nil || !strings.Contains(err.Error(), "transfer_sol") {
		t.Errorf("unknown tool: %v", err)
	}
}
