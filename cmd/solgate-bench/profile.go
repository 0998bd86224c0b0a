package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"
)

// throughputProfile is where the throughput run (through real bridges)
// writes a CPU profile of the bench process, which hosts the console's hub
// and the operator (the agents run in the agent driver); "" turns it off.
var throughputProfile string

// startThroughputProfile starts the profile; stop returns nil when none
// was taken (turned off, or -cpuprofile already profiles the whole run).
func startThroughputProfile() (stop func() *profileSummary) {
	if throughputProfile == "" {
		return func() *profileSummary { return nil }
	}
	if err := os.MkdirAll(filepath.Dir(throughputProfile), 0o755); err != nil {
		progress("throughput profile: %v", err)
		return func() *profileSummary { return nil }
	}
	f, err := os.Create(throughputProfile)
	if err != nil {
		progress("throughput profile: %v", err)
		return func() *profileSummary { return nil }
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(throughputProfile)
		progress("throughput profile not taken: %v", err)
		return func() *profileSummary { return nil }
	}
	return func() *profileSummary {
		pprof.StopCPUProfile()
		f.Close()
		s, err := summarizeProfile(throughputProfile)
		if err != nil {
			progress("throughput profile: %v", err)
			return nil
		}
		return s
	}
}

// profileSummary is what the table's footer says about the profile.
type profileSummary struct {
	Path string `json:"path"`
	// Top are solgate's own functions by cumulative time, as pprof prints them.
	Top []string `json:"top_cumulative"`
}

// summarizeProfile reads the profile with `go tool pprof` (it carries its
// own symbols): the top 10 of solgate's functions by cumulative time.
func summarizeProfile(path string) (*profileSummary, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	top, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-cum", "-nodecount=10", "-show=solgate/solgate/", path).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof -top %s: %w", path, err)
	}
	s := &profileSummary{Path: path}
	inTable := false
	for _, line := range strings.Split(string(top), "\n") {
		if strings.Contains(line, "flat%") && strings.Contains(line, "cum%") {
			inTable = true
			s.Top = append(s.Top, line)
			continue
		}
		if inTable && strings.TrimSpace(line) != "" {
			s.Top = append(s.Top, line)
		}
	}
	return s, nil
}

func (s *profileSummary) print() {
	if s == nil {
		return
	}
	fmt.Printf("\nwhere the time goes: CPU profile of the bench process (the console's hub, store and operator) during the throughput run through real bridges (%s)\n", s.Path)
	fmt.Println("  top 10 of solgate's functions by cumulative time:")
	for _, l := range s.Top {
		fmt.Println("  " + l)
	}
}
