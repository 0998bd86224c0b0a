// Package tokens issues and consumes the confirmation tokens an approval
// mints: single-use, bound to the proposal and the fingerprint of its
// arguments, stored only as hashes, short-lived, and revocable by the
// operator. The hub holds one Store; nothing else in it knows a token.
package tokens

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/solgate/solgate/mcpbridge/authority/args"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// Length is the length of a confirmation token: 12 base58 characters,
// about 70 bits from crypto/rand. Short enough for a human to paste, far too
// many to guess within a token's lifetime.
const Length = wire.TokenLength

// Default token lifetimes (DESIGN.md): a swap's quote goes stale sooner.
const (
	TransferTTL = 5 * time.Minute
	SwapTTL     = 2 * time.Minute
)

// tokenRetention is how long a dead or expired token is remembered, so that
// presenting it again says "used" or "expired" rather than "unknown".
const tokenRetention = 10 * time.Minute

// Outcomes of Consume other than success. Each message tells the model what to
// do next; none of them leaves the token usable.
var (
	ErrUnknown  = errors.New("this confirmation token is not recognised; pass exactly the token proposal_status returned, or call the tool again without confirm to create a new proposal")
	ErrExpired  = errors.New("this confirmation token has expired; it is now void — call the tool again without confirm to create a new proposal")
	ErrUsed     = errors.New("this confirmation token has already been used; tokens are single-use — call the tool again without confirm to create a new proposal")
	ErrMismatch = errors.New("this confirmation token was issued for different arguments; it is now void — propose again by calling the tool without confirm")
	ErrRevoked  = errors.New("this confirmation token was revoked by the operator; it is now void — propose again by calling the tool without confirm if the operator agrees")
)

// Error is a refused Consume of a token the store knew: it names the
// proposal the token belonged to, for the audit log. It unwraps to one of the
// ErrToken* sentinels, whose message is its message.
type Error struct {
	ProposalID string
	Err        error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

type tokenState int

const (
	tokenLive tokenState = iota
	tokenUsed            // consumed: success, wrong arguments or expiry
	tokenRevoked
)

type tokenEntry struct {
	proposalID  string
	fingerprint string
	expiresAt   time.Time
	state       tokenState
}

// Store holds confirmation tokens. It is safe for concurrent use.
//
// Tokens are kept by SHA-256 of their text: the map's lookup then compares
// hashes, so its timing says nothing useful about the token's characters.
type Store struct {
	now func() time.Time

	mu      sync.Mutex
	byHash  map[[sha256.Size]byte]*tokenEntry
	byProp  map[string][sha256.Size]byte // the live token of each proposal
	rand    func([]byte) (int, error)
	lastGC  time.Time
	sweepGC time.Duration
}

// NewStore returns an empty store. now is the clock (nil: time.Now);
// tests inject a fake one.
func NewStore(now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{
		now:     now,
		byHash:  map[[sha256.Size]byte]*tokenEntry{},
		byProp:  map[string][sha256.Size]byte{},
		rand:    rand.Read,
		sweepGC: time.Minute,
	}
}

// Issue mints a token for an approved proposal, bound to the fingerprint of the
// approved arguments. A proposal has at most one live token: issuing again
// revokes the previous one.
func (s *Store) Issue(proposalID, fingerprint string, ttl time.Duration) (token string, expiresAt time.Time, err error) {
	if proposalID == "" {
		return "", time.Time{}, errors.New("issue token: empty proposal id")
	}
	if !args.ValidFingerprint(fingerprint) {
		return "", time.Time{}, fmt.Errorf("issue token for proposal %s: fingerprint %q is not %d lowercase hex characters", proposalID, fingerprint, args.FingerprintLength)
	}
	if ttl <= 0 {
		return "", time.Time{}, fmt.Errorf("issue token for proposal %s: ttl %v must be positive", proposalID, ttl)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.sweepLocked(now)
	var h [sha256.Size]byte
	for {
		if token, err = s.newTokenLocked(); err != nil {
			return "", time.Time{}, fmt.Errorf("issue token for proposal %s: %w", proposalID, err)
		}
		h = sha256.Sum256([]byte(token))
		if _, taken := s.byHash[h]; !taken { // 2^-70 per try; cheap to be certain
			break
		}
	}
	if old, ok := s.byProp[proposalID]; ok {
		if e := s.byHash[old]; e != nil && e.state == tokenLive {
			e.state = tokenRevoked
		}
	}
	expiresAt = now.Add(ttl)
	s.byHash[h] = &tokenEntry{proposalID: proposalID, fingerprint: fingerprint, expiresAt: expiresAt}
	s.byProp[proposalID] = h
	return token, expiresAt, nil
}

// newTokenLocked draws TokenLength characters uniformly from the alphabet.
// Bytes ≥ 232 (= 4×58) are rejected rather than reduced modulo 58, which would
// make the first 24 characters more likely than the rest.
func (s *Store) newTokenLocked() (string, error) {
	const limit = 256 - 256%len(args.TokenAlphabet)
	out := make([]byte, 0, Length)
	buf := make([]byte, 2*Length)
	for len(out) < Length {
		if _, err := s.rand(buf); err != nil {
			return "", fmt.Errorf("read random bytes: %w", err)
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < Length {
				out = append(out, args.TokenAlphabet[int(b)%len(args.TokenAlphabet)])
			}
		}
	}
	return string(out), nil
}

// Consume redeems a token for a call whose arguments have the given
// fingerprint. It returns the proposal the token was issued for. The token is
// dead afterwards whatever the outcome — success, wrong arguments or expiry —
// so it can never be replayed or probed. A refusal of a known token is a
// *TokenError; every refusal wraps one of the ErrToken* sentinels.
func (s *Store) Consume(token, fingerprint string) (proposalID string, err error) {
	h := sha256.Sum256([]byte(token))
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.sweepLocked(now)
	e, ok := s.byHash[h]
	if !ok {
		return "", ErrUnknown
	}
	refuse := func(err error) (string, error) { return "", &Error{ProposalID: e.proposalID, Err: err} }
	switch e.state {
	case tokenUsed:
		return refuse(ErrUsed)
	case tokenRevoked:
		return refuse(ErrRevoked)
	}
	e.state = tokenUsed
	if s.byProp[e.proposalID] == h {
		delete(s.byProp, e.proposalID)
	}
	if !now.Before(e.expiresAt) {
		return refuse(ErrExpired)
	}
	if subtle.ConstantTimeCompare([]byte(fingerprint), []byte(e.fingerprint)) != 1 {
		return refuse(ErrMismatch)
	}
	return e.proposalID, nil
}

// Revoke voids the live token of a proposal, if it has one. It reports whether
// a token was revoked.
func (s *Store) Revoke(proposalID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.byProp[proposalID]
	if !ok {
		return false
	}
	delete(s.byProp, proposalID)
	if e := s.byHash[h]; e != nil && e.state == tokenLive && s.now().Before(e.expiresAt) {
		e.state = tokenRevoked
		return true
	}
	return false
}

// RevokeAll voids every live token (the operator's panic button) and returns
// how many were still usable.
func (s *Store) RevokeAll() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	n := 0
	for _, e := range s.byHash {
		if e.state == tokenLive {
			if now.Before(e.expiresAt) {
				n++
			}
			e.state = tokenRevoked
		}
	}
	clear(s.byProp)
	return n
}

// Live returns the number of tokens that could still be consumed.
func (s *Store) Live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	n := 0
	for _, e := range s.byHash {
		if e.state == tokenLive && now.Before(e.expiresAt) {
			n++
		}
	}
	return n
}

// sweepLocked forgets tokens past expiry plus retention. It runs lazily from
// Issue and Consume, at most once per sweepGC, so no goroutine is needed.
func (s *Store) sweepLocked(now time.Time) {
	if now.Sub(s.lastGC) < s.sweepGC && !now.Before(s.lastGC) {
		return
	}
	s.lastGC = now
	for h, e := range s.byHash {
		if now.After(e.expiresAt.Add(tokenRetention)) {
			delete(s.byHash, h)
			if s.byProp[e.proposalID] == h {
				delete(s.byProp, e.proposalID)
			}
		}
	}
}
