package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strings"
	"time"
)

// throughputProfile is where the throughput run (through real bridges)
// writes a CPU profile of the bench process, which hosts the console's hub
// (and the operator, and the agents' MCP clients); "" turns it off.
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
	// Total is the profile's CPU; Agents the part spent in the bench's own
	// MCP clients (the agents), which is not the console's.
	Total, Agents time.Duration
}

// AgentShare is the agents' part of the bench process's CPU.
func (s *profileSummary) AgentShare() float64 {
	if s == nil || s.Total <= 0 {
		return 0
	}
	return float64(s.Agents) / float64(s.Total)
}

// agentFrames are the stack frames of the bench's agents: mcp-go's client
// and the bench's calls into it.
var agentFrames = regexp.MustCompile(`mark3labs/mcp-go/client|^main\.\(\*agent\)|^main\.throughputRun\.func`)

// summarizeProfile reads the profile with `go tool pprof` (it carries its
// own symbols): the top 10 of solgate's functions by cumulative time, and
// the agents' share from the sampled stacks.
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
	traces, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-traces", path).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof -traces %s: %w", path, err)
	}
	// Stacks are blocks separated by "-----+-----" lines; a block's first
	// line starts with its sampled time.
	for _, block := range strings.Split(string(traces), "-----------+-------------------------------------------------------") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 {
			continue
		}
		f := strings.Fields(lines[0])
		if len(f) < 2 {
			continue
		}
		d, err := time.ParseDuration(f[0])
		if err != nil {
			continue
		}
		s.Total += d
		for _, l := range lines {
			fr := strings.Fields(l)
			if len(fr) == 0 {
				continue
			}
			if agentFrames.MatchString(fr[len(fr)-1]) || (len(fr) > 1 && agentFrames.MatchString(fr[len(fr)-2])) {
				s.Agents += d
				break
			}
		}
	}
	return s, nil
}

func (s *profileSummary) print() {
	if s == nil {
		return
	}
	fmt.Printf("\nwhere the time goes: CPU profile of the bench process during the throughput run through real bridges (%s)\n", s.Path)
	fmt.Printf("  %s sampled; the agents' MCP clients (the bench's, not the console's) %.0f%% of it. Top 10 of solgate's functions by cumulative time:\n",
		s.Total.Round(time.Millisecond), 100*s.AgentShare())
	for _, l := range s.Top {
		fmt.Println("  " + l)
	}
}
