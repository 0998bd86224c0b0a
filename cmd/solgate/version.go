package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version can be stamped at release time with -ldflags "-X main.version=v1.2.3".
// Left at "dev", it comes from what the Go toolchain recorded about the build:
// with -buildvcs=true (as `make build` does) that is a pseudo-version naming
// the checkout's revision, "+dirty" when built from uncommitted changes. So
// `solgate --version`, MCP serverInfo and the console's /v1/health name the
// exact code an operator runs.
var version = "dev"

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return version
}

func init() { extraCommands = append(extraCommands, newVersionCmd) }

// buildReport is `solgate version --json`: what a release's provenance and
// SBOM can be checked against, read from the binary itself.
type buildReport struct {
	Module   string       `json:"module"`
	Version  string       `json:"version"`
	Revision string       `json:"vcs_revision,omitempty"`
	Time     string       `json:"vcs_time,omitempty"`
	Modified bool         `json:"vcs_modified"`
	Go       string       `json:"go"`
	Settings []buildField `json:"build_settings"`
	Deps     []buildDep   `json:"deps"`
}

type buildField struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type buildDep struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Sum     string `json:"sum,omitempty"`
	Replace string `json:"replaced_by,omitempty"`
}

func readBuildReport() (buildReport, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return buildReport{}, errors.New("this binary carries no build information (built without module support)")
	}
	r := buildReport{Module: info.Main.Path, Version: buildVersion(), Go: info.GoVersion, Deps: []buildDep{}}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			r.Revision = s.Value
		case "vcs.time":
			r.Time = s.Value
		case "vcs.modified":
			r.Modified = s.Value == "true"
		}
		r.Settings = append(r.Settings, buildField{s.Key, s.Value})
	}
	for _, d := range info.Deps {
		bd := buildDep{Path: d.Path, Version: d.Version, Sum: d.Sum}
		if d.Replace != nil {
			bd.Replace = d.Replace.Path + "@" + d.Replace.Version
		}
		r.Deps = append(r.Deps, bd)
	}
	return r, nil
}

// line is the one line both `solgate version` and `solgate --version` print,
// so an operator quoting either in a bug report quotes the same thing.
func (r buildReport) line() string {
	rev := r.Revision
	switch {
	case rev == "":
		rev = "unknown commit"
	case r.Modified:
		rev = "commit " + rev + " (modified)"
	default:
		rev = "commit " + rev
	}
	return fmt.Sprintf("solgate %s (%s, %s)", r.Version, rev, r.Go)
}

// versionLine is that line, or the bare version where the binary carries no
// build information.
func versionLine() string {
	r, err := readBuildReport()
	if err != nil {
		return "solgate " + buildVersion()
	}
	return r.line()
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from and its Go version (--json: every dependency too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := readBuildReport()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			_, err = fmt.Fprintln(out, r.line())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print module version, VCS revision, Go version, build settings and dependencies as JSON")
	return cmd
}
