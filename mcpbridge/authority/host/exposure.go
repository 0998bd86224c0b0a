package host

import (
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
	Admission  Admission
	Terminals  []Terminal
	Dumpable   bool
	// TTY is the terminal device on standard input; nil: none (terminal.go).
	TTY *TTY
	// SharedTerminal: --allow-shared-terminal overrides TerminalProblems,
	// with a warning for the whole session.
	SharedTerminal bool
	// Ancestors are the processes above the console (ancestry_linux.go).
	Ancestors []Ancestor
	// TmuxClients are the terminals of the clients attached to the tmux
	// server the console runs in, and TmuxAccess the users its
	// server-access list admits, as far as the console may ask it
	// (tmuxaccess.go).
	TmuxClients []TTY
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
	if tty, ok := StdinTerminal(); ok {
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
	lines := []string{"console runs as " + UserName(e.ConsoleUID)}
	lines = append(lines, fileLine("key", e.Key))
	if errors.Is(e.State.Err, fs.ErrNotExist) {
		lines = append(lines, "state dir "+e.State.Path+": does not exist yet: the console creates it with mode 0700")
	} else {
		lines = append(lines, fileLine("state dir", e.State))
	}
	if e.Dumpable {
		lines = append(lines, "process memory: dumpable: another process of "+UserName(e.ConsoleUID)+" could read it")
	} else {
		lines = append(lines, "process memory: "+UndumpableText)
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
			l += ": owned by " + UserName(t.OwnerUID) + " (the console's user)"
		case slices.Contains(e.Admission.UIDs, t.OwnerUID) && t.Kind == "tty":
			l += ": owned by " + UserName(t.OwnerUID) + ", an admitted agent user: it can write to and read from this terminal, so the console refuses to start here unless --allow-shared-terminal"
		case slices.Contains(e.Admission.UIDs, t.OwnerUID):
			l += ": owned by " + UserName(t.OwnerUID) + ", an admitted agent user: " + WarnTerminal
		default:
			l += ": owned by " + UserName(t.OwnerUID)
		}
		lines = append(lines, l)
	}
	return lines
}

func (e *Exposure) admittedText() string {
	parts := []string{"the console's own user (" + UserName(e.ConsoleUID) + ")"}
	for _, u := range e.Admission.UIDs {
		parts = append(parts, UserName(u))
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

func (e *Exposure) Structured(warnings []string) map[string]any {
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
	l := fmt.Sprintf("%s %s: owner %s, mode %04o", what, f.Path, UserName(f.OwnerUID), f.Mode.Perm())
	if f.Mode.Perm()&0o077 != 0 {
		l += " (others can reach it)"
	}
	return l
}
