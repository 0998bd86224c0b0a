package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
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

// A node that answers the batch's account reads in an encoding the engine
// did not ask for (base64+zstd, which the SDK's own account type would
// inflate however large, or jsonParsed, which it would read as no bytes)
// gets the round refused, naming the call and the account. Served by a
// fake node: no real node answers so.
func TestBatchRefusesAccountsInAnotherEncoding(t *testing.T) {
	const sim = `{"context":{"slot":9},"value":{"err":null,"logs":[],"accounts":[{"data":["","base64"],"lamports":1,"owner":"11111111111111111111111111111111"}],"unitsConsumed":150}}`
	for _, data := range []string{`["KLUv/QBYAQAA","base64+zstd"]`, `{"parsed":{"type":"account"},"program":"spl-token"}`, `null`} {
		accounts := `{"context":{"slot":9},"value":[{"data":` + data + `,"executable":false,"lamports":5,"owner":"11111111111111111111111111111111","rentEpoch":0,"space":0}]}`
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var reqs []struct {
				ID     int    `json:"id"`
				Method string `json:"method"`
			}
			if err := json.NewDecoder(r.Body).Decode(&reqs); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var answers []string
			for _, q := range reqs {
				result := accounts
				if q.Method == "simulateTransaction" {
					result = sim
				}
				answers = append(answers, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, q.ID, result))
			}
			_, _ = w.Write([]byte("[" + strings.Join(answers, ",") + "]"))
		}))
		c := NewClient(srv.URL, ClientOptions{Retries: -1})
		key := solana.MustPublicKeyFromBase58("9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin")
		_, _, _, _, err := c.aroundSimulation(context.Background(), []solana.PublicKey{key}, simulationParams([]byte{1}, []string{key.String()}), nil)
		srv.Close()
		want := "effects: read accounts before: getMultipleAccounts: account 0: data is not [base64, \"base64\"]"
		if data[0] == '{' {
			want = "effects: read accounts before: getMultipleAccounts: could not decode the answer"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("data %s: err %v, want one saying %q", data, err, want)
		}
	}
}
