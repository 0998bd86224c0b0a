package executor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// TokenInfo is what the chain says about a mint. Metadata strings are raw
// and attacker-controlled: sanitise them before they reach a screen or a model.
type TokenInfo struct {
	Mint            solana.PublicKey
	Program         solana.PublicKey // SPL Token or Token-2022
	Decimals        uint8
	Supply          uint64
	MintAuthority   *solana.PublicKey // nil: supply is fixed
	FreezeAuthority *solana.PublicKey // nil: nobody can freeze holders
	// Extensions are the Token-2022 extensions present on the mint.
	Extensions []TokenExtension
	// TransferFee, PermanentDelegate and TransferHookProgram are set when the
	// corresponding extension is present.
	TransferFee         *TransferFee
	PermanentDelegate   *solana.PublicKey
	TransferHookProgram *solana.PublicKey
	// Warnings are solgate's own findings about risky properties (their
	// text contains no text from the token).
	Warnings []Warning
	// Metadata is the token's name/symbol/URI, nil when it has none.
	Metadata *TokenMetadata
}

// Warning is one risky property of a mint: Kind is stable, for programs
// (the console's short labels); Text is a sentence for people and models.
type Warning struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Warning kinds.
const (
	WarnMintAuthority     = "mint_authority"
	WarnFreezeAuthority   = "freeze_authority"
	WarnTransferFee       = "transfer_fee"
	WarnCloseAuthority    = "close_authority"
	WarnConfidential      = "confidential"
	WarnDefaultFrozen     = "default_frozen"
	WarnNonTransferable   = "non_transferable"
	WarnPermanentDelegate = "permanent_delegate"
	WarnTransferHook      = "transfer_hook"
	WarnPausable          = "pausable"
	// WarnImpostor (impostor.go) judges the metadata, once sanitised, against
	// the real mints of the tickers it imitates; ImpostorWarning makes it.
)

// WarningKinds lists every kind of Warning.
var WarningKinds = []string{
	WarnMintAuthority, WarnFreezeAuthority, WarnTransferFee, WarnCloseAuthority, WarnConfidential,
	WarnDefaultFrozen, WarnNonTransferable, WarnPermanentDelegate, WarnTransferHook, WarnPausable, WarnImpostor,
}

// WarningTexts lists the sentences, in order.
func WarningTexts(ws []Warning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.Text)
	}
	return out
}

func (info *TokenInfo) warn(kind, format string, args ...any) {
	info.Warnings = append(info.Warnings, Warning{Kind: kind, Text: fmt.Sprintf(format, args...)})
}

// TransferFee is a Token-2022 transfer fee (the newer of the two configured).
type TransferFee struct {
	Bps        uint16
	Maximum    uint64
	FromEpoch  uint64
	OlderBps   uint16
	OlderEpoch uint64
}

// TokenExtension is one Token-2022 TLV entry on the mint.
type TokenExtension struct {
	Type uint16
	Name string
}

// TokenMetadata is a token's name, symbol and URI, raw as stored on chain
// (Metaplex NUL padding removed).
type TokenMetadata struct {
	// Source is "metaplex" (the Token Metadata program's account) or
	// "token-2022" (the mint's TokenMetadata extension).
	Source          string
	Account         solana.PublicKey
	UpdateAuthority *solana.PublicKey
	Name            string
	Symbol          string
	URI             string
}

// ErrNotAMint is wrapped when the address is not a token mint.
var ErrNotAMint = errors.New("not a token mint")

// maxMetadataString bounds one metadata string read from an account.
const maxMetadataString = 4096

// TokenInfo reads a mint and its Metaplex metadata account in one round trip.
func (c *Client) TokenInfo(ctx context.Context, mint solana.PublicKey) (*TokenInfo, error) {
	mdAddr, _, err := solana.FindTokenMetadataAddress(mint)
	if err != nil {
		return nil, fmt.Errorf("token info %s: metadata address: %w", mint, err)
	}
	res, err := c.rpc.GetMultipleAccountsWithOpts(ctx, []solana.PublicKey{mint, mdAddr}, &rpc.GetMultipleAccountsOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		return nil, fmt.Errorf("token info %s: getMultipleAccounts: %s", mint, rpcErrorText(err))
	}
	if res == nil || len(res.Value) != 2 {
		return nil, fmt.Errorf("token info %s: node returned the wrong number of accounts", mint)
	}
	return tokenInfoFrom(mint, mdAddr, res.Value[0], res.Value[1])
}

// tokenInfoFrom reads the mint account m and its Metaplex metadata account
// md (at mdAddr; nil when absent), as TokenInfo asks for them.
func tokenInfoFrom(mint, mdAddr solana.PublicKey, m, md *rpc.Account) (*TokenInfo, error) {
	if m == nil || m.Data == nil {
		return nil, fmt.Errorf("token info %s: %w: the account does not exist", mint, ErrNotAMint)
	}
	info, err := ParseMint(m.Owner, m.Data.GetBinary())
	if err != nil {
		return nil, fmt.Errorf("token info %s: %w", mint, err)
	}
	info.Mint = mint
	if md != nil && md.Data != nil && md.Owner.Equals(solana.TokenMetadataProgramID) {
		if meta, of, err := ParseMetaplexMetadata(md.Data.GetBinary()); err == nil && of.Equals(mint) {
			meta.Account = mdAddr
			info.Metadata = meta
		}
	}
	if info.Metadata != nil && info.Metadata.Source == "token-2022" {
		info.Metadata.Account = mint
	}
	return info, nil
}

// Token-2022 extension types (spl-token-2022 ExtensionType).
var extensionNames = map[uint16]string{
	1: "TransferFeeConfig", 2: "TransferFeeAmount", 3: "MintCloseAuthority", 4: "ConfidentialTransferMint",
	5: "ConfidentialTransferAccount", 6: "DefaultAccountState", 7: "ImmutableOwner", 8: "MemoTransfer",
	9: "NonTransferable", 10: "InterestBearingConfig", 11: "CpiGuard", 12: "PermanentDelegate",
	13: "NonTransferableAccount", 14: "TransferHook", 15: "TransferHookAccount", 16: "ConfidentialTransferFeeConfig",
	17: "ConfidentialTransferFeeAmount", 18: "MetadataPointer", 19: "TokenMetadata", 20: "GroupPointer",
	21: "TokenGroup", 22: "GroupMemberPointer", 23: "TokenGroupMember", 24: "ConfidentialMintBurn",
	25: "ScaledUiAmount", 26: "Pausable", 27: "PausableAccount",
}

const (
	mintSize         = 82
	tokenAccountSize = 165
)

// ParseMint decodes a mint account (SPL Token or Token-2022, with the
// Token-2022 TLV extension area). It never panics.
func ParseMint(owner solana.PublicKey, d []byte) (*TokenInfo, error) {
	if !owner.Equals(solana.TokenProgramID) && !owner.Equals(solana.Token2022ProgramID) {
		return nil, fmt.Errorf("%w: owned by %s, not a token program", ErrNotAMint, owner)
	}
	if len(d) < mintSize {
		return nil, fmt.Errorf("%w: %d bytes, a mint has at least %d", ErrNotAMint, len(d), mintSize)
	}
	if d[45] != 1 {
		return nil, fmt.Errorf("%w: not initialized", ErrNotAMint)
	}
	info := &TokenInfo{Program: owner, Supply: binary.LittleEndian.Uint64(d[36:44]), Decimals: d[44]}
	coption := func(off int) (*solana.PublicKey, error) {
		switch binary.LittleEndian.Uint32(d[off:]) {
		case 0:
			return nil, nil
		case 1:
			pk := solana.PublicKeyFromBytes(d[off+4 : off+36])
			return &pk, nil
		}
		return nil, fmt.Errorf("%w: bad option tag at %d", ErrNotAMint, off)
	}
	var err error
	if info.MintAuthority, err = coption(0); err != nil {
		return nil, err
	}
	if info.FreezeAuthority, err = coption(46); err != nil {
		return nil, err
	}
	if len(d) > mintSize {
		if owner.Equals(solana.TokenProgramID) {
			return nil, fmt.Errorf("%w: %d bytes is not an SPL Token mint", ErrNotAMint, len(d))
		}
		if err := parseExtensions(info, d); err != nil {
			return nil, err
		}
	}
	if info.MintAuthority != nil {
		info.warn(WarnMintAuthority, "mint authority %s can create more of this token", info.MintAuthority)
	}
	if info.FreezeAuthority != nil {
		info.warn(WarnFreezeAuthority, "freeze authority %s can freeze any holder's tokens", info.FreezeAuthority)
	}
	return info, nil
}

// parseExtensions walks the Token-2022 TLV area: the base mint is padded to
// the token-account size, then one AccountType byte (1 = mint), then
// entries of type u16, length u16, value.
func parseExtensions(info *TokenInfo, d []byte) error {
	if len(d) <= tokenAccountSize {
		return fmt.Errorf("%w: %d bytes is neither a plain nor an extended mint", ErrNotAMint, len(d))
	}
	if d[tokenAccountSize] != 1 {
		return fmt.Errorf("%w: account type %d is not a mint", ErrNotAMint, d[tokenAccountSize])
	}
	pk := func(b []byte) *solana.PublicKey {
		k := solana.PublicKeyFromBytes(b)
		if k.IsZero() { // OptionalNonZeroPubkey: all zeros means none
			return nil
		}
		return &k
	}
	off := tokenAccountSize + 1
	for off+4 <= len(d) {
		typ := binary.LittleEndian.Uint16(d[off:])
		n := int(binary.LittleEndian.Uint16(d[off+2:]))
		off += 4
		if typ == 0 {
			break // uninitialized: the rest is padding
		}
		if off+n > len(d) {
			return fmt.Errorf("%w: extension %d overruns the account", ErrNotAMint, typ)
		}
		v := d[off : off+n]
		off += n
		name := extensionNames[typ]
		if name == "" {
			name = fmt.Sprintf("Unknown(%d)", typ)
		}
		info.Extensions = append(info.Extensions, TokenExtension{Type: typ, Name: name})
		switch typ {
		case 1: // TransferFeeConfig: 2 authorities, withheld, older fee, newer fee
			if len(v) >= 108 {
				fee := &TransferFee{
					OlderEpoch: binary.LittleEndian.Uint64(v[72:]),
					OlderBps:   binary.LittleEndian.Uint16(v[88:]),
					FromEpoch:  binary.LittleEndian.Uint64(v[90:]),
					Maximum:    binary.LittleEndian.Uint64(v[98:]),
					Bps:        binary.LittleEndian.Uint16(v[106:]),
				}
				info.TransferFee = fee
				info.warn(WarnTransferFee, "transfer fee: %d bps (at most %d base units) is withheld from every transfer", fee.Bps, fee.Maximum)
			} else {
				info.warn(WarnTransferFee, "transfer fee extension present (malformed)")
			}
		case 3:
			if len(v) >= 32 {
				if a := pk(v[:32]); a != nil {
					info.warn(WarnCloseAuthority, "mint close authority %s can close the mint", a)
				}
			}
		case 4:
			info.warn(WarnConfidential, "confidential transfers: balances and amounts can be hidden")
		case 6:
			if len(v) >= 1 && v[0] == 2 {
				info.warn(WarnDefaultFrozen, "new token accounts start frozen")
			}
		case 9:
			info.warn(WarnNonTransferable, "non-transferable: tokens cannot be moved once received")
		case 12:
			if len(v) >= 32 {
				if a := pk(v[:32]); a != nil {
					info.PermanentDelegate = a
					info.warn(WarnPermanentDelegate, "permanent delegate %s can move or burn anyone's tokens at any time", a)
				}
			}
		case 14:
			if len(v) >= 64 {
				if prog := pk(v[32:64]); prog != nil {
					info.TransferHookProgram = prog
					info.warn(WarnTransferHook, "transfer hook: program %s runs on every transfer and can block or alter it", prog)
				}
			}
		case 19:
			if md, err := parseTokenMetadataExtension(v); err == nil {
				if info.Metadata == nil {
					info.Metadata = md
				}
			}
		case 26:
			info.warn(WarnPausable, "pausable: an authority can halt all transfers")
		}
	}
	return nil
}

type borshReader struct {
	d   []byte
	off int
}

func (r *borshReader) str() (string, error) {
	if r.off+4 > len(r.d) {
		return "", errors.New("truncated string length")
	}
	n := int(binary.LittleEndian.Uint32(r.d[r.off:]))
	r.off += 4
	if n > len(r.d)-r.off {
		return "", errors.New("string overruns the account")
	}
	s := r.d[r.off : r.off+n]
	r.off += n
	if len(s) > maxMetadataString {
		s = s[:maxMetadataString]
	}
	return strings.TrimRight(string(s), "\x00"), nil
}

// ParseMetaplexMetadata decodes the start of a Metaplex Token Metadata
// account (MetadataV1): key, update authority, mint, name, symbol, uri. It
// returns the metadata and the mint the account says it describes.
func ParseMetaplexMetadata(d []byte) (*TokenMetadata, solana.PublicKey, error) {
	if len(d) < 1+32+32 {
		return nil, solana.PublicKey{}, errors.New("too short for metadata")
	}
	if d[0] != 4 { // Key::MetadataV1
		return nil, solana.PublicKey{}, fmt.Errorf("key %d is not MetadataV1", d[0])
	}
	ua := solana.PublicKeyFromBytes(d[1:33])
	mint := solana.PublicKeyFromBytes(d[33:65])
	m := &TokenMetadata{Source: "metaplex", UpdateAuthority: &ua}
	r := &borshReader{d: d, off: 65}
	var err error
	if m.Name, err = r.str(); err != nil {
		return nil, mint, fmt.Errorf("name: %w", err)
	}
	if m.Symbol, err = r.str(); err != nil {
		return nil, mint, fmt.Errorf("symbol: %w", err)
	}
	if m.URI, err = r.str(); err != nil {
		return nil, mint, fmt.Errorf("uri: %w", err)
	}
	return m, mint, nil
}

// parseTokenMetadataExtension decodes Token-2022's TokenMetadata extension:
// update authority (32, zero = none), mint (32), name, symbol, uri, ...
func parseTokenMetadataExtension(v []byte) (*TokenMetadata, error) {
	if len(v) < 64 {
		return nil, errors.New("too short")
	}
	md := &TokenMetadata{Source: "token-2022"}
	if ua := solana.PublicKeyFromBytes(v[:32]); !ua.IsZero() {
		md.UpdateAuthority = &ua
	}
	r := &borshReader{d: v, off: 64}
	var err error
	if md.Name, err = r.str(); err != nil {
		return nil, err
	}
	if md.Symbol, err = r.str(); err != nil {
		return nil, err
	}
	if md.URI, err = r.str(); err != nil {
		return nil, err
	}
	return md, nil
}
