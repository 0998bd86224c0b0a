package wire

import (
	"regexp"
	"slices"
	"testing"
)

// The output contract changes with any tool's outputSchema, and only with
// the output side: a bridge and a console agree on it exactly when every
// answer the console writes is judged by the same schemas.
func TestOutputContractFollowsEveryOutputSchema(t *testing.T) {
	got := OutputContract()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(got) {
		t.Fatalf("OutputContract() = %q, want a hex SHA-256", got)
	}
	if again := outputContract(Inventory()); again != got {
		t.Fatalf("not stable: %s, then %s", got, again)
	}
	changed := func(what string, change func(tools []Tool)) {
		t.Helper()
		tools := Inventory()
		for i := range tools {
			tools[i].Output = slices.Clone(tools[i].Output)
			tools[i].Outcomes = slices.Clone(tools[i].Outcomes)
		}
		change(tools)
		if outputContract(tools) == got {
			t.Errorf("%s: the contract stayed %s", what, got)
		}
	}
	changed("a field's kind", func(tools []Tool) { tools[0].Output[0].Kind = OutBool })
	changed("a new outcome", func(tools []Tool) {
		tools[len(tools)-1].Outcomes = append(tools[len(tools)-1].Outcomes, Outcome{Status: "approved_by_model"})
	})
	changed("a tool renamed", func(tools []Tool) { tools[1].Name += "_v2" })
	changed("two tools swapped", func(tools []Tool) { tools[0], tools[1] = tools[1], tools[0] })

	tools := Inventory()
	tools[0].Description += " (reworded)"
	if outputContract(tools) != got {
		t.Error("a description is no part of the output contract, but changed it")
	}
	// The inventory itself is untouched by the changes above.
	if OutputContract() != outputContract(Inventory()) {
		t.Error("the inventory changed under the test")
	}
}
