package args

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeArgs(t *testing.T) {
	m, err := DecodeArgs([]byte(`{"to":"x","lamports":12345678901234567}`))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := m["lamports"].(json.Number); !ok || n != "12345678901234567" {
		t.Fatalf("lamports decoded as %#v, want the exact json.Number", m["lamports"])
	}
	for _, empty := range []string{"", "null", " "} {
		if m, err := DecodeArgs([]byte(empty)); err != nil || len(m) != 0 {
			t.Errorf("%q: %v %v", empty, m, err)
		}
	}
	for _, bad := range []string{
		`{"lamports":1,"lamports":1000}`,
		`[1]`, `"x"`, `{"a":1} {"b":2}`, `{"a":1}x`, `{"a":`, `{"a":1,}`,
	} {
		if _, err := DecodeArgs([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if _, err := DecodeArgs([]byte(`{"lamports":1,"lamports":1000}`)); !strings.Contains(err.Error(), `"lamports" is given twice`) {
		t.Errorf("duplicate key error does not name it: %v", err)
	}
}
