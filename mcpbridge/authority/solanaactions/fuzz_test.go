package solanaactions

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzServerAnswers feeds a hostile server's bodies and headers to every
// parser of the client: none may panic, and no error text may carry an
// escape or a control character (errors reach the console and the model).
func FuzzServerAnswers(f *testing.F) {
	f.Add([]byte(`{"rules":[{"pathPattern":"/a/**","apiPath":"/api/**"}]}`), []byte(`{"title":"t","links":{"actions":[{"href":"/x?a={a}","label":"l","parameters":[{"name":"a","required":true,"pattern":"^[0-9]+$"}]}]}}`), []byte(`{"transaction":"AQ=="}`), "solana:abc, solana:def", "2.4.0", "a", "5")
	f.Add([]byte(`{"rules":[{"pathPattern":"/*/*/**","apiPath":"https://x/*/*/*/*"}]}`), []byte(`{"type":"completed"}`), []byte("{\"type\":\"\x1b[2J\"}"), "", "9.9", "link", "\x1b]0;x\x07")
	f.Fuzz(func(t *testing.T, rules, meta, post []byte, chains, version, key, value string) {
		base, _ := url.Parse("https://example.com/a/b/c?q=1")
		clean := func(err error) {
			if err != nil && strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
				t.Fatalf("control character in error %q", err)
			}
		}
		if aj, err := parseActionsJSON(rules); err == nil {
			_, _, err := aj.mapURL(base)
			clean(err)
		} else {
			clean(err)
		}
		if g, err := parseMetadata(meta); err == nil {
			c, err := choose(g, Input{key: {value}})
			clean(err)
			if err == nil {
				_, err = resolveChoice(base, c)
				clean(err)
			}
		} else {
			clean(err)
		}
		_, _, next, err := parsePostResponse(post)
		clean(err)
		if u, perr := url.Parse("https://a.example/api/x"); err == nil && perr == nil {
			n, err := parseNext(next, u)
			clean(err)
			if n != nil {
				clean(errors.New(n.Text("https://a.example")))
			}
		}
		h := http.Header{"X-Blockchain-Ids": {chains}, "X-Action-Version": {version}}
		_, err = checkChain(h, "solana:abc")
		clean(err)
		_, err = checkVersion(h)
		clean(err)
		clean(CheckURL(value))
	})
}
