package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// StartWithSocketpairs starts cmd with its stdin and stdout connected as
// Node's child_process connects a child's (libuv makes each a Unix
// socketpair), which is how the TypeScript MCP SDK, and with it Claude
// Desktop, Claude Code, Cursor and the Inspector, start `solgate mcp`.
// os/exec, mcp-go's client and Python's subprocess use pipes instead. It
// returns the caller's ends: closing stdin is the child's EOF, and stdout
// reads EOF once the child has exited. The caller waits for cmd.
func StartWithSocketpairs(cmd *exec.Cmd) (stdin, stdout *os.File, err error) {
	pair := func(name string) (ours, theirs *os.File, err error) {
		// Close-on-exec under ForkLock (macOS has no SOCK_CLOEXEC), so no
		// child started meanwhile inherits them.
		syscall.ForkLock.RLock()
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err == nil {
			syscall.CloseOnExec(fds[0])
			syscall.CloseOnExec(fds[1])
		}
		syscall.ForkLock.RUnlock()
		if err != nil {
			return nil, nil, fmt.Errorf("socketpair for %s: %w", name, err)
		}
		return os.NewFile(uintptr(fds[0]), name), os.NewFile(uintptr(fds[1]), name), nil
	}
	stdin, childIn, err := pair("stdin")
	if err != nil {
		return nil, nil, err
	}
	stdout, childOut, err := pair("stdout")
	if err != nil {
		stdin.Close()
		childIn.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	err = cmd.Start()
	// The child holds its own copies now; ours would keep its stdin open
	// and our stdout from reading EOF.
	childIn.Close()
	childOut.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, nil, err
	}
	return stdin, stdout, nil
}
