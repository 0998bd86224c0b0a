package args

import (
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/wire"
)

func TestExactJSONInteger(t *testing.T) {
	cases := []struct {
		lit          string
		n            uint64
		neg, big, ok bool
	}{
		{"0", 0, false, false, true},
		{"-0", 0, false, false, true},
		{"12", 12, false, false, true},
		{"1.20e1", 12, false, false, true},
		{"120e-1", 12, false, false, true},
		{"1E+2", 100, false, false, true},
		{"-3", 3, true, false, true},
		{"1.5", 0, false, false, false},
		{"1e-1", 0, false, false, false},
		{"01", 0, false, false, false},
		{"1.", 0, false, false, false},
		{".5", 0, false, false, false},
		{"1e", 0, false, false, false},
		{"+1", 0, false, false, false},
		{"0x1", 0, false, false, false},
		{"NaN", 0, false, false, false},
		{"9007199254740991", wire.MaxJSONSafeInteger, false, false, true},
		{"9007199254740992", 0, false, true, true},
		{"1e16", 0, false, true, true},
		{"1e999999999999999999999", 0, false, true, true},
		{"1e-999999999999999999999", 0, false, false, false},
		{strings.Repeat("1", 65), 0, false, false, false},
	}
	for _, c := range cases {
		n, neg, big, ok := exactJSONInteger(c.lit)
		if ok != c.ok || ok && (n != c.n || neg != c.neg || big != c.big) {
			t.Errorf("%s: got n=%d neg=%v big=%v ok=%v; want %d %v %v %v", c.lit, n, neg, big, ok, c.n, c.neg, c.big, c.ok)
		}
	}
}
