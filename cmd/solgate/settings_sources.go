package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/mcpbridge/authority/host"
	"github.com/solgate/solgate/policy"
)

// settingFlags is the table's rows registered on one command's flags, and
// the text each flag was given. build turns the sources into Settings, in
// the order defaults < --config file < SOLGATE_* variables < flags.
type settingFlags struct {
	rows  []*setting
	given map[string]*flagText
	// strict: refuse SOLGATE_* variables that are not settings. Every
	// subcommand also refuses them before it runs (the root's
	// PersistentPreRunE); this keeps build's own callers (tests) honest.
	strict bool
	// agents are the file's [[agent]] sections (settings_agents.go).
	agents []agentSection
}

// registerSettings adds the named rows (all of them when none are named) to
// f. Flag values are kept as text and parsed only in build, by the same
// parser that reads the variable and the file.
func registerSettings(f *pflag.FlagSet, names ...string) *settingFlags {
	sf := &settingFlags{given: map[string]*flagText{}, strict: len(names) == 0}
	defaults := defaultSettings()
	for i := range settings {
		r := &settings[i]
		if len(names) > 0 && !slices.Contains(names, r.name) {
			continue
		}
		v := &flagText{list: r.list, bool: r.bool, def: r.show(&defaults)}
		fl := f.VarPF(v, r.name, "", r.usage)
		if r.bool {
			fl.NoOptDefVal = "true"
		}
		sf.rows = append(sf.rows, r)
		sf.given[r.name] = v
	}
	if len(names) > 0 && len(sf.rows) != len(names) {
		panic(fmt.Sprintf("registerSettings(%q): a name is not in the settings table", names))
	}
	return sf
}

// flagText records what a flag was given on the command line.
type flagText struct {
	texts      []string
	list, bool bool
	def        string // --help's default
}

func (v *flagText) String() string { return v.def }

func (v *flagText) Set(s string) error {
	if v.list {
		v.texts = append(v.texts, s)
	} else {
		v.texts = []string{s}
	}
	return nil
}

func (v *flagText) Type() string {
	switch {
	case v.bool:
		return "bool"
	case v.list:
		return "stringArray"
	}
	// Not "string": pflag quotes a string's default, and --help read
	// (default "0.1") for a number of SOL. Every value is text to us.
	return "text"
}

// IsBoolFlag lets pflag treat a switch's "false" default as no default.
func (v *flagText) IsBoolFlag() bool { return v.bool }

// origins records, per row, the source its value came from, so an error
// found only once every source is merged (a per-tx cap above the session
// cap) still names where the offending value was set.
type origins map[string]string

// build reads every source into one Settings. It returns the whole result
// or an error naming the source and key; nothing is half-applied.
func (sf *settingFlags) build() (Settings, error) {
	s := defaultSettings()
	from := origins{}
	if sf.strict {
		if err := refuseUnknownEnv(); err != nil {
			return Settings{}, err
		}
	}
	// --config is itself a setting: find the file first (flag beats
	// variable), then apply the sources in order of precedence.
	if r := sf.row("config"); r != nil {
		if err := sf.applyEnv(&s, from, r); err != nil {
			return Settings{}, err
		}
		if err := sf.applyFlag(&s, from, r); err != nil {
			return Settings{}, err
		}
		if s.Config != "" {
			// The file can set the caps and a command the console runs:
			// nobody but the console's user (or root) may be able to write it.
			raw, err := host.ReadTrustedFile(from.label("config"), s.Config, false)
			if err != nil {
				return Settings{}, err
			}
			if err := sf.applyTOML(&s, from, s.Config, raw); err != nil {
				return Settings{}, err
			}
		}
	}
	for _, r := range sf.rows {
		if r.name == "config" {
			continue // applied above
		}
		if err := sf.applyEnv(&s, from, r); err != nil {
			return Settings{}, err
		}
	}
	for _, r := range sf.rows {
		if r.name == "config" {
			continue
		}
		if err := sf.applyFlag(&s, from, r); err != nil {
			return Settings{}, err
		}
	}
	if sf.row("state") != nil {
		_, named := from["state"]
		s.StateByCluster = !named
	}
	if s.SwapAPIKeyFile != "" {
		if s.SwapAPIKey != "" {
			return Settings{}, fmt.Errorf("%s and %s both give the swap API key; keep only one", from.label("swap-api-key"), from.label("swap-api-key-file"))
		}
		key, err := readSecretFile(from.label("swap-api-key-file"), s.SwapAPIKeyFile)
		if err != nil {
			return Settings{}, err
		}
		s.SwapAPIKey = key
	}
	s.Policy.AllowedPrograms = allowedPrograms(s.AllowPrograms)
	if err := s.Policy.Validate(); err != nil {
		return Settings{}, from.blame(err)
	}
	if err := sf.buildAgents(&s, from); err != nil {
		return Settings{}, err
	}
	if f := s.Fees; f.Fixed && f.FixedLamports > f.MaxLamports {
		return Settings{}, fmt.Errorf("%s: %d lamports is above the %d-lamport cap (%s); raise the cap or lower the fee",
			from.label("priority-fee-lamports"), f.FixedLamports, f.MaxLamports, from.label("max-priority-fee-lamports"))
	}
	if err := s.Fees.Validate(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

func (sf *settingFlags) row(name string) *setting {
	for _, r := range sf.rows {
		if r.name == name {
			return r
		}
	}
	return nil
}

func (sf *settingFlags) applyFlag(s *Settings, from origins, r *setting) error {
	v := sf.given[r.name]
	if len(v.texts) == 0 {
		return nil
	}
	label := "--" + r.name
	if r.secret {
		// Refused whatever its value, which is never repeated: by the time
		// this runs it has been in /proc/PID/cmdline, readable by every user.
		return fmt.Errorf("%s: a secret is never taken as a flag, since every user of this machine can read a process's command line (/proc/PID/cmdline, ps); set %s in the environment, put it in the --config file, or use --%s-file FILE; and since this one was on a command line, consider it seen and replace it", label, r.envVar(), r.name)
	}
	if err := r.set(s, v.texts); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	from[r.name] = label
	return nil
}

// applyEnv reads SOLGATE_<NAME>, or one of the row's older names. An empty
// variable counts as unset (`NAME= solgate …` is how a shell clears one);
// a list is comma-separated.
func (sf *settingFlags) applyEnv(s *Settings, from origins, r *setting) error {
	name, val := "", ""
	for _, n := range append([]string{r.envVar()}, r.oldEnv...) {
		v := os.Getenv(n)
		if v == "" {
			continue
		}
		if name != "" && v != val {
			return fmt.Errorf("%s and %s are both set, to different values; set only %s", name, n, r.envVar())
		}
		if name == "" {
			name, val = n, v
		}
	}
	if name == "" {
		return nil
	}
	texts := []string{val}
	if r.list {
		texts = texts[:0]
		for _, item := range strings.Split(val, ",") {
			if item = strings.TrimSpace(item); item != "" {
				texts = append(texts, item)
			}
		}
	}
	if err := r.set(s, texts); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	from[r.name] = name
	return nil
}

// applyTOML reads raw, the file at path, into a struct built from the table
// (one field per key and older spelling), so the decoder itself reports
// every key that no row declares.
func (sf *settingFlags) applyTOML(s *Settings, from origins, path string, raw []byte) error {
	type field struct {
		row *setting
		key string
	}
	var fields []field
	var sfields []reflect.StructField
	// The file is the console's, whichever rows this command offers as
	// flags: every row's key is read and checked, so `audit --config` reads
	// the same file as the console without refusing its policy keys.
	for _, r := range allRows() {
		if r.noTOML {
			continue
		}
		for _, key := range append([]string{r.tomlKey()}, r.oldTOML...) {
			sfields = append(sfields, reflect.StructField{
				Name: fmt.Sprintf("F%d", len(sfields)),
				Type: reflect.TypeFor[toml.Primitive](),
				Tag:  reflect.StructTag(`toml:"` + key + `"`),
			})
			fields = append(fields, field{r, key})
		}
	}
	// The [[agent]] sections are the last field (settings_agents.go).
	sfields = append(sfields, reflect.StructField{
		Name: "Agents",
		Type: reflect.TypeFor[[]map[string]toml.Primitive](),
		Tag:  `toml:"agent"`,
	})
	doc := reflect.New(reflect.StructOf(sfields)).Elem()
	md, err := toml.Decode(string(raw), doc.Addr().Interface())
	if err != nil {
		// The parser quotes what it found; next to a secret that could be
		// part of the key, so only the line is given.
		var pe toml.ParseError
		if errors.As(err, &pe) {
			for _, f := range fields {
				if f.row.secret && (pe.LastKey == f.key || strings.HasPrefix(pe.LastKey, f.key+".")) {
					return fmt.Errorf("--config: parse %s: line %d: the value of %s is not valid TOML (not shown: it is secret); write it as a quoted string", path, pe.Position.Line, f.key)
				}
			}
		}
		return fmt.Errorf("--config: parse %s: %w", path, err)
	}
	if unknown := md.Undecoded(); len(unknown) > 0 {
		return fmt.Errorf("%s in %s: unknown key; accepted keys: %s", unknown[0], path, strings.Join(sf.tomlKeys(), ", "))
	}
	sf.readAgentSections(path, string(raw), &md, doc.Field(len(sfields)-1).Interface().([]map[string]toml.Primitive))
	seen := map[string]string{} // row name → key that set it
	for i, f := range fields {
		if !md.IsDefined(f.key) {
			continue
		}
		label := f.key + " in " + path
		if other, dup := seen[f.row.name]; dup {
			return fmt.Errorf("%s: %s is the same setting; keep only %s", label, other, f.row.tomlKey())
		}
		seen[f.row.name] = f.key
		var v any
		if err := md.PrimitiveDecode(doc.Field(i).Interface().(toml.Primitive), &v); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		texts, err := tomlTexts(f.row, f.key, v)
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		if err := f.row.set(s, texts); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		from[f.row.name] = label
	}
	return nil
}

// readSecretFile reads a secret from a file only the console's user can
// read or write; the error never quotes the content.
func readSecretFile(label, path string) (string, error) {
	raw, err := host.ReadTrustedFile(label, path, true)
	if err != nil {
		return "", err
	}
	key, err := parseSecret(strings.TrimSpace(string(raw)))
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", label, path, err)
	}
	return key, nil
}

// allRows is every row of the settings table.
func allRows() []*setting {
	rows := make([]*setting, len(settings))
	for i := range settings {
		rows[i] = &settings[i]
	}
	return rows
}

// tomlKeys lists the file's keys, for the unknown-key message.
func (sf *settingFlags) tomlKeys() []string {
	var keys []string
	for _, r := range allRows() {
		if !r.noTOML {
			keys = append(keys, r.tomlKey())
		}
	}
	slices.Sort(keys)
	return append(keys, "[[agent]] sections")
}

// tomlTexts turns a decoded TOML value into the text the row's parser reads,
// after checking it has the TOML type the row expects.
func tomlTexts(r *setting, key string, v any) ([]string, error) {
	if !r.list {
		t, err := tomlText(r, key, v)
		return []string{t}, err
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not accepted; want a list, e.g. %s = [%s]", tomlShow(r, v), key, tomlExample(r.toml))
	}
	texts := make([]string, 0, len(items))
	for _, item := range items {
		t, err := tomlText(r, key, item)
		if err != nil {
			return nil, err
		}
		texts = append(texts, t)
	}
	return texts, nil
}

func tomlExample(k tomlKind) string {
	switch k {
	case tomlInt:
		return "1001"
	case tomlBool:
		return "true"
	case tomlDecimal:
		return "0.1"
	}
	return `"…"`
}

// tomlShow renders a refused value for an error; a secret is not shown.
func tomlShow(r *setting, v any) string {
	if r.secret {
		return fmt.Sprintf("a %T (value not shown)", v)
	}
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

func tomlText(r *setting, key string, v any) (string, error) {
	switch r.toml {
	case tomlString:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return "", fmt.Errorf("%s is not accepted; want a quoted string", tomlShow(r, v))
	case tomlBool:
		if b, ok := v.(bool); ok {
			return strconv.FormatBool(b), nil
		}
		return "", fmt.Errorf("%s is not accepted; want true or false", tomlShow(r, v))
	case tomlInt:
		if n, ok := v.(int64); ok {
			return strconv.FormatInt(n, 10), nil
		}
		return "", fmt.Errorf("%s is not accepted; want a whole number", tomlShow(r, v))
	case tomlDecimal:
		return tomlDecimalText(key, v)
	}
	return "", fmt.Errorf("row %s has no TOML kind", r.name)
}

// maxExactFloatDigits: float64 round-trips every decimal of up to 15
// significant digits, so the shortest representation of such a TOML float is
// exactly the digits the operator wrote (0.1 → "0.1"). Every SOL amount
// below the sanity bound (at most 6+9 digits) fits.
const maxExactFloatDigits = 15

// tomlDecimalText recovers the decimal text of a TOML number. The TOML parser
// has already turned floats into float64, so the text is rebuilt with the
// shortest round-trip formatting and refused if that cannot be exact; a
// quoted string is always exact. The parsers then read the text exactly
// (policy.ParseSOL), so money never passes through float arithmetic.
func tomlDecimalText(key string, v any) (string, error) {
	switch n := v.(type) {
	case string:
		if strings.HasPrefix(n, "-") {
			return "", fmt.Errorf("%q is negative; accepted: a non-negative number such as 0.1", n)
		}
		return n, nil
	case int64:
		if n < 0 {
			return "", fmt.Errorf("%d is negative; accepted: a non-negative number such as 0.1", n)
		}
		return strconv.FormatInt(n, 10), nil
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return "", fmt.Errorf("%v is not a number; accepted: a non-negative number such as 0.1", n)
		}
		if n < 0 || math.Signbit(n) {
			return "", fmt.Errorf("%v is negative; accepted: a non-negative number such as 0.1", n)
		}
		s := strconv.FormatFloat(n, 'f', -1, 64)
		if significantDigits(s) > maxExactFloatDigits {
			return "", fmt.Errorf("%s has more digits than a TOML float holds exactly; write it as a string, e.g. %s = \"%s\"", s, key, s)
		}
		return s, nil
	}
	return "", fmt.Errorf("%v (%T) is not accepted; want a number such as 0.1", v, v)
}

func significantDigits(s string) int {
	digits := strings.TrimLeft(strings.Replace(s, ".", "", 1), "0")
	if strings.Contains(s, ".") {
		return len(digits)
	}
	return len(strings.TrimRight(digits, "0"))
}

// blame prefixes a policy.ConfigError (a check across keys, run once every
// source is merged) with the source of the key it names.
func (from origins) blame(err error) error {
	var ce *policy.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("%s: %s", from.label(strings.ReplaceAll(ce.Key, "_", "-")), ce.Msg)
}

// label names where a row's value came from: a flag, a variable, a key in a
// file, or the default.
func (from origins) label(name string) string {
	if label, ok := from[name]; ok {
		return label
	}
	return strings.ReplaceAll(name, "-", "_") + " (default)"
}

// otherVariables are SOLGATE_* variables that are not settings: the tests,
// the benchmarks and localnet read them, and a console started under those
// harnesses inherits them. TestEverySOLGATEVariableIsKnown keeps this list
// complete.
var otherVariables = []string{
	"SOLGATE_LOCALNET_DIR", // localnet.DirEnv: where the ledger's Node package lives
	"SOLGATE_ADVERSARIAL_ATTEMPTS",
	"SOLGATE_VULN_CACHE",                           // .ci/vuln/run: where the vulnerability database is built
	"SOLGATE_EFFECTS_DIFF", "SOLGATE_EFFECTS_SEED", // the effects engine's differential test: count and seed
	"SOLGATE_FAULT_N", "SOLGATE_FAULT_HUB_CHILD", "SOLGATE_FAULT_HUB_READY",
	"SOLGATE_FIGURES_SLOT_MS", "SOLGATE_TUI_FIGURES", "SOLGATE_TUI_FIGURES_WINDOW",
	"SOLGATE_STORE_TEST_CHILD_DIR", "SOLGATE_STORE_TEST_ROUND",
	"SOLGATE_TEST_HELPER_SOCKET", "SOLGATE_TEST_HELPER_MODE", "SOLGATE_TEST_MEM_PID",
	// Set by the console for --notify-command, in the command's environment only.
	"SOLGATE_PROPOSAL_ID", "SOLGATE_TOOL", "SOLGATE_AMOUNT", "SOLGATE_RECIPIENT", "SOLGATE_NETWORK", "SOLGATE_FLAGS", "SOLGATE_WAITING",
	"SOLGATE_TUI_FLOOD", "SOLGATE_TUI_FLOOD_WINDOW", "SOLGATE_TUI_FPS",
	"SOLGATE_MCP_CPUPROFILE", // a debugging aid: each `solgate mcp` writes a CPU profile there (mcp.go)
}

// refuseUnknownEnv fails on a SOLGATE_* variable that is neither a setting
// nor one of otherVariables: a misspelt cap (…_PER_TXN for …_PER_TX) would
// otherwise leave the default cap in force without a word. The value is never shown
// (it may be a misspelt API key).
func refuseUnknownEnv() error {
	known := map[string]bool{}
	var names []string
	for i := range settings {
		r := &settings[i]
		known[r.envVar()] = true
		names = append(names, r.envVar())
		for _, n := range r.oldEnv {
			known[n] = true
		}
	}
	for _, n := range otherVariables {
		known[n] = true
	}
	var unknown []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "SOLGATE_") && !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	slices.Sort(names)
	mean := ""
	for _, u := range unknown {
		if n := nearest(u, names); n != "" {
			mean += fmt.Sprintf(" did you mean %s for %s?", n, u)
		}
	}
	return fmt.Errorf("%s: not a solgate setting (unset it, or fix the name);%s the variables are: %s",
		strings.Join(unknown, ", "), mean, strings.Join(names, ", "))
}

// allowedPrograms is the program allowlist: the programs allowed by default,
// and those --allow-program (or an [[agent]] section's allow_program) adds.
func allowedPrograms(extra []executor.AllowedProgram) map[string]string {
	m := policy.DefaultPrograms()
	for _, p := range extra {
		label := p.Label
		if label == "" {
			label = p.ID.String()
		}
		m[p.ID.String()] = label
	}
	return m
}
