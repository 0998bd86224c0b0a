package startup

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// gcKnobs reads the collector's settings back from the runtime's own
// report, not from the constants that set them.
func gcKnobs() (percent, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

func TestConsoleRuntimeSetsTheCollector(t *testing.T) {
	p0, l0 := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(p0); debug.SetMemoryLimit(l0) }()
	debug.SetMemoryLimit(1 << 62)

	if !ConsoleRuntime(func(string) string { return "" }) {
		t.Fatal("ConsoleRuntime did not apply its settings with neither GOGC nor GOMEMLIMIT set")
	}
	if p, l := gcKnobs(); p != 400 || l != 128*1024*1024 {
		t.Fatalf("runtime reports GOGC=%d GOMEMLIMIT=%d bytes, want 400 and 134217728 (128 MiB)", p, l)
	}
}

func TestConsoleRuntimeLeavesTheOperatorsSetting(t *testing.T) {
	p0, l0 := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(p0); debug.SetMemoryLimit(l0) }()
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(1 << 62)
		applied := ConsoleRuntime(func(k string) string {
			if k == env {
				return "200"
			}
			return ""
		})
		if p, l := gcKnobs(); applied || p != 100 || l != 1<<62 {
			t.Fatalf("with %s set: applied=%v, runtime reports GOGC=%d GOMEMLIMIT=%d; want the settings left alone", env, applied, p, l)
		}
	}
}
