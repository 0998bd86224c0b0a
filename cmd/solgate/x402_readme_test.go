package main

import (
	"os"
	"strings"
	"testing"
)

// Issue 26 asks for a README section on paying x402 APIs that names the
// origin allowlist and the per-mint caps; it also documents the payTo pin
// and the grants' bound. The section is found by its heading and each
// setting by its flag.
func TestX402READMESection(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Paying x402 APIs\n")
	if !ok {
		t.Fatal(`README.md has no "## Paying x402 APIs" section`)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	for _, want := range []string{"--allow-x402-origin", "--max-token-per-tx", "-per-session", "-per-day",
		"--allow-uncapped-token-transfers", "--x402-pin-pay-to", "--allow-recipient", "calls × at most"} {
		if !strings.Contains(section, want) {
			t.Errorf("the x402 section does not mention %q", want)
		}
	}
}
