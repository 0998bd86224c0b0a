package main

import (
	"os"
	"strings"
	"testing"
)

// section returns the text of a document from the line holding heading up to
// the next heading of the same or a higher level (marker is "## " in
// markdown, "// # " in a Go doc comment, where there is one level).
func section(t *testing.T, path, heading, marker string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q section", path, heading)
	}
	if end := strings.Index(rest, "\n"+marker); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// Issue 26 asks for documentation of paying x402 APIs that names the origin
// allowlist and the per-mint caps; it also documents the payTo pin and the
// grants' bound. Issue 37 moved the detail into package documentation, now
// that of the kinds signing bytes built elsewhere (go doc
// ./mcpbridge/authority/kinds/outside), and left a recipe in the README:
// both must name every setting, each found by its flag.
func TestX402Documentation(t *testing.T) {
	want := []string{"--allow-x402-origin", "--max-token-per-tx", "-per-session", "-per-day",
		"--allow-uncapped-token-transfers", "--x402-pin-pay-to", "--allow-recipient", "calls × at most"}
	for _, doc := range []struct{ path, heading, marker string }{
		{"../../README.md", "### `x402_fetch`: paying an API per call", "## "},
		{"../../mcpbridge/authority/kinds/outside/doc.go", "// # Paying x402 APIs", "// # "},
	} {
		text := section(t, doc.path, doc.heading, doc.marker)
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s, %q, does not mention %q", doc.path, doc.heading, w)
			}
		}
	}
	// The recipe pays through the real paid API: the console's line admits its
	// origin and caps its mint, and the tool is called with the paid route.
	recipe := section(t, "../../README.md", "## Every write tool on the local ledger", "## ")
	for _, w := range []string{"--allow-x402-origin $X402", "--max-token-per-tx $X402_MINT=", "localnet_x402Info",
		"localnet_mintTo", "call x402_fetch --tool-arg url=$X402/paid"} {
		if !strings.Contains(recipe, w) {
			t.Errorf("the README's local recipes do not contain %q", w)
		}
	}
}
