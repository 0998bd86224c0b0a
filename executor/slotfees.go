package executor

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// slotFeeList is getRecentPrioritizationFees' answer: about 150 slots,
// asked twice a proposal. Decoded by encoding/json it was most of a
// preview's JSON work, so the compact form every node writes is read
// directly (parseSlotFees), and anything else (whitespace, another key, a
// number that is not a plain unsigned integer) by encoding/json, with its
// errors.
type slotFeeList []slotFee

// slotFees reads the answer as a fee list.
func (a marketAnswer) slotFees() (slotFeeList, error) {
	if a.err != nil {
		return nil, a.err
	}
	if out, ok := parseSlotFees(a.result); ok {
		return out, nil
	}
	var out slotFeeList
	err := a.decode(&out)
	return out, err
}

func (l *slotFeeList) UnmarshalJSON(b []byte) error {
	if out, ok := parseSlotFees(b); ok {
		*l = out
		return nil
	}
	var plain []slotFee
	if err := json.Unmarshal(b, &plain); err != nil {
		return err
	}
	*l = plain
	return nil
}

// parseSlotFees reads exactly `[{"prioritizationFee":N,"slot":N},…]` (keys
// in either order, each once), and reports false for anything else.
func parseSlotFees(b []byte) (slotFeeList, bool) {
	if string(b) == "null" {
		return nil, true
	}
	if len(b) < 2 || b[0] != '[' {
		return nil, false
	}
	b = b[1:]
	out := make(slotFeeList, 0, bytes.Count(b, []byte{'{'}))
	if b[0] == ']' {
		return out, len(b) == 1
	}
	for {
		if len(b) == 0 || b[0] != '{' {
			return nil, false
		}
		b = b[1:]
		var f slotFee
		var seenFee, seenSlot bool
		for {
			var key string
			switch {
			case bytes.HasPrefix(b, []byte(`"prioritizationFee":`)):
				key, b = "fee", b[len(`"prioritizationFee":`):]
			case bytes.HasPrefix(b, []byte(`"slot":`)):
				key, b = "slot", b[len(`"slot":`):]
			default:
				return nil, false
			}
			n := 0
			for n < len(b) && b[n] >= '0' && b[n] <= '9' {
				n++
			}
			if n == 0 || (n > 1 && b[0] == '0') {
				return nil, false
			}
			v, err := strconv.ParseUint(string(b[:n]), 10, 64)
			if err != nil {
				return nil, false
			}
			b = b[n:]
			switch {
			case key == "fee" && !seenFee:
				f.PrioritizationFee, seenFee = v, true
			case key == "slot" && !seenSlot:
				f.Slot, seenSlot = v, true
			default:
				return nil, false // a key twice
			}
			if len(b) == 0 {
				return nil, false
			}
			if b[0] == '}' {
				b = b[1:]
				break
			}
			if b[0] != ',' {
				return nil, false
			}
			b = b[1:]
		}
		out = append(out, f)
		if len(b) == 0 {
			return nil, false
		}
		switch b[0] {
		case ',':
			b = b[1:]
		case ']':
			return out, len(b) == 1
		default:
			return nil, false
		}
	}
}
