package outside

import (
	"errors"
	"strings"
	"testing"

	"github.com/solgate/solgate/mcpbridge/authority/args"
)

func TestX402FetchArgs(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{"url": "https://api.example.com/data", "method": "post",
			"headers": map[string]any{"accept": "application/json", "X-Api-Key": "k"}, "body": "{}", "max_amount": "1000"}
	}
	a, err := ParseX402FetchArgs(base())
	if err != nil {
		t.Fatal(err)
	}
	if a.Method != "POST" || a.Headers["Accept"] != "application/json" || a.MaxAmount != 1000 {
		t.Fatalf("parsed %+v", a)
	}
	// The approval binds the whole request: any change is another fingerprint.
	for name, change := range map[string]func(map[string]any){
		"url":        func(m map[string]any) { m["url"] = "https://api.example.com/other" },
		"method":     func(m map[string]any) { m["method"] = "GET" },
		"header":     func(m map[string]any) { m["headers"] = map[string]any{"accept": "text/plain", "X-Api-Key": "k"} },
		"body":       func(m map[string]any) { m["body"] = "{ }" },
		"max_amount": func(m map[string]any) { m["max_amount"] = 1001 },
	} {
		m := base()
		change(m)
		b, err := ParseX402FetchArgs(m)
		if err != nil || b.Fingerprint() == a.Fingerprint() {
			t.Errorf("%s: same fingerprint (%v)", name, err)
		}
	}
	// Header names differing only in case are the same request.
	m := base()
	m["headers"] = map[string]any{"ACCEPT": "application/json", "x-api-key": "k"}
	if b, _ := ParseX402FetchArgs(m); b.Fingerprint() != a.Fingerprint() {
		t.Error("header case changed the fingerprint")
	}
	for name, bad := range map[string]struct {
		arg string
		v   any
	}{
		"payment header":    {"headers", map[string]any{"PAYMENT-SIGNATURE": "x"}},
		"x-payment":         {"headers", map[string]any{"x-payment": "x"}},
		"host":              {"headers", map[string]any{"Host": "evil.example"}},
		"line break":        {"headers", map[string]any{"X-A": "a\r\nX-B: b"}},
		"non-string":        {"headers", map[string]any{"X-A": 1}},
		"plain http":        {"url", "http://api.example.com/data"},
		"method":            {"method", "TRACE"},
		"negative max":      {"max_amount", -1},
		"float max":         {"max_amount", 0.5},
		"body not string":   {"body", 3},
		"url with userinfo": {"url", "https://u:p@api.example.com/"},
	} {
		m := base()
		m[bad.arg] = bad.v
		_, err := ParseX402FetchArgs(m)
		var ae *args.ArgError
		if !errors.As(err, &ae) || ae.Arg != bad.arg || !strings.Contains(err.Error(), bad.arg) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
