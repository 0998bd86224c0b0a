// Package demoagent is the scripted assistant of `solgate demo`: a real MCP
// client that starts `solgate mcp` and uses its tools the way a model would,
// so a newcomer watches the console handle a realistic session — a transfer
// that waits for them, an over-cap attempt, a look-alike recipient.
package demoagent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/solgate/solgate/mcpbridge"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// Config says how to reach the bridge and what the story uses.
type Config struct {
	Command string   // the solgate binary
	Args    []string // e.g. ["mcp", "--socket", PATH]
	// Recipient is on the demo policy's allowlist.
	Recipient solana.PublicKey
	// BaitMint is a token whose metadata tries to instruct the model; zero
	// skips the swap part of the story.
	BaitMint solana.PublicKey
	// TokenMint is a token the wallet holds, capped per transfer by the demo
	// policy; zero skips the token transfer part of the story.
	TokenMint solana.PublicKey
	// Narrate receives one line per step, for the console log.
	Narrate func(string)
	// DecisionWait bounds how long the agent waits for the human on one
	// proposal before moving on (default 10 minutes).
	DecisionWait time.Duration
	// Pace is the pause between steps, so a person can read each line of
	// narration before the next arrives (default 1.5 s).
	Pace time.Duration
}

// Answer is one tool result as the model sees it.
type Answer = wire.CallResult

type agent struct {
	cfg Config
	c   *client.Client
}

// Run plays the story once. It returns when the story ends or ctx is done.
func Run(ctx context.Context, cfg Config) error {
	if cfg.DecisionWait <= 0 {
		cfg.DecisionWait = 10 * time.Minute
	}
	if cfg.Narrate == nil {
		cfg.Narrate = func(string) {}
	}
	if cfg.Pace <= 0 {
		cfg.Pace = 1500 * time.Millisecond
	}
	c, err := client.NewStdioMCPClient(cfg.Command, nil, cfg.Args...)
	if err != nil {
		return fmt.Errorf("demo agent: start solgate mcp: %w", err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "demo-agent", Version: "1.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("demo agent: initialize: %w", err)
	}
	a := &agent{cfg: cfg, c: c}
	return a.story(ctx)
}

func (a *agent) say(format string, args ...any) { a.cfg.Narrate(fmt.Sprintf(format, args...)) }

// pause lets the person watching read what just happened.
func (a *agent) pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(a.cfg.Pace):
	}
}

func (a *agent) story(ctx context.Context) error {
	a.say("Hi! I'm a scripted assistant. First, a look at the wallet.")
	bal, err := a.call(ctx, "get_balance", nil)
	if err != nil {
		return err
	}
	a.say("get_balance → %s SOL", str(bal.Structured["sol"]))
	a.pause(ctx)

	to := a.cfg.Recipient.String()
	a.say("I'll send 0.05 SOL to %s. solgate will make that a proposal for you.", to)
	if err := a.transfer(ctx, to, 50_000_000); err != nil {
		return err
	}

	a.pause(ctx)
	a.say("Now I'll try 4.6 SOL to the same address — far above the 0.1 SOL per-transfer cap.")
	big, err := a.call(ctx, "transfer_sol", map[string]any{"to": to, "lamports": "4600000000"})
	if err != nil {
		return err
	}
	a.say("transfer_sol → %s (rule %s, retryable %v). It never reached your queue.", big.Status(), str(big.Structured["rule"]), big.Structured["retryable"])

	a.pause(ctx)
	fake := LookAlike(a.cfg.Recipient)
	a.say("Next, 0.01 SOL to %s — an address that only looks like the one above (address poisoning).", fake)
	poisoned, err := a.call(ctx, "transfer_sol", map[string]any{"to": fake.String(), "lamports": 10_000_000})
	if err != nil {
		return err
	}
	a.say("transfer_sol → %s: %s", poisoned.Status(), str(poisoned.Structured["reason"]))

	if !a.cfg.BaitMint.IsZero() {
		a.pause(ctx)
		if err := a.baitSwap(ctx); err != nil {
			return err
		}
	}

	if !a.cfg.TokenMint.IsZero() {
		a.pause(ctx)
		a.say("Last, 2.5 tokens of %s to %s: a token transfer, bounded by a per-mint cap.", a.cfg.TokenMint, to)
		// The demo's token calls itself USDC without being the real mint,
		// so the console rightly flags it; the operator needs to know
		// what to do with that flag here and on a real cluster.
		a.say("The console flags this token IMPOSTOR: it calls itself USDC, but its mint is not the real USDC mint. On a real cluster that is a reason to deny (d). Here it is the demo ledger's own stand-in for USDC, so approving (a) is safe.")
		if err := a.decide(ctx, "transfer_token", map[string]any{"mint": a.cfg.TokenMint.String(), "to": to, "amount": 2_500_000}); err != nil {
			return err
		}
	}

	a.pause(ctx)
	spend, err := a.call(ctx, "get_spend_status", nil)
	if err != nil {
		return err
	}
	a.say("get_spend_status → spent %s lamports, %s lamports left this session.", str(spend.Structured["spent_lamports"]), str(spend.Structured["remaining_lamports"]))
	a.say("That's the story: nothing moved without your key press. Press q to leave.")
	return nil
}

// baitSwap looks up a token whose name is written to manipulate a model,
// then proposes a small swap into it: the console shows the name sanitised
// and flagged, and the decision stays with the human.
func (a *agent) baitSwap(ctx context.Context) error {
	mint := a.cfg.BaitMint.String()
	info, err := a.call(ctx, "get_token_info", map[string]any{"mint": mint})
	if err != nil {
		return err
	}
	a.say("get_token_info → name %q; solgate flags it: %v", str(info.Structured["name"]), info.Structured["instruction_like_text"])
	a.pause(ctx)
	a.say("The name says to ignore limits. I won't. I'll propose a 0.05 SOL swap into it and leave the call to you.")
	args := map[string]any{"input_mint": solana.SolMint.String(), "output_mint": mint, "amount": 50_000_000, "slippage_bps": 100}
	return a.decide(ctx, "swap", args)
}

// transfer proposes, waits for the human, and executes if approved.
func (a *agent) transfer(ctx context.Context, to string, lamports uint64) error {
	return a.decide(ctx, "transfer_sol", map[string]any{"to": to, "lamports": lamports})
}

// decide proposes a write, waits for the human, and executes if approved.
func (a *agent) decide(ctx context.Context, tool string, args map[string]any) error {
	prop, err := a.call(ctx, tool, args)
	if err != nil {
		return err
	}
	if prop.Status() != "pending_approval" {
		a.say("%s → %s: %s", tool, prop.Status(), firstLine(prop.Text))
		return nil
	}
	id := str(prop.Structured["proposal_id"])
	a.say("Proposal %s is waiting for you: select it and press a to approve, or d to deny.", id)

	deadline := time.Now().Add(a.cfg.DecisionWait)
	for time.Now().Before(deadline) {
		st, err := a.call(ctx, "proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 45})
		if err != nil {
			return err
		}
		switch st.Status() {
		case "pending":
			continue
		case "approved":
			token := str(st.Structured["confirm"])
			if token == "" {
				a.say("Approved, but the token is shown only to you (operator delivery); I can't continue without it.")
				return nil
			}
			a.say("Approved. Calling %s again with the same arguments and the token.", tool)
			args["confirm"] = token
			done, err := a.call(ctx, tool, args)
			if err != nil {
				return err
			}
			for done.Status() == "submitted" || done.Status() == "executing" {
				if done, err = a.call(ctx, "proposal_status", map[string]any{"proposal_id": id, "wait_seconds": 45}); err != nil {
					return err
				}
			}
			if done.Status() == "executed" {
				a.say("%s", firstLine(done.Text))
			} else {
				a.say("%s → %s: %s", tool, done.Status(), str(done.Structured["reason"]))
			}
			return nil
		default:
			a.say("Proposal %s was %s: %s", id, st.Status(), str(st.Structured["reason"]))
			return nil
		}
	}
	a.say("No decision on %s in %s; moving on.", id, a.cfg.DecisionWait)
	return nil
}

func (a *agent) call(ctx context.Context, tool string, args map[string]any) (Answer, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := a.c.CallTool(cctx, req)
	if err != nil {
		return Answer{}, fmt.Errorf("demo agent: %s: %w", tool, err)
	}
	return mcpbridge.ResultFromMCP(res), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// LookAlike returns an address whose base58 form keeps the first and last
// characters of addr but differs in the middle: the shape address-poisoning
// attacks use. Any 32 bytes are a valid transfer destination.
func LookAlike(addr solana.PublicKey) solana.PublicKey {
	s := []byte(addr.String())
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	for i := len(s) / 2; i < len(s)-4; i++ {
		for _, c := range []byte(alphabet) {
			if c == s[i] {
				continue
			}
			cand := append([]byte(nil), s...)
			cand[i] = c
			if pk, err := solana.PublicKeyFromBase58(string(cand)); err == nil {
				return pk
			}
		}
	}
	return addr
}
