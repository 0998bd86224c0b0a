package authority

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// An agent with a shell runs as some user, and can do whatever that user can:
// read a key file, type into a tmux pane, read a process's memory, rewrite a
// database. Exposure is what the console knows about who can reach what it
// guards, so it can say so where the operator looks (the header, the log,
// `solgate console --check`) and where an honest agent looks
// (get_spend_status).

// The warnings, word for word as the operator sees them in the header.
const (
	WarnSameUser = "agent runs as your user: it can use the key without you"
	WarnTerminal = "the agent can type into this console"
)

// Exposure is gathered once when the console starts.
type Exposure struct {
	ConsoleUID uint32
	Key        FileFacts
	State      FileFacts
	Socket     string
	Admission  host.Admission
	Terminals  []Terminal
	Dumpable   bool
	// TTY is the terminal device on standard input; nil: none (terminal.go).
	TTY *host.TTY
	// SharedTerminal: --allow-shared-terminal overrides TerminalProblems,
	// with a warning for the whole session.
	SharedTerminal bool
	// Ancestors are the processes above the console (ancestry_linux.go).
	Ancestors []host.Ancestor
	// TmuxClients are the terminals of the clients attached to the tmux
	// server the console runs in, and TmuxAccess the users its
	// server-access list admits, as far as the console may ask it
	// (tmuxaccess.go).
	TmuxClients []host.TTY
	TmuxAccess  []uint32
}

// FileFacts is one file's owner and mode as stat saw them.
type FileFacts struct {
	Path     string
	OwnerUID uint32
	Mode     fs.FileMode
	Err      error // stat failed
}

// StatFile reads a file's owner and mode.
func StatFile(path string) FileFacts {
	f := FileFacts{Path: path}
	fi, err := os.Stat(path)
	if err != nil {
		f.Err = err
		return f
	}
	f.Mode = fi.Mode()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		f.OwnerUID = st.Uid
	}
	return f
}

// Terminal is something that can type into the console: the server of the
// tmux or screen session it runs in, or its terminal device. Whoever owns it
// can send keys.
type Terminal struct {
	Kind     string // "tmux", "screen" or "tty"
	Path     string
	OwnerUID uint32
	Known    bool // false: the console's user cannot stat it (so it is someone else's)
}

// DetectTerminals finds the console's terminals from $TMUX, $STY and its
// standard input. getenv is os.Getenv outside tests.
func DetectTerminals(getenv func(string) string) []Terminal {
	var out []Terminal
	add := func(kind, path string) {
		t := Terminal{Kind: kind, Path: path}
		if f := StatFile(path); f.Err == nil {
			t.OwnerUID, t.Known = f.OwnerUID, true
		} else if uid, ok := ownerFromDirName(path); ok {
			// Another user's socket directory cannot be entered, but tmux
			// names it after its owner's uid (tmux-<uid>), screen after
			// the name (S-<user>).
			t.OwnerUID, t.Known = uid, true
		}
		out = append(out, t)
	}
	// $TMUX is "socket,pid,session".
	if v := getenv("TMUX"); v != "" {
		add("tmux", strings.SplitN(v, ",", 2)[0])
	}
	// $STY is "pid.tty.host"; the socket lives in the starting user's
	// screen directory, which only that user can enter.
	if sty := getenv("STY"); sty != "" && !strings.ContainsRune(sty, '/') {
		dirs := []string{getenv("SCREENDIR")}
		for _, pat := range []string{"/run/screen/S-*", "/var/run/screen/S-*", "/tmp/screens/S-*"} {
			m, _ := filepath.Glob(pat)
			dirs = append(dirs, m...)
		}
		path := "session " + sty
		for _, d := range dirs {
			if p := filepath.Join(d, sty); d != "" && StatFile(p).Err == nil {
				path = p
				break
			}
		}
		add("screen", path)
	}
	if tty, ok := host.StdinTerminal(); ok {
		add("tty", tty)
	}
	return out
}

// ownerFromDirName reads the owner from a tmux or screen socket directory's
// name.
func ownerFromDirName(path string) (uint32, bool) {
	base := filepath.Base(filepath.Dir(path))
	if rest, ok := strings.CutPrefix(base, "tmux-"); ok {
		if uid, err := strconv.ParseUint(rest, 10, 32); err == nil {
			return uint32(uid), true
		}
	}
	if name, ok := strings.CutPrefix(base, "S-"); ok {
		if u, err := user.Lookup(name); err == nil {
			if uid, err := strconv.ParseUint(u.Uid, 10, 32); err == nil {
				return uint32(uid), true
			}
		}
	}
	return 0, false
}

// ReachableBy lists the tmux and screen servers uid owns: one command
// (tmux send-keys, screen -X stuff) types into the console. The terminal
// device itself is judged by TerminalProblems (terminal.go), which also
// looks at its group and mode.
func (e *Exposure) ReachableBy(uid uint32) []Terminal {
	var out []Terminal
	for _, t := range e.Terminals {
		if t.Known && t.OwnerUID == uid && t.Kind != "tty" {
			out = append(out, t)
		}
	}
	return out
}

// Report is the situation in plain lines, for `solgate console --check`
// and get_spend_status.
func (e *Exposure) Report() []string {
	lines := []string{"console runs as " + host.UserName(e.ConsoleUID)}
	lines = append(lines, fileLine("key", e.Key))
	if errors.Is(e.State.Err, fs.ErrNotExist) {
		lines = append(lines, "state dir "+e.State.Path+": does not exist yet: the console creates it with mode 0700")
	} else {
		lines = append(lines, fileLine("state dir", e.State))
	}
	if e.Dumpable {
		lines = append(lines, "process memory: dumpable: another process of "+host.UserName(e.ConsoleUID)+" could read it")
	} else {
		lines = append(lines, "process memory: "+host.UndumpableText)
	}
	lines = append(lines, "bridges admitted: "+e.admittedText())
	if e.Socket != "" {
		mode, gid := e.Admission.SocketDirMode()
		l := fmt.Sprintf("socket %s: directory mode %04o", e.Socket, mode)
		if gid >= 0 {
			l += fmt.Sprintf(", group %d", gid)
		}
		if !e.Admission.Empty() {
			l = fmt.Sprintf("socket %s: the directory gets an ACL naming exactly the admitted users (mode 0710) where the filesystem has ACLs and the directory is not open to others; else directory mode %04o", e.Socket, mode)
			if gid >= 0 {
				l += fmt.Sprintf(", group %d", gid)
			}
			l += "; SO_PEERCRED checks every connection either way"
		}
		lines = append(lines, l)
	}
	if len(e.Terminals) == 0 {
		lines = append(lines, "terminal: none found")
	}
	for _, t := range e.Terminals {
		l := "terminal: " + t.Kind + " " + t.Path
		switch {
		case !t.Known:
			l += ": owner unknown (the console's user cannot stat it, so it belongs to someone else)"
		case t.OwnerUID == e.ConsoleUID:
			l += ": owned by " + host.UserName(t.OwnerUID) + " (the console's user)"
		case slices.Contains(e.Admission.UIDs, t.OwnerUID) && t.Kind == "tty":
			l += ": owned by " + host.UserName(t.OwnerUID) + ", an admitted agent user: it can write to and read from this terminal, so the console refuses to start here unless --allow-shared-terminal"
		case slices.Contains(e.Admission.UIDs, t.OwnerUID):
			l += ": owned by " + host.UserName(t.OwnerUID) + ", an admitted agent user: " + WarnTerminal
		default:
			l += ": owned by " + host.UserName(t.OwnerUID)
		}
		lines = append(lines, l)
	}
	return lines
}

func (e *Exposure) admittedText() string {
	parts := []string{"the console's own user (" + host.UserName(e.ConsoleUID) + ")"}
	for _, u := range e.Admission.UIDs {
		parts = append(parts, host.UserName(u))
	}
	for _, g := range e.Admission.GIDs {
		name := strconv.FormatUint(uint64(g), 10)
		if gr, err := user.LookupGroupId(name); err == nil {
			name = gr.Name + " (gid " + name + ")"
		} else {
			name = "gid " + name
		}
		parts = append(parts, "members of group "+name)
	}
	return strings.Join(parts, ", ")
}

func (e *Exposure) structured(warnings []string) map[string]any {
	file := func(f FileFacts) map[string]any {
		m := map[string]any{"path": f.Path}
		if f.Err != nil {
			m["error"] = f.Err.Error()
		} else {
			m["owner_uid"], m["mode"] = f.OwnerUID, fmt.Sprintf("%04o", f.Mode.Perm())
		}
		return m
	}
	terms := []map[string]any{}
	for _, t := range e.Terminals {
		m := map[string]any{"kind": t.Kind, "path": t.Path}
		if t.Known {
			m["owner_uid"] = t.OwnerUID
		}
		terms = append(terms, m)
	}
	return map[string]any{
		"console_uid": e.ConsoleUID,
		"key":         file(e.Key),
		"state_dir":   file(e.State),
		"dumpable":    e.Dumpable,
		"allow_uids":  append([]uint32{}, e.Admission.UIDs...),
		"allow_gids":  append([]uint32{}, e.Admission.GIDs...),
		"terminals":   terms,
		"warnings":    append([]string{}, warnings...),
	}
}

func fileLine(what string, f FileFacts) string {
	if f.Err != nil {
		return what + " " + f.Path + ": " + f.Err.Error()
	}
	l := fmt.Sprintf("%s %s: owner %s, mode %04o", what, f.Path, host.UserName(f.OwnerUID), f.Mode.Perm())
	if f.Mode.Perm()&0o077 != 0 {
		l += " (others can reach it)"
	}
	return l
}

// seePeer notes who is on the other end of a bridge's request: a bridge of
// the console's own user, and a user who owns the console's terminal, each
// raise a warning that stays for the rest of the session. A request is
// answered only after its peer's warnings are raised, so get_spend_status
// never misses them.
func (h *Hub) seePeer(ctx context.Context) {
	cred, ok := host.PeerCredFromContext(ctx)
	if !ok {
		return
	}
	h.mu.Lock()
	seen := h.peerUIDs[cred.UID]
	h.mu.Unlock()
	if seen {
		return
	}
	var raise []warning
	if cred.UID == h.consoleUID {
		raise = append(raise, warning{WarnSameUser, fmt.Sprintf("a bridge (pid %d) runs as %s, the console's own user: that user can read the key file and use it without you", cred.PID, host.UserName(cred.UID))})
	}
	if e := h.opts.Exposure; e != nil {
		for _, t := range e.ReachableBy(cred.UID) {
			raise = append(raise, warning{WarnTerminal, fmt.Sprintf("the console's %s %s belongs to %s, whose bridge (pid %d) is connected: that user can send keys to this console", t.Kind, t.Path, host.UserName(cred.UID), cred.PID)})
		}
	}
	// Marked seen together with raising: a second request of this user
	// returns early only once the warnings are in place.
	h.mu.Lock()
	h.peerUIDs[cred.UID] = true
	fresh := h.addWarningsLocked(raise)
	h.mu.Unlock()
	h.announce(fresh)
}

type warning struct{ text, detail string }

// warn raises persistent warnings, each once, logs them with their detail,
// and tells the console.
func (h *Hub) warn(ws ...warning) {
	h.mu.Lock()
	fresh := h.addWarningsLocked(ws)
	h.mu.Unlock()
	h.announce(fresh)
}

// addWarningsLocked records the warnings not raised before and returns them.
func (h *Hub) addWarningsLocked(ws []warning) (fresh []warning) {
	for _, w := range ws {
		if !slices.Contains(h.warnings, w.text) {
			h.warnings = append(h.warnings, w.text)
			fresh = append(fresh, w)
		}
	}
	return fresh
}

func (h *Hub) announce(ws []warning) {
	for _, w := range ws {
		h.log.Warn(w.text, "detail", w.detail)
		h.events.publish(Event{Kind: EventWarning, At: h.opts.Now(), Message: w.text + ": " + w.detail})
	}
}

// Warnings are the persistent warnings raised so far, oldest first.
func (h *Hub) Warnings() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.warnings)
}

// startupWarnings raises what is known before any bridge connects: a
// terminal owned by a user admitted by uid.
func (h *Hub) startupWarnings() {
	e := h.opts.Exposure
	if e == nil {
		return
	}
	h.sharedTerminalWarning()
	for _, uid := range e.Admission.UIDs {
		for _, t := range e.ReachableBy(uid) {
			h.warn(warning{WarnTerminal, fmt.Sprintf("the console's %s %s belongs to %s, which --allow-uid admits as an agent: that user can send keys to this console", t.Kind, t.Path, host.UserName(uid))})
		}
	}
}
