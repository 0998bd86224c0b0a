package writekind

import (
	"fmt"
	"strings"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// The console draws every kind through the kind's own lines (Kind.Detail):
// the kind says what each line is, the console how it looks. Amounts are
// rendered here, exactly (integers, string arithmetic), for every kind.

// InstructionLines lists decoded instructions as detail lines.
func InstructionLines(list []executor.InstructionSummary) []approval.DetailLine {
	out := make([]approval.DetailLine, 0, len(list))
	for _, ins := range list {
		out = append(out, approval.DetailLine{Label: ins.Name, Value: ins.Summary, Role: approval.LineInstruction})
	}
	return out
}

// padRight pads s with spaces to width runes, never cutting it: the
// console's columns of simulated changes.
func padRight(s string, width int) string {
	if n := len([]rune(s)); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// padLeftTo right-aligns s in width runes, never cutting it.
func padLeftTo(s string, width int) string {
	if n := len([]rune(s)); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}

// ChangeRow is one row of simulated changes: who, the signed change, and
// before → after, in aligned columns.
func ChangeRow(who string, deltaWidth int, delta, pre, post string) string {
	return fmt.Sprintf("%s %s  %s → %s", padRight(who, 21), padLeftTo(delta, deltaWidth), pre, post)
}
