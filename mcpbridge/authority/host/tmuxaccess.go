package host

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A tmux server admits more than its owner when its server-access list says
// so (tmux 3.3: `server-access -a AGENT`), and every client attached to the
// console's session shows the console on a terminal of its own: a client
// attached later from a window the agent owns (`su console -c 'tmux
// attach'`) gives that window the console. The console asks its own tmux
// server both, when it may (the server's owner or root may; another user is
// refused by tmux, and then only the console's own terminal and its ancestry
// are judged).

// tmuxProgram is the tmux binary, looked up once and checked like every
// program the console runs; "" when there is none or it is not trusted.
var tmuxProgram = sync.OnceValue(func() string {
	p, err := exec.LookPath("tmux")
	if err != nil || CheckTrustedFile("tmux", p, false) != nil {
		return ""
	}
	return p
})

// tmuxRefused holds, per socket, when to ask a server that failed again.
var tmuxRefused sync.Map

const tmuxRetry = 10 * time.Second

// tmuxView asks the tmux server at socket for the terminals of the clients
// attached to session (all clients when session is "") and the uids its
// access list admits.
func tmuxView(socket, session string) (clients []TTY, access []uint32) {
	prog := tmuxProgram()
	if prog == "" || socket == "" {
		return nil, nil
	}
	// A server that refused the console (another user's) is asked again
	// only after tmuxRetry: the check runs twice a second.
	if until, ok := tmuxRefused.Load(socket); ok && time.Now().Before(until.(time.Time)) {
		return nil, nil
	}
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, prog, append([]string{"-S", socket}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err != nil {
			tmuxRefused.Store(socket, time.Now().Add(tmuxRetry))
			return ""
		}
		return string(out)
	}
	for _, l := range strings.Split(run("list-clients", "-F", "#{client_tty} #{session_id}"), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || session != "" && f[1] != session {
			continue
		}
		if t, ok := StatTTYPath(f[0]); ok {
			clients = append(clients, t)
		}
	}
	access = parseServerAccess(run("server-access", "-l"))
	return clients, access
}

// parseServerAccess reads `tmux server-access -l`: one "user (W)" or
// "user (R)" a line; a read-only user still sees the console.
func parseServerAccess(out string) []uint32 {
	var uids []uint32
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if u, err := user.Lookup(f[0]); err == nil {
			if n, err := strconv.ParseUint(u.Uid, 10, 32); err == nil {
				uids = append(uids, uint32(n))
			}
		}
	}
	return uids
}

// tmuxOf is the socket and session ("$N") of the tmux server the console
// runs in, from $TMUX ("socket,pid,N"), or from an ancestor that is a tmux
// server (sudo may have dropped $TMUX): its default socket.
func tmuxOf(getenv func(string) string, ancestors []Ancestor) (socket, session string) {
	if v := getenv("TMUX"); v != "" {
		f := strings.Split(v, ",")
		if len(f) == 3 {
			return f[0], "$" + f[2]
		}
		return f[0], ""
	}
	for _, a := range ancestors {
		if strings.HasPrefix(a.Comm, "tmux") {
			if p := ListeningSocketOf(a.PID); p != "" {
				return p, ""
			}
			p := "/tmp/tmux-" + strconv.FormatUint(uint64(a.UID), 10) + "/default"
			if _, err := os.Stat(p); err == nil {
				return p, ""
			}
		}
	}
	return "", ""
}

// RefreshTerminals reads again everything that can show the console or
// type into it: its terminal, the processes above it, its tmux server's
// clients and access list.
func (e *Exposure) RefreshTerminals(getenv func(string) string) {
	e.TTY = nil
	if t, ok := StatTTY(); ok {
		e.TTY = &t
	}
	e.Ancestors = Ancestry()
	e.TmuxClients, e.TmuxAccess = tmuxView(tmuxOf(getenv, e.Ancestors))
}

// LiveTerminalProblems says, one sentence each, how an admitted agent can
// reach the console's terminal now (RefreshTerminals, then
// TerminalProblems), leaving e as it was. The console calls it on every
// resize and resume, and on a short timer.
func (e *Exposure) LiveTerminalProblems(getenv func(string) string) []string {
	now := *e
	now.RefreshTerminals(getenv)
	return now.TerminalProblems()
}
