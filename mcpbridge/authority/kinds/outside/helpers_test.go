package outside

import (
	"errors"
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/authority"
	"github.com/solgate/solgate/mcpbridge/authority/args"
)

// sampleTransaction is a legacy transfer of 1000 lamports from addrA to
// addrB, its signature slot empty, as base64 wire bytes.
const sampleTransaction = "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAEDfDj4eI9aoEQQVWAPScg/UEIaeCnyzbzUFI1pTy84p0HG+nrzvtutOj1l82qryXQxsbvkwtL24OR8pgIDRS9dYQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAgIAAQwCAAAA6AMAAAAAAAA="

func wantArgError(t *testing.T, tool string, raw map[string]any, arg, msg string) error {
	t.Helper()
	_, err := authority.ParseArgs(tool, raw)
	var ae *args.ArgError
	if !errors.As(err, &ae) || ae.Arg != arg || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s %v: got %v, want an error on %s mentioning %q", tool, raw, err, arg, msg)
	}
	return err
}
