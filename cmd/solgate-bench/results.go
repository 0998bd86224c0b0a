package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Verdicts. A goal that was missed is MISS, never hidden; a figure without a
// goal is info; a measurement that could not be made is error.
const (
	verdictPass    = "pass"
	verdictMiss    = "MISS"
	verdictInfo    = "info"
	verdictError   = "error"
	verdictPending = "pending" // a hook whose measurement is not written yet
)

// goal is a bound on one statistic of a row.
type goal struct {
	Stat  string  `json:"stat"`  // "p50", "p99" or "value"
	Op    string  `json:"op"`    // "<", "<=" or ">="
	Limit float64 `json:"limit"` // in the row's unit
	Text  string  `json:"text"`  // as printed, e.g. "p99 < 5 ms"
}

func (g *goal) met(r *row) bool {
	var v float64
	switch g.Stat {
	case "p50":
		v = r.P50
	case "p99":
		v = r.P99
	default:
		v = r.Value
	}
	switch g.Op {
	case ">=":
		return v >= g.Limit
	case "<=":
		return v <= g.Limit
	}
	return v < g.Limit
}

// row is one line of the table. Latency rows fill P50 and P99 (in Unit);
// single figures (a ratio, a rate) fill Value.
type row struct {
	Name    string  `json:"name"`
	N       int     `json:"n"`
	Unit    string  `json:"unit"`
	P50     float64 `json:"p50,omitempty"`
	P99     float64 `json:"p99,omitempty"`
	Value   float64 `json:"value,omitempty"`
	Single  bool    `json:"single,omitempty"` // Value is the figure; P50/P99 unused
	Goal    *goal   `json:"goal,omitempty"`
	Verdict string  `json:"verdict"`
	Note    string  `json:"note,omitempty"`
}

// latencyRow summarises samples in milliseconds.
func latencyRow(name string, samples []time.Duration, g *goal, note string) row {
	r := row{Name: name, N: len(samples), Unit: "ms", Goal: g, Note: note}
	if len(samples) == 0 {
		r.Verdict = verdictError
		if r.Note == "" {
			r.Note = "no samples"
		}
		return r
	}
	r.P50 = ms(percentile(samples, 50))
	r.P99 = ms(percentile(samples, 99))
	r.judge()
	return r
}

// singleRow is a figure that is not a distribution.
func singleRow(name string, n int, unit string, v float64, g *goal, note string) row {
	r := row{Name: name, N: n, Unit: unit, Value: v, Single: true, Goal: g, Note: note}
	r.judge()
	return r
}

func errorRow(name string, err error) row {
	return row{Name: name, Verdict: verdictError, Note: err.Error()}
}

func (r *row) judge() {
	switch {
	case r.Goal == nil:
		r.Verdict = verdictInfo
	case r.Goal.met(r):
		r.Verdict = verdictPass
	default:
		r.Verdict = verdictMiss
	}
}

// percentile is the nearest-rank percentile: the smallest sample with at
// least p% of the samples at or below it. p99 of 100 samples is the 99th.
func percentile(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// report is what bench.json holds.
type report struct {
	Started   time.Time      `json:"started"`
	Took      string         `json:"took"`
	Mode      string         `json:"mode"` // "full" or "quick"
	Command   string         `json:"command"`
	Machine   machine        `json:"machine"`
	Settings  map[string]any `json:"settings"`
	Rows      []row          `json:"rows"`
	Integrity []string       `json:"integrity_failures,omitempty"`
	// Profile summarises the CPU profile of the throughput run.
	Profile *profileSummary `json:"throughput_profile,omitempty"`
}

type machine struct {
	GoVersion   string `json:"go_version"`
	NodeVersion string `json:"node_version,omitempty"`
	CPUs        int    `json:"cpus"`
	CPUModel    string `json:"cpu_model,omitempty"`
	LoadBefore  string `json:"loadavg_before,omitempty"`
	LoadAfter   string `json:"loadavg_after,omitempty"`
	Commit      string `json:"commit,omitempty"`
	// Runtime names the collector settings the in-process hub ran with.
	Runtime string `json:"runtime,omitempty"`
}

func formatFigure(v float64, unit string) string {
	switch unit {
	case "ms":
		if v < 10 {
			return fmt.Sprintf("%.2f ms", v)
		}
		return fmt.Sprintf("%.1f ms", v)
	case "x":
		return fmt.Sprintf("%.1f×", v)
	case "proposals/s":
		return fmt.Sprintf("%.0f /s", v)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

// printTable writes the one table: name, n, p50, p99, goal, result. Notes
// follow below it, numbered, so the table stays narrow.
func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tn\tp50\tp99\tgoal\tresult\t")
	fmt.Fprintln(tw, "---------\t-\t---\t---\t----\t------\t")
	var notes []string
	for _, r := range rows {
		p50, p99 := "—", "—"
		switch {
		case r.Verdict == verdictError || r.Verdict == verdictPending:
		case r.Single:
			p50 = formatFigure(r.Value, r.Unit)
		default:
			p50, p99 = formatFigure(r.P50, r.Unit), formatFigure(r.P99, r.Unit)
		}
		g := "—"
		if r.Goal != nil {
			g = r.Goal.Text
		}
		result := r.Verdict
		if r.Note != "" {
			notes = append(notes, r.Note)
			result += fmt.Sprintf(" [%d]", len(notes))
		}
		n := "—"
		if r.N > 0 {
			n = fmt.Sprint(r.N)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Name, n, p50, p99, g, result)
	}
	tw.Flush()
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for i, n := range notes {
			fmt.Fprintf(w, "[%d] %s\n", i+1, n)
		}
	}
}

func writeJSON(path string, rep report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

// loadavg is /proc/loadavg's first three fields: the table is only as good as
// the machine was quiet, and this says how quiet it was.
func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
