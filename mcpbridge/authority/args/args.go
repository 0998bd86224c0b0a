package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// ArgError is a malformed or unacceptable tool argument. Its message is written
// for the model: it names the argument and says what would be accepted. Handlers
// return it as a tool error (isError: true), not as a protocol error.
type ArgError struct {
	Tool string // the tool called
	Arg  string // the offending argument; empty when the tool itself is unknown
	Msg  string
}

func (e *ArgError) Error() string { return e.Msg }

func ArgErrorf(tool, arg, format string, a ...any) *ArgError {
	return &ArgError{Tool: tool, Arg: arg, Msg: fmt.Sprintf(format, a...)}
}

// Args is a parsed, validated argument set of one tool.
type Args interface {
	// ToolName is the tool these arguments belong to.
	ToolName() string
	// Normalized is the canonical form: addresses as base58, numbers as decimal
	// strings, confirm excluded. Two calls mean the same thing exactly when
	// their normalised forms are equal.
	Normalized() map[string]string
	// Fingerprint binds a confirmation token to these arguments.
	Fingerprint() string
}

// Untyped turns a tool's typed parser into the untyped one a table of
// tools holds (the read tools' tables, beside their handlers).
func Untyped[T Args](parse func(map[string]any) (T, error)) func(map[string]any) (Args, error) {
	return func(raw map[string]any) (Args, error) {
		a, err := parse(raw)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
}

// WriteArgs are the arguments of a tool that spends: they may carry a token.
type WriteArgs interface {
	Args
	// ConfirmToken is the confirmation token, or "" for a proposal.
	ConfirmToken() string
	// Described is the attempt in words, for the console log line of a
	// denial that came before any proposal existed.
	Described() string
	// Recipient is the third party the agent names as receiving value
	// ("" when it names none): look-alike warnings check it.
	Recipient() string
}

// DecodeArgs decodes a JSON arguments object keeping numbers exact
// (json.Number), refusing duplicate keys (which parsers resolve differently)
// and trailing data. Use it on raw argument bytes where they are available.
func DecodeArgs(data []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 || bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("arguments must be a JSON object")
	}
	out := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
		}
		key := tok.(string) // inside an object the decoder only yields string keys
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("argument %s is given twice; give each argument once", QuoteUntrusted(key))
		}
		out[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("arguments must be a single JSON object with nothing after it")
	}
	return out, nil
}

// CheckArgNames refuses unknown arguments and missing required ones, before any
// value is looked at, so the model learns the accepted names in one error.
func CheckArgNames(tool string, raw map[string]any) error {
	decl, _ := wire.LookupTool(tool)
	specs := decl.Args
	accepted := make([]string, len(specs))
	for i, s := range specs {
		accepted[i] = s.Name
	}
	var unknown []string
	for k := range raw {
		if !slices.Contains(accepted, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown) // deterministic: the same call always gets the same error
		if len(accepted) == 0 {
			return ArgErrorf(tool, unknown[0], "unknown argument %s: %s takes no arguments", QuoteUntrusted(unknown[0]), tool)
		}
		return ArgErrorf(tool, unknown[0], "unknown argument %s for %s; accepted arguments: %s",
			QuoteUntrusted(unknown[0]), tool, strings.Join(accepted, ", "))
	}
	for _, s := range specs {
		if s.Required && raw[s.Name] == nil { // absent or JSON null
			return ArgErrorf(tool, s.Name, "missing required argument %s: %s", s.Name, s.Desc)
		}
	}
	return nil
}

// present reports whether an optional argument was given. JSON null and the
// empty string count as absent: models often send them for "not set".
func present(v any) bool {
	if v == nil {
		return false
	}
	if s, ok := v.(string); ok && s == "" {
		return false
	}
	return true
}

// ---- get_quote (and swap's terms) ----

// QuoteArgs are the arguments of get_quote.
type QuoteArgs struct {
	InputMint   solana.PublicKey
	OutputMint  solana.PublicKey
	Amount      uint64 // base units of InputMint
	SlippageBps uint32
}

// ParseQuoteArgs validates get_quote arguments.
func ParseQuoteArgs(raw map[string]any) (QuoteArgs, error) {
	return ParseSwapTerms(wire.ToolGetQuote, raw)
}

func (a QuoteArgs) ToolName() string    { return wire.ToolGetQuote }
func (a QuoteArgs) Fingerprint() string { return Fingerprint(a.ToolName(), a.Normalized()) }
func (a QuoteArgs) Normalized() map[string]string {
	return SwapTermsNormalized(a.InputMint, a.OutputMint, a.Amount, a.SlippageBps)
}

func ParseSwapTerms(tool string, raw map[string]any) (QuoteArgs, error) {
	var q QuoteArgs
	if err := CheckArgNames(tool, raw); err != nil {
		return q, err
	}
	var err error
	if q.InputMint, err = ParseAddress(tool, "input_mint", raw["input_mint"]); err != nil {
		return q, err
	}
	if q.OutputMint, err = ParseAddress(tool, "output_mint", raw["output_mint"]); err != nil {
		return q, err
	}
	if q.InputMint == q.OutputMint {
		return q, ArgErrorf(tool, "output_mint", "output_mint must differ from input_mint; both are %s", q.InputMint)
	}
	if q.Amount, err = ParseUint(tool, BaseUnitsRule, raw["amount"]); err != nil {
		return q, err
	}
	bps, err := ParseUint(tool, slippageRule, raw["slippage_bps"])
	if err != nil {
		return q, err
	}
	q.SlippageBps = uint32(bps) // bounded by slippageRule
	return q, nil
}

func SwapTermsNormalized(in, out solana.PublicKey, amount uint64, bps uint32) map[string]string {
	return map[string]string{
		"input_mint":   in.String(),
		"output_mint":  out.String(),
		"amount":       strconv.FormatUint(amount, 10),
		"slippage_bps": strconv.FormatUint(uint64(bps), 10),
	}
}

// ---- read tools ----

// GetBalanceArgs are the arguments of get_balance.
type GetBalanceArgs struct {
	Address *solana.PublicKey // nil: the console's wallet
}

// ParseGetBalanceArgs validates get_balance arguments.
func ParseGetBalanceArgs(raw map[string]any) (GetBalanceArgs, error) {
	pk, err := parseOptionalAddress(wire.ToolGetBalance, "address", raw)
	return GetBalanceArgs{Address: pk}, err
}

func (a GetBalanceArgs) ToolName() string    { return wire.ToolGetBalance }
func (a GetBalanceArgs) Fingerprint() string { return Fingerprint(a.ToolName(), a.Normalized()) }
func (a GetBalanceArgs) Normalized() map[string]string {
	return optionalAddressNormalized("address", a.Address)
}

// GetTokenBalancesArgs are the arguments of get_token_balances.
type GetTokenBalancesArgs struct {
	Owner *solana.PublicKey // nil: the console's wallet
}

// ParseGetTokenBalancesArgs validates get_token_balances arguments.
func ParseGetTokenBalancesArgs(raw map[string]any) (GetTokenBalancesArgs, error) {
	pk, err := parseOptionalAddress(wire.ToolGetTokenBalances, "owner", raw)
	return GetTokenBalancesArgs{Owner: pk}, err
}

func (a GetTokenBalancesArgs) ToolName() string    { return wire.ToolGetTokenBalances }
func (a GetTokenBalancesArgs) Fingerprint() string { return Fingerprint(a.ToolName(), a.Normalized()) }
func (a GetTokenBalancesArgs) Normalized() map[string]string {
	return optionalAddressNormalized("owner", a.Owner)
}

func parseOptionalAddress(tool, name string, raw map[string]any) (*solana.PublicKey, error) {
	if err := CheckArgNames(tool, raw); err != nil {
		return nil, err
	}
	if !present(raw[name]) {
		return nil, nil
	}
	pk, err := ParseAddress(tool, name, raw[name])
	if err != nil {
		return nil, err
	}
	return &pk, nil
}

func optionalAddressNormalized(name string, pk *solana.PublicKey) map[string]string {
	if pk == nil {
		return map[string]string{}
	}
	return map[string]string{name: pk.String()}
}

// TokenInfoArgs are the arguments of get_token_info.
type TokenInfoArgs struct {
	Mint solana.PublicKey
}

// ParseTokenInfoArgs validates get_token_info arguments.
func ParseTokenInfoArgs(raw map[string]any) (TokenInfoArgs, error) {
	if err := CheckArgNames(wire.ToolGetTokenInfo, raw); err != nil {
		return TokenInfoArgs{}, err
	}
	mint, err := ParseAddress(wire.ToolGetTokenInfo, "mint", raw["mint"])
	return TokenInfoArgs{Mint: mint}, err
}

func (a TokenInfoArgs) ToolName() string    { return wire.ToolGetTokenInfo }
func (a TokenInfoArgs) Fingerprint() string { return Fingerprint(a.ToolName(), a.Normalized()) }
func (a TokenInfoArgs) Normalized() map[string]string {
	return map[string]string{"mint": a.Mint.String()}
}

// SpendStatusArgs are the (empty) arguments of get_spend_status.
type SpendStatusArgs struct{}

// ParseSpendStatusArgs refuses any argument: get_spend_status takes none.
func ParseSpendStatusArgs(raw map[string]any) (SpendStatusArgs, error) {
	return SpendStatusArgs{}, CheckArgNames(wire.ToolGetSpendStatus, raw)
}

func (a SpendStatusArgs) ToolName() string              { return wire.ToolGetSpendStatus }
func (a SpendStatusArgs) Fingerprint() string           { return Fingerprint(a.ToolName(), a.Normalized()) }
func (a SpendStatusArgs) Normalized() map[string]string { return map[string]string{} }

// GetTransactionArgs are the arguments of get_transaction.
type GetTransactionArgs struct {
	Signature solana.Signature
}

// ParseGetTransactionArgs validates get_transaction arguments.
func ParseGetTransactionArgs(raw map[string]any) (GetTransactionArgs, error) {
	if err := CheckArgNames(wire.ToolGetTransaction, raw); err != nil {
		return GetTransactionArgs{}, err
	}
	sig, err := parseSignature(wire.ToolGetTransaction, "signature", raw["signature"])
	return GetTransactionArgs{Signature: sig}, err
}

func (a GetTransactionArgs) ToolName() string    { return wire.ToolGetTransaction }
func (a GetTransactionArgs) Fingerprint() string { return Fingerprint(a.ToolName(), a.Normalized()) }
func (a GetTransactionArgs) Normalized() map[string]string {
	return map[string]string{"signature": a.Signature.String()}
}

// ProposalStatusArgs are the arguments of proposal_status.
type ProposalStatusArgs struct {
	ProposalID  string
	WaitSeconds uint32 // 0..MaxWaitSeconds
}

// ParseProposalStatusArgs validates proposal_status arguments.
func ParseProposalStatusArgs(raw map[string]any) (ProposalStatusArgs, error) {
	const tool = wire.ToolProposalStatus
	var a ProposalStatusArgs
	if err := CheckArgNames(tool, raw); err != nil {
		return a, err
	}
	id, ok := raw["proposal_id"].(string)
	if !ok || !validProposalID(id) {
		return a, ArgErrorf(tool, "proposal_id", "proposal_id must be the proposal_id string returned by a write tool (%s) (1 to %d letters, digits, '-' or '_'); got %s",
			strings.Join(wire.WriteToolNames(), ", "), wire.MaxProposalIDLen, DescribeValue(raw["proposal_id"]))
	}
	a.ProposalID = id
	if present(raw["wait_seconds"]) {
		w, err := ParseUint(tool, waitRule, raw["wait_seconds"])
		if err != nil {
			return a, err
		}
		a.WaitSeconds = uint32(w) // bounded by waitRule
	}
	return a, nil
}

func (a ProposalStatusArgs) ToolName() string    { return wire.ToolProposalStatus }
func (a ProposalStatusArgs) Fingerprint() string { return Fingerprint(a.ToolName(), a.Normalized()) }
func (a ProposalStatusArgs) Normalized() map[string]string {
	return map[string]string{
		"proposal_id":  a.ProposalID,
		"wait_seconds": strconv.FormatUint(uint64(a.WaitSeconds), 10),
	}
}

func validProposalID(s string) bool {
	if len(s) == 0 || len(s) > wire.MaxProposalIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ---- values ----

// ParseAddress accepts only the canonical base58 text of a 32-byte key, so an
// address has exactly one spelling and therefore one fingerprint.
func ParseAddress(tool, name string, v any) (solana.PublicKey, error) {
	s, ok := v.(string)
	if ok && len(s) >= 32 && len(s) <= 44 {
		if pk, err := solana.PublicKeyFromBase58(s); err == nil && executor.KeyString(pk) == s {
			return pk, nil
		}
	}
	return solana.PublicKey{}, ArgErrorf(tool, name, "%s must be a base58 Solana address (a 32-byte public key, 32 to 44 characters); got %s", name, DescribeValue(v))
}

func parseSignature(tool, name string, v any) (solana.Signature, error) {
	s, ok := v.(string)
	if ok && len(s) >= 64 && len(s) <= 88 {
		if sig, err := solana.SignatureFromBase58(s); err == nil && sig.String() == s {
			return sig, nil
		}
	}
	return solana.Signature{}, ArgErrorf(tool, name, "%s must be a base58 transaction signature (64 bytes, 64 to 88 characters); got %s", name, DescribeValue(v))
}

func ParseConfirm(tool string, v any) (string, error) {
	if !present(v) {
		return "", nil
	}
	s, ok := v.(string)
	if !ok || !ValidToken(s) {
		return "", ArgErrorf(tool, "confirm", "confirm must be the %d-character token from proposal_status (or from the human) after the proposal was approved; omit confirm to create a proposal; got %s",
			wire.TokenLength, DescribeValue(v))
	}
	return s, nil
}

// UintRule describes an integer argument: its bounds and, for error messages,
// what it counts.
type UintRule struct {
	Name     string
	Min, Max uint64
	Accepted string // completes "NAME must be …"
}

var (
	LamportsRule = UintRule{"lamports", 1, math.MaxUint64,
		"a whole number of lamports from 1 to 18446744073709551615 (1 SOL = 1000000000 lamports), as a JSON integer or a string of digits"}
	BaseUnitsRule = UintRule{"amount", 1, math.MaxUint64,
		"a whole number of base units of input_mint from 1 to 18446744073709551615 (1 USDC with 6 decimals = 1000000), as a JSON integer or a string of digits"}
	slippageRule = UintRule{"slippage_bps", wire.MinSlippageBps, wire.MaxSlippageBps,
		"a whole number of basis points from 1 to 10000 (50 = 0.5%)"}
	waitRule = UintRule{"wait_seconds", 0, wire.MaxWaitSeconds,
		"a whole number of seconds from 0 to 45"}
)

func (r UintRule) refuse(tool string, v any) error {
	return ArgErrorf(tool, r.Name, "%s must be %s; got %s", r.Name, r.Accepted, DescribeValue(v))
}

// ParseUint accepts a JSON integer (float64, json.Number or a Go integer) or a
// string of decimal digits.
//
// JSON numbers are judged by value, not spelling: 5, 5.0 and 5e0 are all five,
// because the standard decoder hands them over as the same float64 and the
// fingerprint must not depend on which decoder ran. A JSON number must be below
// 2^53; larger amounts must be strings. Strings must be plain digits: no sign,
// no spaces, no leading zeros, no exponent, no hex, so one amount has one
// spelling.
func ParseUint(tool string, r UintRule, v any) (uint64, error) {
	var n uint64
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x != math.Trunc(x) {
			return 0, r.refuse(tool, v)
		}
		if x < 0 {
			return 0, r.refuse(tool, v)
		}
		if x > wire.MaxJSONSafeInteger {
			return 0, r.tooBigForJSONNumber(tool, v)
		}
		n = uint64(x)
	case json.Number:
		var ok, neg, big bool
		n, neg, big, ok = exactJSONInteger(string(x))
		switch {
		case !ok || neg:
			return 0, r.refuse(tool, v)
		case big:
			return 0, r.tooBigForJSONNumber(tool, v)
		}
	case string:
		if x == "" || len(x) > 1 && x[0] == '0' || strings.TrimLeft(x, "0123456789") != "" {
			return 0, r.refuse(tool, v)
		}
		var err error
		if n, err = strconv.ParseUint(x, 10, 64); err != nil {
			return 0, r.refuse(tool, v)
		}
	case int:
		if x < 0 {
			return 0, r.refuse(tool, v)
		}
		n = uint64(x)
	case int64:
		if x < 0 {
			return 0, r.refuse(tool, v)
		}
		n = uint64(x)
	case int32:
		if x < 0 {
			return 0, r.refuse(tool, v)
		}
		n = uint64(x)
	case uint:
		n = uint64(x)
	case uint64:
		n = x
	case uint32:
		n = uint64(x)
	default:
		return 0, r.refuse(tool, v)
	}
	if n < r.Min || n > r.Max {
		return 0, r.refuse(tool, v)
	}
	return n, nil
}

func (r UintRule) tooBigForJSONNumber(tool string, v any) error {
	if r.Max <= wire.MaxJSONSafeInteger {
		return r.refuse(tool, v)
	}
	return ArgErrorf(tool, r.Name, "%s is too large to send as a JSON number: numbers above 9007199254740991 can be rounded in transit; pass it as a string of digits instead, e.g. \"12345678901234567890\"; got %s",
		r.Name, DescribeValue(v))
}

// exactJSONInteger reads a JSON number literal exactly (no float rounding).
// ok is false when it is not JSON number syntax or not a whole number; big is
// true when it is a whole number above wire.MaxJSONSafeInteger.
func exactJSONInteger(lit string) (n uint64, neg, big, ok bool) {
	// Long literals cannot be needed for a value below 2^53 and would only cost
	// time; "1" followed by 60 zeros and "e-60" is not a realistic amount.
	if len(lit) == 0 || len(lit) > 64 {
		return 0, false, false, false
	}
	s := lit
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	intPart, s := leadingDigits(s)
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' {
		return 0, false, false, false
	}
	var frac string
	if len(s) > 0 && s[0] == '.' {
		if frac, s = leadingDigits(s[1:]); frac == "" {
			return 0, false, false, false
		}
	}
	exp := 0
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		expNeg := false
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			expNeg, s = s[0] == '-', s[1:]
		}
		var digits string
		if digits, s = leadingDigits(s); digits == "" {
			return 0, false, false, false
		}
		e, err := strconv.Atoi(digits)
		if err != nil || e > 1000 { // beyond any mantissa a 64-byte literal can hold
			e = 1000
		}
		if expNeg {
			e = -e
		}
		exp = e
	}
	if s != "" {
		return 0, false, false, false
	}
	// value = mant × 10^exp with trailing zeros folded into exp.
	mant := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	for len(mant) > 0 && mant[len(mant)-1] == '0' {
		mant, exp = mant[:len(mant)-1], exp+1
	}
	if mant == "" {
		return 0, false, false, true // zero, "-0" included: the caller's range check refuses it
	}
	if exp < 0 {
		return 0, neg, false, false // has a fraction
	}
	if len(mant)+exp > 16 { // at least 10^16 > 2^53
		return 0, neg, true, true
	}
	n, err := strconv.ParseUint(mant+strings.Repeat("0", exp), 10, 64)
	if err != nil || n > wire.MaxJSONSafeInteger {
		return 0, neg, true, true
	}
	return n, neg, false, true
}

func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// DescribeValue renders a received value for an error message. Values are the
// model's (and possibly an attacker's) text: strings are quoted with escapes and
// cut short so they cannot smuggle control characters or walls of text back.
func DescribeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return QuoteUntrusted(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		if len(x) <= 48 && strings.Trim(string(x), "0123456789+-.eE") == "" {
			return string(x)
		}
		return QuoteUntrusted(string(x))
	case bool:
		return strconv.FormatBool(x)
	case int, int32, int64, uint, uint32, uint64:
		return fmt.Sprint(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a value of type %T", v)
}

func QuoteUntrusted(s string) string {
	const max = 48
	if len(s) > max {
		cut := max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		return strconv.QuoteToASCII(s[:cut]) + "…"
	}
	return strconv.QuoteToASCII(s)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// tokenAlphabet is Bitcoin's base58 alphabet, the one Solana uses: no 0, O, I, l.
const TokenAlphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// validTokenText reports whether s could be a token: the right length and
// alphabet. It lets argument parsing refuse obvious garbage with a clear message.
func ValidToken(s string) bool {
	if len(s) != wire.TokenLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(TokenAlphabet, s[i]) < 0 {
			return false
		}
	}
	return true
}
