package host

import (
	"strings"
	"testing"
)

// Who can reach the console's terminal device, by owner, group and mode;
// each row spells the mode a real system gives (a pty is 0620, group tty 5).
func TestTerminalProblemsByOwnerGroupAndMode(t *testing.T) {
	const console, agent, ttyGroup, agentGroup = 1000, 1001, 5, 2001
	groups := func(uid uint32) []uint32 {
		if uid == agent {
			return []uint32{agentGroup}
		}
		return nil
	}
	for _, tc := range []struct {
		name  string
		tty   TTY
		adm   Admission
		terms []Terminal
		want  string // "" : no problem
	}{
		{"operator's own pty", TTY{Path: "/dev/pts/3", OwnerUID: console, GID: ttyGroup, Mode: 0o620}, Admission{UIDs: []uint32{agent}}, nil, ""},
		{"agent owns the pty", TTY{Path: "/dev/pts/3", OwnerUID: agent, GID: ttyGroup, Mode: 0o620}, Admission{UIDs: []uint32{agent}}, nil, "belongs to uid 1001"},
		{"agent's group can write", TTY{Path: "/dev/pts/3", OwnerUID: console, GID: agentGroup, Mode: 0o620}, Admission{UIDs: []uint32{agent}}, nil, "write it through its group"},
		{"group bits off", TTY{Path: "/dev/pts/3", OwnerUID: console, GID: agentGroup, Mode: 0o600}, Admission{UIDs: []uint32{agent}}, nil, ""},
		{"admitted gid can read and write", TTY{Path: "/dev/pts/3", OwnerUID: console, GID: agentGroup, Mode: 0o660}, Admission{GIDs: []uint32{agentGroup}}, nil, "which --allow-gid admits, read and write it"},
		{"owner is in an admitted group", TTY{Path: "/dev/pts/3", OwnerUID: agent, GID: ttyGroup, Mode: 0o600}, Admission{GIDs: []uint32{agentGroup}}, nil, "a member of group 2001, which --allow-gid admits"},
		{"everyone can write", TTY{Path: "/dev/pts/3", OwnerUID: console, GID: ttyGroup, Mode: 0o622}, Admission{UIDs: []uint32{agent}}, nil, "lets every user"},
		{"everyone can write, nobody admitted", TTY{Path: "/dev/pts/3", OwnerUID: console, GID: ttyGroup, Mode: 0o622}, Admission{}, nil, ""},
		{"agent's tmux server", TTY{Path: "/dev/pts/3", OwnerUID: console, GID: ttyGroup, Mode: 0o620}, Admission{UIDs: []uint32{agent}},
			[]Terminal{{Kind: "tmux", Path: "/tmp/tmux-1001/default", OwnerUID: agent, Known: true}}, "tmux server /tmp/tmux-1001/default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tty := tc.tty
			e := &Exposure{ConsoleUID: console, Admission: tc.adm, TTY: &tty, Terminals: tc.terms}
			got := strings.Join(e.terminalProblems(groups), "; ")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
