package host

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// The console runs one program on the operator's behalf (--notify-command),
// as the console's user, who can read the key. A shell line would make every
// word a lookup the console cannot vouch for: `sh AGENT.sh`, `. AGENT.sh`,
// `cd D && ./x` and `true; AGENT.sh` each run a file that no check looked at.
// So the command is a program and fixed arguments, run without a shell; the
// program's path is resolved once, at start, checked to the root like every
// trusted file, checked again before each run, and executed from the file
// descriptor that was checked, so no second path lookup can swap it.

// shellMeta are the characters that only mean something to a shell.
const shellMeta = ";&|<>()$`\\\"'*?[]{}#~!\n\r"

// interpreters are programs that run whatever their arguments name or say
// (a script path, a -c string, another program looked up in PATH): as the
// notify program they would run a file nobody checked. Matched on the base
// name of the program with links resolved and a version suffix removed
// (python3.12 → python).
var interpreters = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "yash": true, "fish": true,
	"csh": true, "tcsh": true, "busybox": true, "env": true, "python": true, "perl": true, "ruby": true,
	"node": true, "nodejs": true, "php": true, "lua": true, "tclsh": true, "wish": true, "awk": true, "gawk": true,
	"mawk": true, "nawk": true, "expect": true, "xargs": true, "nohup": true, "setsid": true, "timeout": true,
	"nice": true, "ionice": true, "stdbuf": true, "chrt": true, "taskset": true, "sudo": true, "su": true,
	"doas": true, "runuser": true, "setpriv": true, "watch": true, "script": true, "flock": true, "strace": true,
}

var versionSuffix = regexp.MustCompile(`[0-9.]+$`)

// TrustedCommand is a program with fixed arguments that the console runs
// without a shell.
type TrustedCommand struct {
	what    string   // the setting, for errors: "--notify-command"
	line    string   // as given
	program string   // absolute, links resolved at start
	args    []string // argv[1:]
	files   []string // arguments that name files: checked like the program
}

// ParseTrustedCommand reads line as a program and its arguments, separated
// by spaces, and checks them (see Check). A line that needs a shell (any of
// its characters, a builtin, an interpreter as the program) is refused with
// the fix. "" gives nil: no command.
func ParseTrustedCommand(what, line string) (*TrustedCommand, error) {
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil, nil
	}
	fix := fmt.Sprintf("put what you want run in a script of your own (starting with a #! line, chmod 700, in a directory only you and root can write) and give its path, plus fixed arguments if any: %s /home/you/bin/solgate-notify", what)
	if i := strings.IndexAny(line, shellMeta); i >= 0 {
		return nil, fmt.Errorf("%s %q is a shell command line (it uses %q): the console runs a program with fixed arguments, never through a shell. Fix: %s", what, line, line[i:i+1], fix)
	}
	if strings.Contains(words[0], "=") {
		return nil, fmt.Errorf("%s %q starts with a variable assignment, which only a shell understands: the console runs a program with fixed arguments. Fix: %s", what, line, fix)
	}
	prog := words[0]
	if !strings.Contains(prog, "/") {
		// PATH is read once, here; each run uses the resolved file.
		p, err := exec.LookPath(prog)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %q is not a program on PATH (a shell builtin such as cd or . needs a shell, which the console does not use). Fix: %s", what, line, prog, fix)
		}
		prog = p
	}
	abs, err := filepath.Abs(prog)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", what, line, err)
	}
	real, err := CheckTrustedPath(what+": the program", abs)
	if err != nil {
		return nil, err
	}
	if name := versionSuffix.ReplaceAllString(filepath.Base(real), ""); interpreters[name] {
		return nil, fmt.Errorf("%s %q runs %s, which runs whatever its arguments name, so the console could not check what it runs. Fix: %s", what, line, real, fix)
	}
	c := &TrustedCommand{what: what, line: line, program: real, args: words[1:]}
	for _, a := range c.args {
		if f, ok := argFile(a); ok {
			c.files = append(c.files, f)
		}
	}
	if err := c.Check(); err != nil {
		return nil, err
	}
	return c, nil
}

// argFile reports the file an argument names: any argument with a slash, or
// a file of that name in the working directory; an option (-x, --x=/y) is
// the program's to read.
func argFile(a string) (string, bool) {
	if strings.HasPrefix(a, "-") {
		return "", false
	}
	if strings.Contains(a, "/") {
		p, err := filepath.Abs(a)
		return p, err == nil
	}
	if _, err := os.Lstat(a); err == nil {
		p, err := filepath.Abs(a)
		return p, err == nil
	}
	return "", false
}

// Program is the resolved program, for the report.
func (c *TrustedCommand) Program() string { return c.program }

// String is the command as given.
func (c *TrustedCommand) String() string { return c.line }

// Check checks the program, the interpreter its #! line names, and every
// file an argument names: each, and every directory on the way to it, must
// be the console's user's or root's alone.
func (c *TrustedCommand) Check() error {
	if err := CheckTrustedFile(c.what+": the program", c.program, false); err != nil {
		return err
	}
	if interp := shebang(c.program); interp != "" {
		if err := CheckTrustedFile(c.what+": the interpreter of "+c.program, interp, false); err != nil {
			return err
		}
	}
	for _, f := range c.files {
		if _, err := os.Stat(f); errors.Is(err, os.ErrNotExist) {
			// Not a file (yet): nothing to swap, and the program decides
			// what it means; its directories still must be trusted.
			if _, err := CheckTrustedPath(c.what+": the argument", f); err != nil {
				return err
			}
			continue
		}
		if err := CheckTrustedFile(c.what+": the argument", f, false); err != nil {
			return err
		}
	}
	return nil
}

// shebangMax is as much of a script as Linux reads for its #! line
// (BINPRM_BUF_SIZE): the line is not looked for further, in a program that
// may be large and hold no newline.
const shebangMax = 256

// shebang is the interpreter a script's #! line names, or "". Only a
// regular file is opened (a FIFO would wait for a writer), and only if it is
// still the file looked at (openLookedAt).
func shebang(path string) string {
	seen, err := os.Lstat(path)
	if err != nil || !seen.Mode().IsRegular() {
		return ""
	}
	f, _, err := openLookedAt(path, seen, os.O_RDONLY|syscall.O_NOFOLLOW)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, shebangMax)).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	if words := strings.Fields(rest); len(words) > 0 && filepath.IsAbs(words[0]) {
		return words[0]
	}
	return ""
}

// Cmd checks the command again (a directory above it may have changed since
// start), opens the program without following a link, checks the opened file
// itself, and returns a command that executes that very file (through its
// descriptor, fd 3 in the child) with the fixed arguments. done closes the
// descriptor: call it once the command has started or failed.
func (c *TrustedCommand) Cmd(ctx context.Context) (_ *exec.Cmd, done func(), err error) {
	if err := c.Check(); err != nil {
		return nil, nil, err
	}
	fd, err := syscall.Open(c.program, openProgramFlags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: open the program %s: %w", c.what, c.program, err)
	}
	f := os.NewFile(uintptr(fd), c.program)
	fi, err := f.Stat()
	if err == nil {
		err = checkTrustedFileInfo(c.what+": the program", c.program, fi, uint32(os.Geteuid()), false)
	}
	if err == nil && (!fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0) {
		err = fmt.Errorf("%s: the program %s is not an executable file (mode %s)", c.what, c.program, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, c.program, c.args...)
	cmd.Path = execFD3 // the child's fd 3 is f: ExtraFiles[0]
	cmd.Args[0] = c.program
	cmd.ExtraFiles = []*os.File{f}
	return cmd, func() { f.Close() }, nil
}
