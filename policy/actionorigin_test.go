package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/solgate/solgate/policy"
)

func TestParseOriginOneSpelling(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://example.com", "https://example.com"},
		{"HTTPS://Example.COM/", "https://example.com"},
		{"https://example.com:443", "https://example.com"},
		{"https://example.com:8443/api/actions/tip?x=1#f", "https://example.com:8443"},
		{"http://127.0.0.1:8899/api", "http://127.0.0.1:8899"},
		{"http://localhost:80", "http://localhost"},
		{"http://[::1]:3000", "http://[::1]:3000"},
		{"http://127.9.9.9", "http://127.9.9.9"},
	} {
		got, err := policy.ParseOrigin(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseOriginRefuses(t *testing.T) {
	for _, tc := range []struct{ in, says string }{
		{"http://example.com", "plain http is accepted on loopback only"},
		{"http://localhost.example.com", "plain http is accepted on loopback only"},
		{"http://10.0.0.1:8080", "plain http is accepted on loopback only"},
		{"ftp://example.com", "an origin is https://host[:port]"},
		{"example.com", "an origin is https://host[:port]"},
		{"https://user:pw@example.com", "no user info"},
		{"https://", "needs a host"},
		{"solana-action:https://example.com", "an origin is https://host[:port]"},
	} {
		got, err := policy.ParseOrigin(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("ParseOrigin(%q) = %q, %v; want an error saying %q", tc.in, got, err, tc.says)
		}
	}
}

func TestActionOriginDenyByDefault(t *testing.T) {
	c := policy.DefaultConfig()
	err := c.CheckActionOrigin("https://example.com")
	if !errors.Is(err, policy.ErrActionOriginNotAllowed) || !strings.Contains(err.Error(), "https://example.com is not on the action origin allowlist") || !strings.Contains(err.Error(), "--allow-action-origin https://example.com") {
		t.Fatalf("default config: %v; want a refusal naming the flag and the origin", err)
	}
	c.AllowedActionOrigins = []string{"https://example.com"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckActionOrigin("https://example.com"); err != nil {
		t.Fatalf("allowed origin refused: %v", err)
	}
	// Another port, scheme or a sub-domain is another origin.
	for _, o := range []string{"https://example.com:8443", "http://example.com", "https://evil.example.com", "https://example.com.evil.net"} {
		if err := c.CheckActionOrigin(o); !errors.Is(err, policy.ErrActionOriginNotAllowed) {
			t.Errorf("%s passed with only https://example.com allowed: %v", o, err)
		}
	}
}

func TestActionOriginConfigInAnySpelling(t *testing.T) {
	c := policy.DefaultConfig()
	c.AllowedActionOrigins = []string{"HTTPS://Example.com:443/"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckActionOrigin("https://example.com"); err != nil {
		t.Fatalf("the canonical origin of an allowed spelling refused: %v", err)
	}
	c.AllowedActionOrigins = []string{"example.com"}
	var ce *policy.ConfigError
	if err := c.Validate(); !errors.As(err, &ce) || ce.Key != "allow_action_origin" {
		t.Fatalf("Validate = %v; want allow_action_origin blamed", err)
	}
}
