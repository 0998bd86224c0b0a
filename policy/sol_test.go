package policy

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestParseSOL(t *testing.T) {
	tests := []struct {
		in      string
		want    uint64
		wantErr string
	}{
		{"0.1", 100_000_000, ""},
		{"0.05", 50_000_000, ""},
		{"1", 1_000_000_000, ""},
		{"1.", 1_000_000_000, ""},
		{".5", 500_000_000, ""},
		{"0.000000001", 1, ""},
		{"4.6", 4_600_000_000, ""},
		{"1000000", 1_000_000 * LamportsPerSOL, ""},
		{"18446744073.709551615", 18446744073709551615, ""},
		{"18446744073.709551616", 0, "too large"},
		{"18446744074", 0, "too large"},
		{"0.0000000001", 0, "10 decimals"},
		{"", 0, "empty"},
		{".", 0, "not a number"},
		{"-0.1", 0, "plain decimal"},
		{"+1", 0, "plain decimal"},
		{"1e3", 0, "plain decimal"},
		{"1_000", 0, "plain decimal"},
		{"0.1.2", 0, "plain decimal"},
		{" 1", 0, "plain decimal"},
	}
	for _, tt := range tests {
		got, err := ParseSOL(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSOL(%q) = %d, %v; want error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSOL(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatSOL(t *testing.T) {
	for lamports, want := range map[uint64]string{
		0: "0", 1: "0.000000001", 50_000_000: "0.05", 50_005_000: "0.050005",
		1_000_000_000: "1", 4_600_000_000: "4.6", 18446744073709551615: "18446744073.709551615",
	} {
		if got := FormatSOL(lamports); got != want {
			t.Errorf("FormatSOL(%d) = %q, want %q", lamports, got, want)
		}
	}
}

// Every lamport amount survives the trip to a SOL string and back, so the
// edge conversions can never drift a cap by a lamport.
func TestSOLRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := rapid.Uint64().Draw(t, "lamports")
		back, err := ParseSOL(FormatSOL(l))
		if err != nil || back != l {
			t.Fatalf("ParseSOL(FormatSOL(%d)) = %d, %v", l, back, err)
		}
	})
}

func TestParsePercentBps(t *testing.T) {
	good := map[string]uint32{"1.5": 150, "0.01": 1, "100": 10_000, "3": 300, "0": 0, "12.34": 1234}
	for in, want := range good {
		if got, err := ParsePercentBps(in); err != nil || got != want {
			t.Errorf("ParsePercentBps(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for bps, want := range map[uint32]string{150: "1.5", 1: "0.01", 10_000: "100", 300: "3", 0: "0", 1234: "12.34", 1230: "12.3"} {
		if got := FormatPercentBps(bps); got != want {
			t.Errorf("FormatPercentBps(%d) = %q, want %q", bps, got, want)
		}
	}
	for _, in := range []string{"", "100.01", "101", "1.234", "-1", "abc", "."} {
		if got, err := ParsePercentBps(in); err == nil {
			t.Errorf("ParsePercentBps(%q) = %d, want error", in, got)
		}
	}
}
