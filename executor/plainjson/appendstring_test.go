package plainjson

import (
	"encoding/json"
	"testing"
)

// FuzzAppendString holds AppendString to json.Marshal on any string.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "<a href='x'>&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f",
		"\u2028\u2029\u00e9\U0001F600", "bad \xff\xfe\xc3 end", "\xed\xa0\x80 surrogate", `{"status":"pending_approval","id":"p_1"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("prefix"), s); string(got) != "prefix"+string(want) {
			t.Errorf("%q: ours %s, json.Marshal %s", s, got[len("prefix"):], want)
		}
	})
}
