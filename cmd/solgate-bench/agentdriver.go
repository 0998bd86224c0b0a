package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/solgate/solgate/mcpbridge"
)

// The throughput run's agents run in a process of their own, the agent
// driver: the bench re-executes itself with agentDriverArg. The bench
// process then holds what a console holds (the hub, its store, and the
// operator pressing keys), so its CPU is the console's, read from the
// kernel, and not apportioned from a profile. The agents' MCP clients are
// not solgate; in one process with the hub, their garbage was collected and
// their goroutines scheduled on the console's count.
const agentDriverArg = "-agent-driver"

// driverJob is what the bench asks of the driver: one proposer per Amounts
// entry, each proposing its amounts to To one after another.
type driverJob struct {
	Bin        string     `json:"bin"`
	Socket     string     `json:"socket"`
	To         string     `json:"to"`
	ViaBridges bool       `json:"via_bridges"` // real `solgate mcp` processes, or socket clients
	Amounts    [][]uint64 `json:"amounts"`
}

// driverMsg is one line from the driver, or the bench's release.
type driverMsg struct {
	Ready bool `json:"ready,omitempty"`
	Go    bool `json:"go,omitempty"`
	// Answered are the proposal ids each agent was given, in its order.
	Answered [][]string `json:"answered,omitempty"`
	// Err is why the driver stopped, or an agent's first failed proposal.
	Err string `json:"err,omitempty"`
	// The driver's CPU (its MCP or socket clients) and its children's (the
	// bridges, accounted when they exited), sent last.
	SelfNS     int64 `json:"self_ns,omitempty"`
	ChildrenNS int64 `json:"children_ns,omitempty"`
	Done       bool  `json:"done,omitempty"`
}

// runAgentDriver is the driver's life: start the proposers, say ready, wait
// for the release, propose, report the answers, close the proposers (a
// bridge's CPU is accounted once it has exited) and report the CPU.
func runAgentDriver(in io.Reader, out io.Writer) error {
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	var job driverJob
	if err := dec.Decode(&job); err != nil {
		return fmt.Errorf("read the job: %w", err)
	}
	ctx := context.Background()
	agents, err := startProposers(ctx, job)
	if err != nil {
		_ = enc.Encode(driverMsg{Err: err.Error()})
		return err
	}
	if err := drive(ctx, agents, job, dec, enc); err != nil {
		closeProposers(agents)
		return err
	}
	closeProposers(agents)
	return enc.Encode(driverMsg{Done: true, SelfNS: int64(rusage(syscall.RUSAGE_SELF)), ChildrenNS: int64(rusage(syscall.RUSAGE_CHILDREN))})
}

// drive says ready, waits for the release, proposes and reports the
// answers; its caller closes the proposers either way.
func drive(ctx context.Context, agents []proposer, job driverJob, dec *json.Decoder, enc *json.Encoder) error {
	if err := enc.Encode(driverMsg{Ready: true}); err != nil {
		return err
	}
	var release driverMsg
	if err := dec.Decode(&release); err != nil || !release.Go {
		return fmt.Errorf("no release from the bench: %v", err)
	}
	answered, err := proposeAll(ctx, agents, job.To, job.Amounts)
	res := driverMsg{Answered: answered}
	if err != nil {
		res.Err = err.Error()
	}
	return enc.Encode(res)
}

// startProposers starts one proposer per amounts list, all at once.
func startProposers(ctx context.Context, job driverJob) ([]proposer, error) {
	agents := make([]proposer, len(job.Amounts))
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("bench-agent-%02d", i)
			if !job.ViaBridges {
				agents[i] = &socketAgent{c: mcpbridge.NewUnixHTTPClient(job.Socket, 60*time.Second), name: name}
				return
			}
			a, err := startAgent(ctx, job.Bin, job.Socket, name)
			if err == nil {
				agents[i] = a
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeProposers(agents)
		return nil, err
	}
	return agents, nil
}

func closeProposers(agents []proposer) {
	for _, a := range agents {
		if a != nil {
			a.close()
		}
	}
}

// proposeAll has every agent propose its amounts at once, each one after
// another, and returns the ids each was given and the first failure.
func proposeAll(ctx context.Context, agents []proposer, to string, amounts [][]uint64) ([][]string, error) {
	answered := make([][]string, len(agents))
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, l := range amounts[i] {
				id, err := a.propose(ctx, to, l)
				if err != nil {
					errs[i] = err
					return
				}
				answered[i] = append(answered[i], id)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return answered, err
		}
	}
	return answered, nil
}

// agentDriver is the bench's side of a driver process.
type agentDriver struct {
	cmd *exec.Cmd
	enc *json.Encoder
	dec *json.Decoder
}

// startAgentDriver starts the driver and returns once its proposers are
// ready (bridges started and initialised).
func startAgentDriver(job driverJob) (*agentDriver, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, agentDriverArg)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the agent driver: %w", err)
	}
	d := &agentDriver{cmd: cmd, enc: json.NewEncoder(in), dec: json.NewDecoder(out)}
	if err := d.enc.Encode(job); err != nil {
		d.kill()
		return nil, fmt.Errorf("agent driver: %w", err)
	}
	var m driverMsg
	if err := d.dec.Decode(&m); err != nil || !m.Ready {
		d.kill()
		if m.Err != "" {
			return nil, fmt.Errorf("agent driver: %s", m.Err)
		}
		return nil, fmt.Errorf("agent driver: not ready: %v", err)
	}
	return d, nil
}

// release lets every agent propose.
func (d *agentDriver) release() error { return d.enc.Encode(driverMsg{Go: true}) }

// answers waits until every agent has proposed its share (or one failed).
func (d *agentDriver) answers() (driverMsg, error) {
	var m driverMsg
	if err := d.dec.Decode(&m); err != nil {
		d.kill()
		return m, fmt.Errorf("agent driver: %w", err)
	}
	return m, nil
}

// finish waits for the driver to close its proposers and exit, and returns
// its CPU and its children's.
func (d *agentDriver) finish() (self, children time.Duration, err error) {
	var m driverMsg
	if err := d.dec.Decode(&m); err != nil || !m.Done {
		d.kill()
		return 0, 0, fmt.Errorf("agent driver: no CPU figures: %v", err)
	}
	if err := d.cmd.Wait(); err != nil {
		return 0, 0, fmt.Errorf("agent driver: %w", err)
	}
	return time.Duration(m.SelfNS), time.Duration(m.ChildrenNS), nil
}

func (d *agentDriver) kill() {
	_ = d.cmd.Process.Kill()
	_ = d.cmd.Wait()
}
