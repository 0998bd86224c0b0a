package solanaactions

import (
	"errors"
	"fmt"

	"github.com/solgate/solgate/mcpbridge/authority/untrusted"
	"github.com/solgate/solgate/policy"
)

// The outcomes a caller branches on. Every error from Fetch wraps exactly
// one of these (or policy.ErrActionOriginNotAllowed), and its text is
// sanitised: it may quote the server.
var (
	// ErrInput: the agent's url or input cannot be used (a missing required
	// parameter, an ambiguous choice, a malformed URL). A tool error.
	ErrInput = errors.New("solana_action input")
	// ErrServer: the action's server failed or answered something unusable.
	ErrServer = errors.New("action server")
	// ErrWrongChain: the action is for another cluster (X-Blockchain-Ids).
	ErrWrongChain = errors.New("action for another cluster")
	// ErrRefused: the action cannot be signed by solgate (disabled,
	// completed, not a transaction, a newer spec).
	ErrRefused = errors.New("action refused")
	// ErrOriginNotAllowed is policy's: the origin needs --allow-action-origin.
	ErrOriginNotAllowed = policy.ErrActionOriginNotAllowed
)

// maxErrorRunes caps an error's text; it may carry the server's words.
const maxErrorRunes = 600

type actionError struct {
	kind    error
	msg     string // sanitised
	wrapped error  // a detail callers may look for (statusError); nil: none
}

func (e *actionError) Error() string { return e.msg }

func (e *actionError) Unwrap() []error {
	if e.wrapped != nil {
		return []error{e.kind, e.wrapped}
	}
	return []error{e.kind}
}

func newError(kind error, format string, args ...any) error {
	return &actionError{kind: kind, msg: untrusted.Sanitize(kind.Error()+": "+fmt.Sprintf(format, args...), maxErrorRunes)}
}

func inputErrorf(format string, args ...any) error  { return newError(ErrInput, format, args...) }
func serverErrorf(format string, args ...any) error { return newError(ErrServer, format, args...) }
func wrongChainf(format string, args ...any) error  { return newError(ErrWrongChain, format, args...) }
func refusedf(format string, args ...any) error     { return newError(ErrRefused, format, args...) }

var errTrailing = errors.New("trailing data after the JSON value")
