package main

import (
	"crypto/sha256"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mr-tron/base58"
	"github.com/spf13/pflag"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// Issue 37: the README is the first hour, at most 400 lines; the design
// lives in package documentation and SECURITY.md.
func TestREADMEIsAtMost400Lines(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\n"); n > 400 {
		t.Errorf("README.md has %d lines; the first hour fits in 400, the rest belongs in go doc or SECURITY.md", n)
	}
}

// readmeShellLines returns the README's shell commands: the lines of its
// ```sh blocks, continuations joined, comments cut.
func readmeShellLines(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(raw), -1) {
		joined := strings.ReplaceAll(block[1], "\\\n", " ")
		for _, l := range strings.Split(joined, "\n") {
			if i := strings.Index(l, " # "); i >= 0 {
				l = l[:i]
			}
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// readmeVars replaces each variable the README sets by a value of the kind it
// holds there, longest name first ($X402_MINT before $X402).
func readmeVars(line string) string {
	return strings.NewReplacer(
		`"$(id -u agent)"`, "1500",
		"<ADDRESS>", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T",
		"$X402_MINT", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		"$X402", "http://127.0.0.1:35819",
		"$WALLET", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T",
		"$FRIEND", "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T",
		"$TIPJAR", "4DLvsvn3zcxJee8NjrANgRvE99XGYkN5oCoTXqVKaA4k",
		"$CPSWAP", "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
		"$RPC", "http://127.0.0.1:8899",
		"$S", "/tmp/solgate-readme-test/console.sock",
	).Replace(line)
}

// readmeWords splits a command line as the shell would for the README's
// simple commands (quotes group) and refuses a variable readmeVars does not
// know, so that no flag's value goes untested.
func readmeWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	for _, w := range regexp.MustCompile(`'[^']*'|"[^"]*"|\S+`).FindAllString(line, -1) {
		if strings.ContainsAny(w, "$<") {
			t.Errorf("README line %q: %q holds a variable this test does not know; add what it holds", line, w)
		}
		words = append(words, strings.Trim(w, `"'`))
	}
	return words
}

// Every `solgate …` command the README shows is accepted by the real
// command: its flags exist, and a console's settings pass the same parsing
// and checks the console applies before it starts (addresses, origins, caps).
// A renamed or mistyped flag in a recipe turns this red.
func TestREADMECommandsAreAccepted(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // ~ in a path setting must not reach the tester's files
	seen := map[string]bool{}
	for _, line := range readmeShellLines(t) {
		line = readmeVars(line)
		for _, m := range regexp.MustCompile(`(?:^|[;&|(]\s*|\s--\s)(solgate\s[^|;&)]*)`).FindAllStringSubmatch(line, -1) {
			args := readmeWords(t, m[1])[1:]
			root := newRootCmd()
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == root {
				t.Errorf("README: %q: no such command (%v)", m[1], err)
				continue
			}
			seen[cmd.Name()] = true
			if cmd.Name() != "console" {
				if err := cmd.ParseFlags(rest); err != nil {
					t.Errorf("README: %q: %v", m[1], err)
				}
				continue
			}
			fs := pflag.NewFlagSet("console", pflag.ContinueOnError)
			sf := registerSettings(fs)
			fs.Bool("check", false, "")
			if err := fs.Parse(rest); err != nil {
				t.Errorf("README: %q: %v", m[1], err)
				continue
			}
			if _, err := sf.build(); err != nil {
				t.Errorf("README: %q: the console refuses its settings: %v", m[1], err)
			}
		}
	}
	for _, want := range []string{"console", "keygen", "mcp"} {
		if !seen[want] {
			t.Errorf("found no `solgate %s` line in the README's shell blocks; is the parser still reading them?", want)
		}
	}
}

// The README's tip jar is the address localnet's Actions pay
// (localnet/actions.mjs: the base58 of sha256 of its seed), so allowlisting
// it lets the solana_action recipe through the payee check.
func TestREADMETipJarIsTheLedgers(t *testing.T) {
	var readme string
	for _, l := range readmeShellLines(t) {
		if v, ok := strings.CutPrefix(l, "TIPJAR="); ok {
			readme = strings.Fields(v)[0]
		}
	}
	sum := sha256.Sum256([]byte("solgate localnet action tip jar"))
	if want := base58.Encode(sum[:]); readme != want {
		t.Fatalf("README's TIPJAR = %q, the ledger's tip jar is %s", readme, want)
	}
}

// The README's tool table is the inventory: every tool the bridge serves has a
// row saying read or write as its declaration does, and no row names a tool
// that does not exist (reclaim_rent once shipped without a row).
func TestREADMEToolTableIsTheInventory(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\| (read|write) \\|")
	rows := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(raw), -1) {
		rows[m[1]] = m[2]
	}
	for _, tool := range wire.Inventory() {
		want := map[bool]string{false: "read", true: "write"}[tool.Write]
		switch got, ok := rows[tool.Name]; {
		case !ok:
			t.Errorf("README's tool table has no row for %s", tool.Name)
		case got != want:
			t.Errorf("README's tool table says %s is %s; it is %s", tool.Name, got, want)
		}
		delete(rows, tool.Name)
	}
	for name := range rows {
		t.Errorf("README's tool table names %s, which the bridge does not serve", name)
	}
}
