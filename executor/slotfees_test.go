package executor

import (
	"encoding/json"
	"testing"
)

// The direct reading of the fee list agrees with encoding/json on every
// input, and takes the compact form nodes write.
func FuzzSlotFeeList(f *testing.F) {
	for _, seed := range []string{
		`[{"prioritizationFee":0,"slot":348125}]`,
		`[{"slot":1,"prioritizationFee":5000},{"prioritizationFee":18446744073709551615,"slot":2}]`,
		`[]`, `null`, `[{"prioritizationFee":1}]`, `[{"prioritizationFee":1,"prioritizationFee":2}]`,
		`[ {"prioritizationFee": 1, "slot": 2} ]`, `[{"prioritizationFee":01,"slot":2}]`,
		`[{"prioritizationFee":18446744073709551616,"slot":2}]`, `[{"prioritizationFee":-1,"slot":2}]`,
		`[{"prioritizationFee":1.5,"slot":2}]`, `[{"prioritizationFee":1,"slot":2,"x":3}]`, `[{}]`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want []slotFee
		wantErr := json.Unmarshal(in, &want)
		// What the direct reading takes, encoding/json takes alike.
		if direct, ok := parseSlotFees(in); ok {
			if wantErr != nil || len(direct) != len(want) {
				t.Fatalf("%s: read directly as %d fees; encoding/json: %d, err %v", in, len(direct), len(want), wantErr)
			}
			for i := range want {
				if direct[i] != want[i] {
					t.Fatalf("%s: fee %d read directly as %+v, want %+v", in, i, direct[i], want[i])
				}
			}
		}
		var got slotFeeList
		gotErr := json.Unmarshal(in, &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%s: encoding/json err %v, slotFeeList err %v", in, wantErr, gotErr)
		}
		if wantErr != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d fees, want %d", in, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: fee %d is %+v, want %+v", in, i, got[i], want[i])
			}
		}
	})
}

func TestSlotFeeListReadsTheCompactFormDirectly(t *testing.T) {
	if _, ok := parseSlotFees([]byte(`[{"prioritizationFee":7,"slot":1},{"slot":2,"prioritizationFee":0}]`)); !ok {
		t.Fatal("the compact form nodes write went to encoding/json")
	}
}
