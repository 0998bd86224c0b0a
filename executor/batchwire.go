package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/solgate/solgate/executor/plainjson"
)

// A proposal's batch (batch.go) went through solana-go's JSON-RPC client,
// which encodes the requests and decodes the answers with a reflective
// JSON library, and scanned every answer twice to keep it raw: a tenth of
// the effects engine's CPU a proposal. postBatch sends the same batch over
// the same HTTP client and reads the answers in one pass; what it returns,
// and its errors (an HTTP error, an undecodable answer), are what solana-go's
// CallBatch gives, so the batch's callers and its retries are unchanged.

// postBatch sends reqs as one JSON-RPC batch, with ids 0, 1, … in order.
func postBatch(ctx context.Context, hc jsonrpc.HTTPClient, endpoint string, reqs jsonrpc.RPCRequests) (jsonrpc.RPCResponses, error) {
	if len(reqs) == 0 {
		return nil, errors.New("empty request list")
	}
	body, err := appendBatch(make([]byte, 0, 1024), reqs)
	if err != nil {
		return nil, fmt.Errorf("rpc batch call: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rpc batch call: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rpc batch call on %v: %w", req.URL.String(), err)
	}
	defer res.Body.Close()
	answer, err := readAnswer(res)
	var out jsonrpc.RPCResponses
	if err == nil {
		out, err = decodeBatchAnswer(answer)
	}
	if err == nil && len(out) == 0 {
		err = errors.New("rpc response missing")
	}
	if err != nil {
		err = fmt.Errorf("rpc batch call on %v status code: %v. could not decode body to rpc response: %w", req.URL.String(), res.StatusCode, err)
		if res.StatusCode >= 400 {
			return nil, jsonrpc.NewHTTPError(res.StatusCode, err)
		}
		return nil, err
	}
	return out, nil
}

// readAnswer reads a response's body whole, in one allocation when its
// length is given.
func readAnswer(res *http.Response) ([]byte, error) {
	if n := res.ContentLength; n >= 0 && n < 64<<20 {
		b := make([]byte, n)
		if _, err := io.ReadFull(res.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return io.ReadAll(res.Body)
}

// appendBatch writes the batch's JSON: strings and the effects engine's
// own option structs directly, anything else through encoding/json.
func appendBatch(b []byte, reqs jsonrpc.RPCRequests) ([]byte, error) {
	b = append(b, '[')
	for i, r := range reqs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"method":`...)
		b = plainjson.AppendString(b, r.Method)
		if r.Params != nil {
			b = append(b, `,"params":`...)
			var err error
			if b, err = appendRPCValue(b, r.Params); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

func appendRPCValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return plainjson.AppendString(b, v), nil
	case []string:
		return plainjson.AppendStrings(b, v), nil
	case []any:
		return plainjson.AppendArray(b, v, appendRPCValue)
	case accountsOptions:
		b = append(b, `{"encoding":`...)
		b = plainjson.AppendString(b, v.Encoding)
		b = append(b, `,"commitment":`...)
		b = plainjson.AppendString(b, v.Commitment)
		return append(b, '}'), nil
	case simulationOpts:
		b = append(b, `{"encoding":`...)
		b = plainjson.AppendString(b, v.Encoding)
		b = append(b, `,"sigVerify":`...)
		b = strconv.AppendBool(b, v.SigVerify)
		b = append(b, `,"commitment":`...)
		b = plainjson.AppendString(b, v.Commitment)
		b = append(b, `,"innerInstructions":`...)
		b = strconv.AppendBool(b, v.InnerInstructions)
		b = append(b, `,"accounts":{"encoding":`...)
		b = plainjson.AppendString(b, v.Accounts.Encoding)
		b = append(b, `,"addresses":`...)
		b, _ = appendRPCValue(b, v.Accounts.Addresses)
		return append(b, `}}`...), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

// decodeBatchAnswer reads a batch's answer: an array of JSON-RPC
// responses, each with only the members a response has (as solana-go
// reads them: anything else is an error). Numbers in an id or an error
// are json.Numbers; a result stays raw (copied out of the body), and a
// null result is none.
func decodeBatchAnswer(body []byte) (jsonrpc.RPCResponses, error) {
	// As lenient as solana-go's reader on what it does not judge:
	// invalid UTF-8 and repeated names are the reader's of the result.
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil {
		return nil, err
	} else if tok.Kind() == 'n' {
		return nil, nil
	} else if tok.Kind() != '[' {
		return nil, fmt.Errorf("want an array of responses, got %v", tok.Kind())
	}
	var out jsonrpc.RPCResponses
	for dec.PeekKind() != ']' {
		if dec.PeekKind() == 'n' {
			if _, err := dec.ReadToken(); err != nil {
				return nil, err
			}
			out = append(out, nil)
			continue
		}
		if tok, err := dec.ReadToken(); err != nil {
			return nil, err
		} else if tok.Kind() != '{' {
			return nil, fmt.Errorf("want a response object, got %v", tok.Kind())
		}
		r := &jsonrpc.RPCResponse{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the next read voids tok
			val, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			switch name {
			case "jsonrpc":
				if string(val) == `"2.0"` {
					r.JSONRPC = "2.0"
				} else if err := json.Unmarshal(val, &r.JSONRPC); err != nil {
					return nil, fmt.Errorf("jsonrpc: %w", err)
				}
			case "id":
				switch val.Kind() {
				case '0':
					r.ID = json.Number(val)
				case '"':
					var s string
					if err := json.Unmarshal(val, &s); err != nil {
						return nil, fmt.Errorf("id: %w", err)
					}
					r.ID = s
				case 'n':
					r.ID = nil
				default:
					if err := decodeNumbers(val, &r.ID); err != nil {
						return nil, fmt.Errorf("id: %w", err)
					}
				}
			case "result":
				if val.Kind() != 'n' {
					r.Result = bytes.Clone(val)
				}
			case "error":
				if val.Kind() != 'n' {
					r.Error = &jsonrpc.RPCError{}
					if err := decodeNumbers(val, r.Error); err != nil {
						return nil, fmt.Errorf("error: %w", err)
					}
				}
			default:
				return nil, fmt.Errorf("unknown field %q in a response", name)
			}
		}
		if _, err := dec.ReadToken(); err != nil { // '}'
			return nil, err
		}
		out = append(out, r)
	}
	if _, err := dec.ReadToken(); err != nil { // ']'
		return nil, err
	}
	return out, nil // what follows is not read, as solana-go does not
}

// decodeNumbers decodes as solana-go does the parts it keeps as values:
// numbers as json.Number, unknown fields an error.
func decodeNumbers(val []byte, out any) error {
	d := json.NewDecoder(bytes.NewReader(val))
	d.UseNumber()
	d.DisallowUnknownFields()
	return d.Decode(out)
}
