package mcpbridge

import (
	"bytes"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/solgate/solgate/mcpbridge/wire"
)

// outputSchemas are every tool's outputSchema compiled by the JSON Schema
// library mcp-go validates with, each on its first use: a bridge's start-up
// compiles none.
var outputSchemas = func() map[string]func() (*jsonschema.Schema, error) {
	m := make(map[string]func() (*jsonschema.Schema, error), len(wire.Inventory()))
	for _, t := range wire.Inventory() {
		m[t.Name] = sync.OnceValues(func() (*jsonschema.Schema, error) {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(wire.OutputSchema(t)))
			if err != nil {
				return nil, err
			}
			c := jsonschema.NewCompiler()
			url := "mem://solgate/" + t.Name + "/output"
			if err := c.AddResource(url, doc); err != nil {
				return nil, err
			}
			return c.Compile(url)
		})
	}
	return m
}()

// CheckOutput checks a tool's structured result (one JSON value) against
// its declared outputSchema, as the bridge does before the model sees it
// when the console's output contract is not its own, and as the console's
// tests do for every answer they reach.
// A member named twice in one object is refused: a decoder keeps one of
// the two, and which one depends on the client.
func CheckOutput(tool string, raw []byte) error {
	compiled, ok := outputSchemas[tool]
	if !ok {
		return &errOutput{want: "belongs to no declared tool"}
	}
	schema, err := compiled()
	if err != nil {
		return fmt.Errorf("%s's outputSchema does not compile: %w", tool, err)
	}
	if !jsontext.Value(raw).IsValid() {
		return &errOutput{want: "is not one JSON value of valid UTF-8 whose objects name each member once"}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("the result is not JSON: %w", err)
	}
	var ve *jsonschema.ValidationError
	if err := schema.Validate(v); errors.As(err, &ve) {
		return outputError(ve)
	} else if err != nil {
		return err
	}
	return nil
}

// errOutput is a result that breaks its tool's outputSchema. Its message
// names the field and what the schema wants, never the value: a result may
// carry a confirmation token.
type errOutput struct{ field, want string }

func (e *errOutput) Error() string {
	if e.field == "" {
		return "the result " + e.want
	}
	return e.field + ": " + e.want
}

// outputError says where the result breaks the schema and which rule, from
// the validator's first failing leaf, without the validator's own message,
// which quotes the value. Among the tool's outcomes (anyOf) it follows the
// one whose status the result carries: a denial without retryable lacks
// retryable, not the fields of a proposal, the first outcome.
func outputError(ve *jsonschema.ValidationError) error {
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = causeToFollow(leaf)
	}
	field := strings.Join(leaf.InstanceLocation, ".")
	if k, ok := leaf.ErrorKind.(*kind.Required); ok {
		return &errOutput{field: field, want: "lacks " + strings.Join(k.Missing, ", ")}
	}
	return &errOutput{field: field, want: "breaks the schema's " + strings.Join(leaf.ErrorKind.KeywordPath(), "/")}
}

// causeToFollow is the first cause of e, or under anyOf the first outcome
// that failed on something other than its status.
func causeToFollow(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	if _, ok := e.ErrorKind.(*kind.AnyOf); ok {
		for _, c := range e.Causes {
			if !failsOnStatus(c) {
				return c
			}
		}
	}
	return e.Causes[0]
}

// failsOnStatus reports whether the status field is among e's failures.
func failsOnStatus(e *jsonschema.ValidationError) bool {
	if slices.Equal(e.InstanceLocation, []string{"status"}) {
		return true
	}
	return slices.ContainsFunc(e.Causes, failsOnStatus)
}
