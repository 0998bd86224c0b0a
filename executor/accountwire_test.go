package executor

import (
	"encoding/json"
	"strings"
	"testing"
)

// The lean decoding reads what solana-go's rpc.Account would, and refuses
// what the engine cannot measure rather than reading it as empty.
func TestAccountListDecoding(t *testing.T) {
	const answer = `{"context":{"slot":7},"value":[
		{"data":["AQID","base64"],"executable":false,"lamports":42,"owner":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA","rentEpoch":18446744073709551615,"space":3},
		null,
		{"data":["","base64"],"executable":false,"lamports":5000,"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":0}]}`
	var got accountsAnswer
	if err := json.Unmarshal([]byte(answer), &got); err != nil {
		t.Fatal(err)
	}
	accts, err := got.Value.accounts()
	if err != nil {
		t.Fatal(err)
	}
	if got.Context.Slot != 7 || len(accts) != 3 || accts[1] != nil {
		t.Fatalf("decoded %+v", got)
	}
	a, c := accts[0], accts[2]
	if a.Lamports != 42 || a.Owner.String() != "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" || string(a.Data.GetBinary()) != "\x01\x02\x03" {
		t.Errorf("first account: lamports %d owner %s data %x", a.Lamports, a.Owner, a.Data.GetBinary())
	}
	if c.Lamports != 5000 || !c.Owner.IsZero() || len(c.Data.GetBinary()) != 0 {
		t.Errorf("third account: lamports %d owner %s data %x", c.Lamports, c.Owner, c.Data.GetBinary())
	}
	for _, bad := range []struct{ account, want string }{
		{`{"data":{"parsed":{}},"lamports":1,"owner":"11111111111111111111111111111111"}`, "cannot unmarshal"},
		{`{"data":["AQID","base58"],"lamports":1,"owner":"11111111111111111111111111111111"}`, `not [base64, "base64"]`},
		{`{"data":["AQID"],"lamports":1,"owner":"11111111111111111111111111111111"}`, `not [base64, "base64"]`},
		{`{"data":["%%%","base64"],"lamports":1,"owner":"11111111111111111111111111111111"}`, "data:"},
		{`{"data":["AQID","base64"],"lamports":1,"owner":"0OIl"}`, "owner"},
		{`{"data":["AQID","base64"],"lamports":-1,"owner":"11111111111111111111111111111111"}`, "cannot unmarshal"},
	} {
		var v wireAccounts
		err := json.Unmarshal([]byte("["+bad.account+"]"), &v)
		if err == nil {
			_, err = v.accounts()
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want one saying %q", bad.account, err, bad.want)
		}
	}
}
