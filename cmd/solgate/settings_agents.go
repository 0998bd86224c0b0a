package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/solgate/solgate/policy"
)

// agentKeys are the policy rows an [[agent]] section may set, besides uid
// and label: the ones whose narrowing policy.Agent.NarrowedFrom can judge.
// Anything else in a section is refused, as an unknown key is at the top.
var agentKeys = []string{
	"max-sol-per-tx", "max-sol-per-session", "max-sol-per-day",
	"allow-recipient", "allow-program", "allow-mint", "allow-action-origin", "allow-x402-origin",
	"max-token-per-tx", "max-token-per-session", "max-token-per-day",
	"no-grants",
}

// agentSection is one [[agent]] table as the file spelt it, kept until
// every source is merged: a section is judged against the console's final
// policy (a flag may lower a cap the section then exceeds).
type agentSection struct {
	path   string
	md     *toml.MetaData
	keys   map[string]toml.Primitive
	header int            // the [[agent]] line
	lines  map[string]int // key → its line, for errors
}

// at names the line of key in the section (the header when the key is not
// found on a line of its own).
func (a agentSection) at(key string) string {
	line := a.header
	if n, ok := a.lines[key]; ok {
		line = n
	}
	return fmt.Sprintf("%s line %d", a.path, line)
}

var (
	tomlHeader      = regexp.MustCompile(`^\s*\[`)
	agentHeader     = regexp.MustCompile(`^\s*\[\[\s*agent\s*\]\]`)
	tomlKeyAtLineRE = regexp.MustCompile(`^\s*"?([A-Za-z0-9_-]+)"?\s*=`)
)

// agentSectionLines finds, for error messages only, the line of each
// [[agent]] header and of each key under it. Values are never read here:
// the TOML library reads them.
func agentSectionLines(raw string) (headers []int, keys []map[string]int) {
	in := false
	for i, line := range strings.Split(raw, "\n") {
		switch {
		case agentHeader.MatchString(line):
			in = true
			headers = append(headers, i+1)
			keys = append(keys, map[string]int{})
		case tomlHeader.MatchString(line):
			in = false
		case in:
			if m := tomlKeyAtLineRE.FindStringSubmatch(line); m != nil {
				if _, dup := keys[len(keys)-1][m[1]]; !dup {
					keys[len(keys)-1][m[1]] = i + 1
				}
			}
		}
	}
	return headers, keys
}

// readAgentSections keeps the file's [[agent]] tables for buildAgents.
func (sf *settingFlags) readAgentSections(path, raw string, md *toml.MetaData, tables []map[string]toml.Primitive) {
	headers, keyLines := agentSectionLines(raw)
	for i, t := range tables {
		a := agentSection{path: path, md: md, keys: t, lines: map[string]int{}}
		if i < len(headers) {
			a.header, a.lines = headers[i], keyLines[i]
		}
		sf.agents = append(sf.agents, a)
	}
}

// buildAgents turns the sections into policy.Agents once s holds the
// console's final policy: each section is the console's policy narrowed by
// its keys, and refused, with its line, if it would widen anything. A uid
// with a section is admitted; with require_agent_sections, an admitted uid
// without one is refused.
func (sf *settingFlags) buildAgents(s *Settings, from origins) error {
	var agents []policy.Agent
	seen := map[uint32]string{}
	for _, sec := range sf.agents {
		a, err := sec.agent(s)
		if err != nil {
			return err
		}
		if first, dup := seen[a.UID]; dup {
			return fmt.Errorf("%s: uid %d already has a section (%s); give each agent one", sec.at("uid"), a.UID, first)
		}
		seen[a.UID] = sec.at("uid")
		agents = append(agents, a)
	}
	if s.Policy.RequireAgentSections {
		for _, uid := range s.AllowUIDs {
			if _, ok := seen[uid]; !ok {
				return fmt.Errorf("%s: uid %d is admitted (%s) but has no [[agent]] section; add one, or stop requiring them",
					from.label("require-agent-sections"), uid, from.label("allow-uid"))
			}
		}
	}
	for _, a := range agents {
		if !slices.Contains(s.AllowUIDs, a.UID) {
			s.AllowUIDs = append(s.AllowUIDs, a.UID)
		}
	}
	s.Policy.Agents = agents
	return nil
}

// agent reads one section against the console's settings s.
func (sec agentSection) agent(s *Settings) (policy.Agent, error) {
	var unknown []string
	for key := range sec.keys {
		if key != "uid" && key != "label" && !slices.Contains(agentKeys, strings.ReplaceAll(key, "_", "-")) {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		accepted := []string{"uid", "label"}
		for _, k := range agentKeys {
			accepted = append(accepted, strings.ReplaceAll(k, "-", "_"))
		}
		return policy.Agent{}, fmt.Errorf("%s: %s is not a key of an [[agent]] section; accepted: %s", sec.at(unknown[0]), unknown[0], strings.Join(accepted, ", "))
	}
	uidPrim, ok := sec.keys["uid"]
	if !ok {
		return policy.Agent{}, fmt.Errorf("%s: an [[agent]] section needs uid = the agent user's uid", sec.at("uid"))
	}
	var uidVal any
	if err := sec.md.PrimitiveDecode(uidPrim, &uidVal); err != nil {
		return policy.Agent{}, fmt.Errorf("%s: uid: %w", sec.at("uid"), err)
	}
	n, ok := uidVal.(int64)
	if !ok {
		return policy.Agent{}, fmt.Errorf("%s: uid: %v is not accepted; want a whole number", sec.at("uid"), uidVal)
	}
	uid, err := parseID("user id")(fmt.Sprint(n))
	if err != nil {
		return policy.Agent{}, fmt.Errorf("%s: uid: %w", sec.at("uid"), err)
	}
	a := policy.Agent{UID: uid}
	if p, ok := sec.keys["label"]; ok {
		var v any
		if err := sec.md.PrimitiveDecode(p, &v); err != nil {
			return policy.Agent{}, fmt.Errorf("%s: label: %w", sec.at("label"), err)
		}
		label, ok := v.(string)
		if !ok || !printableLabel(label) {
			return policy.Agent{}, fmt.Errorf("%s: label: want a quoted name of 1 to 32 letters, digits, '-', '_' or '.'", sec.at("label"))
		}
		a.Label = label
	}
	// The console's settings, then this section's keys through the same
	// rows (parsers, TOML types) as the top level.
	own := *s
	own.Policy.Agents = nil
	for _, name := range agentKeys {
		r := rowNamed(name)
		p, ok := sec.keys[r.tomlKey()]
		if !ok {
			continue
		}
		var v any
		if err := sec.md.PrimitiveDecode(p, &v); err != nil {
			return policy.Agent{}, fmt.Errorf("%s: %s: %w", sec.at(r.tomlKey()), r.tomlKey(), err)
		}
		texts, err := tomlTexts(r, r.tomlKey(), v)
		if err == nil {
			err = r.set(&own, texts)
		}
		if err != nil {
			return policy.Agent{}, fmt.Errorf("%s: %s: %w", sec.at(r.tomlKey()), r.tomlKey(), err)
		}
	}
	// A section's token caps replace the console's for the mints it names
	// and keep the console's for the others.
	for _, caps := range []struct {
		own *[]policy.TokenCap
		top []policy.TokenCap
	}{
		{&own.Policy.MaxTokenPerTx, s.Policy.MaxTokenPerTx},
		{&own.Policy.MaxTokenPerSession, s.Policy.MaxTokenPerSession},
		{&own.Policy.MaxTokenPerDay, s.Policy.MaxTokenPerDay},
	} {
		for _, tc := range caps.top {
			if !slices.ContainsFunc(*caps.own, func(c policy.TokenCap) bool { return c.Mint == tc.Mint }) {
				*caps.own = append(*caps.own, tc)
			}
		}
	}
	if _, ok := sec.keys["allow_program"]; ok {
		// The section's programs replace the console's additions: the
		// defaults and these, each of which the console must admit too.
		own.Policy.AllowedPrograms = allowedPrograms(own.AllowPrograms)
	}
	a.Config = own.Policy
	a.NoGrants = own.NoGrants
	if s.NoGrants && !a.NoGrants {
		return policy.Agent{}, fmt.Errorf("%s: no_grants (agent %s): false would allow grants the console turns off; a section can only narrow", sec.at("no_grants"), a.Name())
	}
	if err := a.NarrowedFrom(s.Policy); err != nil {
		var ce *policy.ConfigError
		if errors.As(err, &ce) {
			return policy.Agent{}, fmt.Errorf("%s: %s (agent %s): %s", sec.at(ce.Key), ce.Key, a.Name(), ce.Msg)
		}
		return policy.Agent{}, fmt.Errorf("%s: agent %s: %w", sec.at("uid"), a.Name(), err)
	}
	return a, nil
}

// printableLabel keeps labels short and plain: they are drawn on the
// operator's screen and read back in denials.
func printableLabel(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// rowNamed is the settings row of a flag name; the names are constants of
// this file, so a miss is a programming error caught by every test.
func rowNamed(name string) *setting {
	for _, r := range allRows() {
		if r.name == name {
			return r
		}
	}
	panic("no settings row " + name)
}
