package authority

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/solgate/solgate/executor/plainjson"
	"github.com/solgate/solgate/mcpbridge"
)

// marshalCallResult is json.Marshal(r), byte for byte, without its
// reflection: an answer's structured content is a map of maps, which
// encoding/json walks by reflection and sorts key by key on every answer
// (about 4 % of the console's CPU a proposal in the profile).
//
// Only what is plain is written here: strings (plainjson.AppendString),
// keys of printable ASCII with nothing to escape, integers, booleans, and
// the maps and slices of them the answers are built from. Any other value
// is handed to json.Marshal on its own, which encodes a value the same
// standing alone as inside a map, so the bytes cannot differ (TestMarshalCallResultIsJSONMarshal holds it to that).
func marshalCallResult(r mcpbridge.CallResult) ([]byte, error) {
	b := make([]byte, 0, 2048+len(r.Text)+len(r.Text)/8)
	b = append(b, `{"isError":`...)
	b = strconv.AppendBool(b, r.IsError)
	b = append(b, `,"text":`...)
	b = plainjson.AppendString(b, r.Text)
	var err error
	if len(r.Structured) > 0 {
		b = append(b, `,"structured":`...)
		if b, err = appendAnswerMap(b, r.Structured); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// plainJSON: s is its own JSON string body. encoding/json escapes quotes,
// backslashes, control characters, <, > and &, and rewrites everything
// beyond ASCII that needs it; none of these is plain.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func appendMarshalled(b []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

// plainKeys are m's keys sorted, as encoding/json writes them, or false
// when one is not plain (the map then goes to json.Marshal whole).
func plainKeys[V any](m map[string]V) ([]string, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !plainJSON(k) {
			return nil, false
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, true
}

func appendAnswerMap(b []byte, m map[string]any) ([]byte, error) {
	keys, ok := plainKeys(m)
	if !ok {
		return appendMarshalled(b, m)
	}
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		var err error
		if b, err = appendAnswerValue(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendAnswerStrings(b []byte, m map[string]string) ([]byte, error) {
	keys, ok := plainKeys(m)
	if !ok {
		return appendMarshalled(b, m)
	}
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		b = plainjson.AppendString(b, m[k])
	}
	return append(b, '}'), nil
}

func appendAnswerValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return plainjson.AppendString(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case uint64:
		return strconv.AppendUint(b, v, 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		return appendAnswerMap(b, v)
	case map[string]string:
		if v == nil {
			return append(b, "null"...), nil
		}
		return appendAnswerStrings(b, v)
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = plainjson.AppendString(b, s)
		}
		return append(b, ']'), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendAnswerValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return appendMarshalled(b, v)
}
