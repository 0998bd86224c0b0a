// Package x402 holds the client side of the x402 payment protocol as solgate
// speaks it: parsing a server's PaymentRequired (v2 from the PAYMENT-REQUIRED
// header, v1 from a 402 body), choosing the `exact` scheme on the console's
// own cluster, and encoding the retry's PAYMENT-SIGNATURE / X-PAYMENT header.
// It knows no keys and builds no transactions (executor does, from the chosen
// Requirement); every value in here came from a server and is untrusted.
package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// Header names, as the x402 v2 HTTP transport and v1 spell them.
const (
	HeaderPaymentRequired  = "PAYMENT-REQUIRED"
	HeaderPaymentSignature = "PAYMENT-SIGNATURE" // v2 retry
	HeaderPaymentResponse  = "PAYMENT-RESPONSE"  // v2 settlement
	HeaderXPayment         = "X-PAYMENT"         // v1 retry
	HeaderXPaymentResponse = "X-PAYMENT-RESPONSE"
)

// SchemeExact is the only scheme solgate pays: a fixed amount, one
// TransferChecked, built by the client (scheme_exact_svm.md).
const SchemeExact = "exact"

// MaxHeaderBytes bounds a PAYMENT-REQUIRED or PAYMENT-RESPONSE header; MaxMemoBytes
// is the scheme's memo limit.
const (
	MaxHeaderBytes = 16 << 10
	MaxMemoBytes   = 256
)

// Requirement is one entry of PaymentRequired.accepts, v1 and v2 made alike.
// Raw is the entry exactly as the server sent it: a v2 retry echoes it as
// `accepted`, and the server matches it field by field.
type Requirement struct {
	Scheme            string
	Network           string // CAIP-2, also for v1 (translated from its name)
	Amount            uint64 // base units of Asset (v1: maxAmountRequired)
	Asset             string
	PayTo             string
	MaxTimeoutSeconds int64
	FeePayer          string // extra.feePayer
	Memo              string // extra.memo, may be empty
	// Legacy: the offer asks for a legacy transaction (extra.transactionVersions
	// names "legacy" and not 0); otherwise the payment is a v0 transaction,
	// as the scheme and its reference clients build it.
	Legacy bool
	// RecentBlockhash is extra.recentBlockhash when the server gave one (a
	// base58 hash; empty otherwise). The console still checks it is valid.
	RecentBlockhash string
	// versions is extra.transactionVersions as given ("legacy", "0", ...);
	// versionsErr says why it could not be read (an unusable offer).
	versions    []string
	versionsErr string
	Raw         json.RawMessage
	// v1 only: its network name and the resource fields it carries inline.
	V1Network   string
	Resource    string
	Description string
}

// PaymentRequired is a server's 402 answer.
type PaymentRequired struct {
	Version     int
	Error       string
	ResourceURL string
	Description string
	MimeType    string
	Accepts     []Requirement
	// ResourceRaw is v2's `resource` object as sent, echoed in the payload.
	ResourceRaw json.RawMessage
	// Extensions is v2's `extensions` object as sent: the payload echoes it
	// (x402 v2 §5.1.2: the client must include at least the info received).
	Extensions json.RawMessage
}

type wireRequirement struct {
	Scheme            string          `json:"scheme"`
	Network           string          `json:"network"`
	Amount            json.RawMessage `json:"amount"`
	MaxAmountRequired json.RawMessage `json:"maxAmountRequired"`
	Asset             string          `json:"asset"`
	PayTo             string          `json:"payTo"`
	MaxTimeoutSeconds int64           `json:"maxTimeoutSeconds"`
	Extra             struct {
		FeePayer            any             `json:"feePayer"`
		Memo                any             `json:"memo"`
		TransactionVersions json.RawMessage `json:"transactionVersions"`
		RecentBlockhash     any             `json:"recentBlockhash"`
	} `json:"extra"`
	Resource    string `json:"resource"`
	Description string `json:"description"`
}

type wireRequired struct {
	X402Version int               `json:"x402Version"`
	Error       string            `json:"error"`
	Resource    json.RawMessage   `json:"resource"`
	Accepts     []json.RawMessage `json:"accepts"`
	Extensions  json.RawMessage   `json:"extensions"`
}

// ParsePaymentRequired reads a 402: v2 from the PAYMENT-REQUIRED header
// (base64 JSON) when present, else v1 from the body. Entries it cannot read
// are kept with their scheme and network only (so a refusal can list them)
// and are never chosen.
func ParsePaymentRequired(header string, body []byte) (*PaymentRequired, error) {
	var w wireRequired
	switch {
	case header != "":
		if len(header) > MaxHeaderBytes {
			return nil, fmt.Errorf("the %s header is %d bytes, more than the %d accepted", HeaderPaymentRequired, len(header), MaxHeaderBytes)
		}
		raw, err := decodeBase64(header)
		if err != nil {
			return nil, fmt.Errorf("the %s header is not base64: %w", HeaderPaymentRequired, err)
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("the %s header is not x402 JSON: %v", HeaderPaymentRequired, err)
		}
		if w.X402Version != 2 {
			return nil, fmt.Errorf("the %s header says x402Version %d; solgate speaks 2 in the header and 1 in the body", HeaderPaymentRequired, w.X402Version)
		}
	default:
		if err := json.Unmarshal(body, &w); err != nil || w.X402Version != 1 {
			return nil, errors.New("the 402 answer carries no PAYMENT-REQUIRED header and its body is not an x402 v1 PaymentRequired")
		}
	}
	pr := &PaymentRequired{Version: w.X402Version, Error: w.Error}
	if w.X402Version == 2 {
		var res struct {
			URL         string `json:"url"`
			Description string `json:"description"`
			MimeType    string `json:"mimeType"`
		}
		if len(w.Resource) > 0 {
			_ = json.Unmarshal(w.Resource, &res)
		}
		pr.ResourceURL, pr.Description, pr.MimeType, pr.ResourceRaw = res.URL, res.Description, res.MimeType, w.Resource
		if len(w.Extensions) > 0 && string(w.Extensions) != "null" {
			var ext map[string]json.RawMessage
			if err := json.Unmarshal(w.Extensions, &ext); err != nil {
				return nil, fmt.Errorf("the %s header's extensions is not an object: %v", HeaderPaymentRequired, err)
			}
			pr.Extensions = w.Extensions
		}
	}
	if len(w.Accepts) == 0 {
		return nil, errors.New("the 402 answer offers no way to pay (accepts is empty)")
	}
	for _, raw := range w.Accepts {
		var wr wireRequirement
		if err := json.Unmarshal(raw, &wr); err != nil {
			pr.Accepts = append(pr.Accepts, Requirement{Scheme: "?", Network: "?", Raw: raw})
			continue
		}
		r := Requirement{
			Scheme: wr.Scheme, Network: wr.Network, Asset: wr.Asset, PayTo: wr.PayTo,
			MaxTimeoutSeconds: wr.MaxTimeoutSeconds, Raw: raw,
		}
		if s, ok := wr.Extra.FeePayer.(string); ok {
			r.FeePayer = s
		}
		if s, ok := wr.Extra.Memo.(string); ok {
			r.Memo = s
		}
		if s, ok := wr.Extra.RecentBlockhash.(string); ok {
			r.RecentBlockhash = s
		}
		r.versions, r.versionsErr = parseVersions(wr.Extra.TransactionVersions)
		r.Legacy = !slices.Contains(r.versions, "0") && slices.Contains(r.versions, "legacy")
		amount := wr.Amount
		if w.X402Version == 1 {
			amount = wr.MaxAmountRequired
			r.V1Network, r.Network = wr.Network, V1Networks[wr.Network]
			r.Resource, r.Description = wr.Resource, wr.Description
			if pr.ResourceURL == "" {
				pr.ResourceURL, pr.Description = wr.Resource, wr.Description
			}
		}
		r.Amount, _ = parseAmount(amount)
		pr.Accepts = append(pr.Accepts, r)
	}
	return pr, nil
}

// parseVersions reads extra.transactionVersions: a list of transaction
// versions the facilitator accepts, numbers for versioned messages (0, 1)
// and "legacy" for a legacy one (the Wallet Standard's vocabulary, which the
// x402 SVM version negotiation uses). Absent: nil, no error.
func parseVersions(raw json.RawMessage) ([]string, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var list []any
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, "its extra.transactionVersions is not a list"
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		switch x := v.(type) {
		case float64:
			if x != float64(int(x)) || x < 0 || x > 127 {
				return nil, fmt.Sprintf("its extra.transactionVersions holds %v, not a transaction version", x)
			}
			out = append(out, strconv.Itoa(int(x)))
		case string:
			if x != "legacy" {
				return nil, fmt.Sprintf("its extra.transactionVersions holds %q; the versions are numbers and \"legacy\"", clip(x))
			}
			out = append(out, x)
		default:
			return nil, "its extra.transactionVersions holds something that is not a version"
		}
	}
	return out, ""
}

// MessageVersion names the transaction version the payment is built as.
func (r Requirement) MessageVersion() string {
	if r.Legacy {
		return "legacy"
	}
	return "v0"
}

// parseAmount reads an amount given as a string of digits (the protocol's
// form) or a JSON integer; zero when it is neither or past uint64.
func parseAmount(raw json.RawMessage) (uint64, bool) {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, false
		}
	}
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || !n.IsUint64() {
		return 0, false
	}
	return n.Uint64(), true
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// V1Networks maps x402 v1's network names to CAIP-2 ids (the public
// clusters'; v1 has no name for any other).
var V1Networks = map[string]string{
	"solana":         "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
	"solana-devnet":  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
	"solana-testnet": "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z",
}

// ErrNoAcceptableOffer is matched by the error Select returns when nothing
// offered can be paid on this console.
var ErrNoAcceptableOffer = errors.New("no acceptable x402 offer")

// Select picks the `exact` offer on network (the console's own CAIP-2 id)
// and checks that it is complete: amount, asset, payTo and feePayer present
// and well formed. Anything else is refused with the offers listed.
func Select(pr *PaymentRequired, network string) (Requirement, error) {
	var reasons []string
	for _, r := range pr.Accepts {
		if r.Scheme != SchemeExact || r.Network != network {
			continue
		}
		if err := r.complete(); err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		return r, nil
	}
	offered := make([]string, 0, len(pr.Accepts))
	for _, r := range pr.Accepts {
		n := r.Network
		if r.V1Network != "" || n == "" {
			n = strconv.Quote(r.V1Network)
		}
		offered = append(offered, fmt.Sprintf("%s on %s", clip(r.Scheme), clip(n)))
	}
	sort.Strings(offered)
	msg := fmt.Sprintf("%s: solgate pays only the exact scheme on its own cluster (%s); the server offers %s", ErrNoAcceptableOffer, network, strings.Join(offered, ", "))
	if len(reasons) > 0 {
		msg += "; the exact offer on this cluster is unusable: " + strings.Join(reasons, "; ")
	}
	return Requirement{}, &refusal{msg}
}

type refusal struct{ msg string }

func (e *refusal) Error() string        { return e.msg }
func (e *refusal) Is(target error) bool { return target == ErrNoAcceptableOffer }

func (r Requirement) complete() error {
	switch {
	case r.Amount == 0:
		return errors.New("its amount is missing, zero, or not an integer of base units")
	case !isKey(r.Asset):
		return fmt.Errorf("its asset %q is not a mint address", clip(r.Asset))
	case !isKey(r.PayTo):
		return fmt.Errorf("its payTo %q is not an address", clip(r.PayTo))
	case !isKey(r.FeePayer):
		return fmt.Errorf("its extra.feePayer %q is not an address (the facilitator must pay the fee)", clip(r.FeePayer))
	case len(r.Memo) > MaxMemoBytes:
		return fmt.Errorf("its extra.memo is %d bytes, more than the scheme's %d", len(r.Memo), MaxMemoBytes)
	case r.versionsErr != "":
		return errors.New(r.versionsErr)
	case r.versions != nil && !slices.Contains(r.versions, "0") && !slices.Contains(r.versions, "legacy"):
		return fmt.Errorf("its extra.transactionVersions accepts only %s; solgate builds v0 (or legacy when asked)", clip(strings.Join(r.versions, ", ")))
	}
	return nil
}

func isKey(s string) bool {
	_, err := solana.PublicKeyFromBase58(s)
	return err == nil
}

// clip keeps a server's word short and printable for an error message; the
// console sanitises again before anything reaches a screen or the model.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// PaymentHeader is the retry's header for a payment signed as transaction
// (base64 wire bytes): PAYMENT-SIGNATURE carrying the v2 PaymentPayload
// (resource and the chosen offer echoed as sent), or X-PAYMENT carrying v1's.
func PaymentHeader(pr *PaymentRequired, r Requirement, transaction string) (name, value string, err error) {
	payload := map[string]string{"transaction": transaction}
	var v any
	switch pr.Version {
	case 2:
		m := map[string]any{"x402Version": 2, "accepted": r.Raw, "payload": payload}
		if len(pr.ResourceRaw) > 0 {
			m["resource"] = pr.ResourceRaw
		}
		if len(pr.Extensions) > 0 {
			// Echoed as received: solgate adds no info of its own.
			m["extensions"] = pr.Extensions
		}
		name, v = HeaderPaymentSignature, m
	case 1:
		name, v = HeaderXPayment, map[string]any{"x402Version": 1, "scheme": r.Scheme, "network": r.V1Network, "payload": payload}
	default:
		return "", "", fmt.Errorf("x402Version %d is not spoken", pr.Version)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", "", err
	}
	return name, base64.StdEncoding.EncodeToString(b), nil
}

// Settlement is a server's PAYMENT-RESPONSE (or v1 X-PAYMENT-RESPONSE).
type Settlement struct {
	Success     bool   `json:"success"`
	ErrorReason string `json:"errorReason,omitempty"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	Payer       string `json:"payer,omitempty"`
}

// ParseSettlement decodes a PAYMENT-RESPONSE header value.
func ParseSettlement(header string) (*Settlement, error) {
	if len(header) > MaxHeaderBytes {
		return nil, fmt.Errorf("the payment response header is %d bytes, more than the %d accepted", len(header), MaxHeaderBytes)
	}
	raw, err := decodeBase64(header)
	if err != nil {
		return nil, fmt.Errorf("the payment response header is not base64: %w", err)
	}
	var s Settlement
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the payment response header is not x402 JSON: %v", err)
	}
	return &s, nil
}
