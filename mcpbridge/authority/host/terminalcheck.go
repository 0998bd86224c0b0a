package host

import (
	"fmt"
	"io/fs"
	"slices"
)

// The console's own terminal is the one channel to the operator: what it
// shows is what the operator approves, and what is typed into it decides.
// Whoever can write to that terminal device can repaint an amount (Bubble
// Tea redraws only changed lines, so the fake text stays); whoever can read
// it takes keys before the console sees them. An admitted agent user who
// owns or can open the device, or who owns the tmux or screen server the
// console runs in, defeats the whole separation, so the console refuses to
// start unless --allow-shared-terminal says the operator accepts that.

// WarnSharedTerminal is the header line for the whole session when the
// operator started the console with --allow-shared-terminal over a problem.
const WarnSharedTerminal = "--allow-shared-terminal: an admitted agent can read and type into this console's terminal"

// TerminalFix is the remedy the refusal names.
const TerminalFix = "run the console in a terminal of your own that the agent's account cannot open: start the agent under its own account " +
	"(e.g. `sudo -u agent claude`, or a container with only the socket mounted) and keep this terminal, its tmux or screen server and your home yours; " +
	"or start the console with --allow-shared-terminal to accept that the agent can see and fake what you approve"

// TerminalProblems lists, one sentence each, how an admitted agent user can
// reach the console's terminal: owning the device, opening it through its
// group or other bits, or owning the tmux or screen server. Empty: the
// terminal is the operator's alone (as far as modes tell). The console's own
// user is not counted here: same-user mode has its own warning.
func (e *Exposure) TerminalProblems() []string {
	return e.terminalProblems(GroupsOfUID)
}

func (e *Exposure) terminalProblems(groupsOf func(uint32) []uint32) []string {
	var out []string
	seen := map[string]bool{}
	if t := e.TTY; t != nil {
		seen[t.Path] = true
		out = append(out, e.ttyProblems(*t, "", groupsOf)...)
	}
	// The terminals held above the console: the window around sudo or su.
	for _, a := range e.Ancestors {
		proc := fmt.Sprintf("process %d (%s) above the console", a.PID, a.Comm)
		for _, uid := range []uint32{a.UID, a.EUID} {
			if uid != e.ConsoleUID && slices.Contains(e.Admission.UIDs, uid) {
				out = append(out, fmt.Sprintf("the %s runs as %s, which --allow-uid admits as an agent: it holds the console's input and output", proc, UserName(uid)))
				break
			}
		}
		for _, t := range a.TTYs {
			if seen[t.Path] {
				continue
			}
			seen[t.Path] = true
			out = append(out, e.ttyProblems(t, ", held by the "+proc+",", groupsOf)...)
		}
	}
	for _, t := range e.Terminals {
		if t.Kind == "tty" || !t.Known || t.OwnerUID == e.ConsoleUID || !slices.Contains(e.Admission.UIDs, t.OwnerUID) {
			continue
		}
		out = append(out, fmt.Sprintf("the console runs in the %s server %s of %s, which --allow-uid admits as an agent: one command of that user types into it", t.Kind, t.Path, UserName(t.OwnerUID)))
	}
	for _, c := range e.TmuxClients {
		if seen[c.Path] {
			continue
		}
		seen[c.Path] = true
		out = append(out, e.ttyProblems(c, ", a tmux client showing the console,", groupsOf)...)
	}
	for _, uid := range e.TmuxAccess {
		if uid != e.ConsoleUID && slices.Contains(e.Admission.UIDs, uid) {
			out = append(out, fmt.Sprintf("the tmux server the console runs in lets %s, which --allow-uid admits as an agent, attach (server-access): it can type into the console", UserName(uid)))
		}
	}
	return out
}

// ttyProblems judges one terminal device; held says who holds it when it is
// not the console's own ("" for the console's own).
func (e *Exposure) ttyProblems(t TTY, held string, groupsOf func(uint32) []uint32) []string {
	var out []string
	access := func(bits fs.FileMode, r, w fs.FileMode) string {
		switch {
		case bits&r != 0 && bits&w != 0:
			return "read and write"
		case bits&r != 0:
			return "read"
		}
		return "write"
	}
	name := "the terminal " + t.Path + held
	for _, uid := range e.Admission.UIDs {
		if uid == e.ConsoleUID {
			continue
		}
		who := UserName(uid) + ", which --allow-uid admits as an agent"
		switch {
		case t.OwnerUID == uid:
			out = append(out, fmt.Sprintf("%s belongs to %s: it can repaint what the console shows and read the keys you type", name, who))
		case t.Mode&0o060 != 0 && slices.Contains(groupsOf(uid), t.GID):
			out = append(out, fmt.Sprintf("%s (mode %04o, group %d) lets %s %s it through its group", name, t.Mode, t.GID, who, access(t.Mode, 0o040, 0o020)))
		}
	}
	if t.OwnerUID != e.ConsoleUID && !slices.Contains(e.Admission.UIDs, t.OwnerUID) {
		for _, g := range groupsOf(t.OwnerUID) {
			if slices.Contains(e.Admission.GIDs, g) {
				out = append(out, fmt.Sprintf("%s belongs to %s, a member of group %d, which --allow-gid admits as agents: it can repaint what the console shows and read the keys you type", name, UserName(t.OwnerUID), g))
				break
			}
		}
	}
	for _, gid := range e.Admission.GIDs {
		if t.GID == gid && t.Mode&0o060 != 0 {
			out = append(out, fmt.Sprintf("%s (mode %04o) lets group %d, which --allow-gid admits, %s it", name, t.Mode, gid, access(t.Mode, 0o040, 0o020)))
		}
	}
	if t.Mode&0o006 != 0 && !e.Admission.Empty() {
		out = append(out, fmt.Sprintf("%s (mode %04o) lets every user, the admitted agents too, %s it", name, t.Mode, access(t.Mode, 0o004, 0o002)))
	}
	return out
}
