// Command gate runs govulncheck over solgate against a local vulnerability
// database and fails on any vulnerability that solgate's code reaches unless
// a committed baseline accepts it until a review date. `make vuln` runs it
// through .ci/vuln/run, which builds the database and the tools first.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Accepted is one baseline entry: a vulnerability the project knowingly ships
// with, why, and the date after which the gate fails on it again.
type Accepted struct {
	ID       string `json:"id"`
	Why      string `json:"why"`
	ReviewBy string `json:"review_by"` // YYYY-MM-DD, inclusive
}

// The subset of govulncheck's -format json stream the gate reads
// (golang.org/x/vuln/internal/govulncheck: Message, Finding, Frame).
type message struct {
	OSV     *osvEntry `json:"osv"`
	Finding *finding  `json:"finding"`
}

type osvEntry struct {
	ID      string   `json:"id"`
	Summary string   `json:"summary"`
	Aliases []string `json:"aliases"`
}

type finding struct {
	OSV          string  `json:"osv"`
	FixedVersion string  `json:"fixed_version"`
	Trace        []frame `json:"trace"`
}

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
}

// reached is what the gate knows about one vulnerability in the scan.
type reached struct {
	id, module, version, fixed, summary string
	called                              bool
	trace                               []frame // the first call trace seen
}

func main() {
	govulncheck := flag.String("govulncheck", "govulncheck", "the govulncheck binary")
	db := flag.String("db", "", "directory of the vulnerability database (v1 layout, as cmd/indexdb writes it)")
	dbDate := flag.String("db-date", "unknown", "the date of the vulndb commit the database was built from")
	baseline := flag.String("baseline", "", "JSON file of accepted vulnerabilities")
	dir := flag.String("C", ".", "module to scan")
	today := flag.String("today", time.Now().UTC().Format(time.DateOnly), "date against which review dates are checked (YYYY-MM-DD)")
	flag.Parse()
	if err := run(*govulncheck, *db, *dbDate, *baseline, *dir, *today, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "vuln gate:", err)
		os.Exit(1)
	}
}

func run(govulncheck, db, dbDate, baselinePath, dir, today string, out io.Writer) error {
	if db == "" || baselinePath == "" {
		return errors.New("-db and -baseline are required")
	}
	now, err := time.Parse(time.DateOnly, today)
	if err != nil {
		return fmt.Errorf("-today %q: want YYYY-MM-DD", today)
	}
	entries, err := dbEntries(db)
	if err != nil {
		return err
	}
	// vulndb's data/osv carries no modification dates (they are set when
	// the public database is deployed), so the database's date is the date
	// of the vulndb commit it was built from.
	fmt.Fprintf(out, "vulnerability database: %d entries, as of %s (golang.org/x/vulndb commit date), in %s\n", entries, dbDate, db)
	accepted, err := loadBaseline(baselinePath)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(db)
	if err != nil {
		return err
	}
	cmd := exec.Command(govulncheck, "-db", "file://"+abs, "-format", "json", "./...")
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("govulncheck: %w", err)
	}
	found, err := parse(&stdout)
	if err != nil {
		return err
	}
	return judge(found, accepted, now, out)
}

// dbEntries counts the database's entries, which also checks that it is one.
func dbEntries(db string) (int, error) {
	raw, err := os.ReadFile(filepath.Join(db, "index", "vulns.json"))
	if err != nil {
		return 0, fmt.Errorf("vulnerability database %s: %w", db, err)
	}
	var entries []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil || len(entries) == 0 {
		return 0, fmt.Errorf("vulnerability database %s: index/vulns.json lists no entries (%v): delete the directory to rebuild it", db, err)
	}
	return len(entries), nil
}

func loadBaseline(path string) (map[string]Accepted, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var list []Accepted
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("baseline %s: %w (want a JSON list of {\"id\", \"why\", \"review_by\": \"YYYY-MM-DD\"})", path, err)
	}
	m := make(map[string]Accepted, len(list))
	for i, a := range list {
		switch {
		case !strings.HasPrefix(a.ID, "GO-"):
			return nil, fmt.Errorf("baseline %s entry %d: id %q: want a Go vulnerability id such as GO-2026-5970", path, i, a.ID)
		case strings.TrimSpace(a.Why) == "":
			return nil, fmt.Errorf("baseline %s entry %s: why is empty: say why the project accepts it", path, a.ID)
		}
		if _, err := time.Parse(time.DateOnly, a.ReviewBy); err != nil {
			return nil, fmt.Errorf("baseline %s entry %s: review_by %q: want YYYY-MM-DD", path, a.ID, a.ReviewBy)
		}
		if _, dup := m[a.ID]; dup {
			return nil, fmt.Errorf("baseline %s: %s is listed twice", path, a.ID)
		}
		m[a.ID] = a
	}
	return m, nil
}

// parse reads govulncheck's JSON stream into one record per vulnerability.
func parse(r io.Reader) (map[string]*reached, error) {
	found := map[string]*reached{}
	summaries := map[string]string{}
	dec := json.NewDecoder(r)
	for {
		var m message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("govulncheck output: %w", err)
		}
		if m.OSV != nil {
			summaries[m.OSV.ID] = m.OSV.Summary
		}
		f := m.Finding
		if f == nil || len(f.Trace) == 0 {
			continue
		}
		v := found[f.OSV]
		if v == nil {
			v = &reached{id: f.OSV, module: f.Trace[0].Module, version: f.Trace[0].Version, fixed: f.FixedVersion}
			found[f.OSV] = v
		}
		// A frame with a function means a call path from solgate's code
		// reaches the vulnerable symbol; without one, the package or module
		// is only required.
		if f.Trace[0].Function != "" && !v.called {
			v.called = true
			v.trace = f.Trace
		}
	}
	for id, v := range found {
		v.summary = summaries[id]
	}
	return found, nil
}

func judge(found map[string]*reached, accepted map[string]Accepted, now time.Time, out io.Writer) error {
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var failed, notCalled []string
	for _, id := range ids {
		v := found[id]
		if !v.called {
			notCalled = append(notCalled, fmt.Sprintf("%s (%s@%s, fixed in %s)", id, v.module, v.version, orNone(v.fixed)))
			continue
		}
		where := fmt.Sprintf("%s in %s@%s, fixed in %s: %s\n    reached: %s", id, v.module, v.version, orNone(v.fixed), v.summary, callPath(v.trace))
		a, ok := accepted[id]
		review, _ := time.Parse(time.DateOnly, a.ReviewBy)
		switch {
		case ok && !now.After(review):
			fmt.Fprintf(out, "accepted until %s: %s\n    why: %s\n", a.ReviewBy, where, a.Why)
		case ok:
			fmt.Fprintf(out, "REVIEW DATE PASSED (%s): %s\n    why it was accepted: %s\n", a.ReviewBy, where, a.Why)
			failed = append(failed, id)
		default:
			fmt.Fprintf(out, "NOT IN BASELINE: %s\n", where)
			failed = append(failed, id)
		}
	}
	for id := range accepted {
		if v := found[id]; v == nil || !v.called {
			fmt.Fprintf(out, "baseline entry %s no longer matches a reached vulnerability: remove it\n", id)
		}
	}
	if len(notCalled) > 0 {
		fmt.Fprintf(out, "%d more in required modules that solgate's code does not call (not gated):\n    %s\n", len(notCalled), strings.Join(notCalled, "\n    "))
	}
	called := len(ids) - len(notCalled)
	fmt.Fprintf(out, "%d reachable vulnerabilities, %d accepted by the baseline, %d failing\n", called, called-len(failed), len(failed))
	if len(failed) > 0 {
		return fmt.Errorf("%d reachable vulnerabilities outside the baseline: %s (update the module or the toolchain; accept one only in .ci/vuln/baseline.json with why and a review date)", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

func orNone(v string) string {
	if v == "" {
		return "no fixed version"
	}
	return v
}

// callPath renders a trace from solgate's function to the vulnerable one.
func callPath(trace []frame) string {
	parts := make([]string, 0, len(trace))
	for i := len(trace) - 1; i >= 0; i-- {
		f := trace[i]
		name := f.Function
		if f.Receiver != "" {
			name = f.Receiver + "." + name
		}
		parts = append(parts, f.Package+"."+name)
	}
	return strings.Join(parts, " -> ")
}
