package relayprocs

import "testing"

func TestOnlyABridgeGetsOneP(t *testing.T) {
	for _, c := range []struct {
		args       []string
		gomaxprocs string
		want       bool
	}{
		{[]string{"solgate", "mcp"}, "", true},
		{[]string{"/usr/local/bin/solgate", "mcp", "--socket", "/run/solgate/console.sock"}, "", true},
		{[]string{"solgate", "mcp"}, "2", false}, // the environment wins
		{[]string{"solgate", "console"}, "", false},
		{[]string{"solgate", "demo"}, "", false},
		{[]string{"solgate"}, "", false},
		{[]string{"solgate", "--socket", "x", "mcp"}, "", false}, // the command sets it itself
	} {
		if got := onlyOne(c.args, c.gomaxprocs); got != c.want {
			t.Errorf("onlyOne(%q, %q) = %v, want %v", c.args, c.gomaxprocs, got, c.want)
		}
	}
}
