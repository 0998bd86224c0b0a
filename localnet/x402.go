package localnet

import "context"

// PaidAPI is the x402 paid API localnet serves on its own loopback port
// (x402.mjs): a resource server and facilitator built with the official
// @x402/express and @x402/svm packages, settling on this ledger.
type PaidAPI struct {
	// URL is the API's base, e.g. "http://127.0.0.1:41235". Routes: /free,
	// /paid (v0 transactions only), /paid/legacy (legacy only),
	// /paid/extensions, /paid/unknownhash, /v1/paid (only on an
	// impersonated public cluster),
	// /hostile/overprice, /hostile/feepayer?wallet=ADDR, /hostile/wsol,
	// /hostile/nosettle, /hostile/settlelie, /nosubmit.
	URL string `json:"url"`
	// Network is the CAIP-2 id the API asks to be paid on: "solana:" and
	// the first 32 characters of the ledger's genesis hash.
	Network string `json:"network"`
	// V1Network is the x402 v1 network name ("solana-devnet", ...), empty
	// when the ledger reports a genesis of its own.
	V1Network string `json:"v1Network"`
	// Mint is the USDC-like asset (Decimals 6); Price is base units per call.
	Mint     string `json:"mint"`
	Decimals int    `json:"decimals"`
	Price    string `json:"price"`
	// Merchant is payTo (its token account exists, empty at start);
	// Facilitator the fee payer that co-signs and submits.
	Merchant    string `json:"merchant"`
	Facilitator string `json:"facilitator"`
}

// PaidAPI is the x402 paid API (from the ready line); zero unless the
// ledger was started with Options.PaidAPI.
func (l *Ledger) PaidAPI() PaidAPI { return l.x402 }

// LandKept co-signs and submits every payment /hostile/settlelie kept
// (the server landing a payment it claimed under a made-up signature) and
// returns the landed transactions' signatures.
func (l *Ledger) LandKept(ctx context.Context) ([]string, error) {
	var sigs []string
	err := l.Call(ctx, "localnet_x402LandKept", nil, &sigs)
	return sigs, err
}
