package authority

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/solgate/solgate/executor/plainjson"
	"github.com/solgate/solgate/mcpbridge/wire"
)

// marshalCallResult is json.Marshal(r), byte for byte, without its
// reflection: an answer's structured content is a map of maps, which
// encoding/json walks by reflection and sorts key by key on every answer
// (about 4 % of the console's CPU a proposal in the profile).
//
// Only what is plain is written here: strings (plainjson.AppendString),
// integers, booleans, and the maps and slices of them the answers are
// built from. Any other value is handed to json.Marshal on its own, which
// encodes a value the same standing alone as inside a map, so the bytes
// cannot differ (TestMarshalCallResultIsJSONMarshal holds it to that).
func marshalCallResult(r wire.CallResult) ([]byte, error) {
	b := make([]byte, 0, 2048+len(r.Text)+len(r.Text)/8)
	b = append(b, `{"isError":`...)
	b = strconv.AppendBool(b, r.IsError)
	b = append(b, `,"text":`...)
	b = plainjson.AppendString(b, r.Text)
	if len(r.Structured) > 0 {
		b = append(b, `,"structured":`...)
		var err error
		if b, err = appendAnswerMap(b, r.Structured); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendMarshalled(b []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

// appendAnswerObject writes m as json.Marshal writes a map with string
// keys: its keys sorted, each written as a string, then value's bytes.
func appendAnswerObject[V any](b []byte, m map[string]V, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = plainjson.AppendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = value(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendAnswerMap(b []byte, m map[string]any) ([]byte, error) {
	return appendAnswerObject(b, m, appendAnswerValue)
}

func appendAnswerStrings(b []byte, m map[string]string) ([]byte, error) {
	return appendAnswerObject(b, m, func(b []byte, s string) ([]byte, error) { return plainjson.AppendString(b, s), nil })
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
		return plainjson.AppendStrings(b, v), nil
	case []any:
		return plainjson.AppendArray(b, v, appendAnswerValue)
	}
	return appendMarshalled(b, v)
}
