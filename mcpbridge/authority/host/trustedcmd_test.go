package host

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// The notify command is a program and fixed arguments. Each of the shell
// lines an agent used to run its own file (issue 33) is refused at start,
// naming the fix.
func TestNotifyCommandIsNotAShellLine(t *testing.T) {
	dir := t.TempDir()
	agentScript := writeProgram(t, filepath.Join(dir, "AGENT.sh"), "exit 0")
	for _, tc := range []struct{ line, want string }{
		{"sh " + agentScript, "which runs whatever its arguments name"},
		{"/bin/bash -c id", "which runs whatever its arguments name"},
		{"env " + agentScript, "which runs whatever its arguments name"},
		{". " + agentScript, `"." is not a program on PATH`},
		{"cd " + dir + " && ./AGENT.sh", `is a shell command line (it uses "&")`},
		{"true; " + agentScript, `is a shell command line (it uses ";")`},
		{"FOO=1 " + agentScript, "starts with a variable assignment"},
		{agentScript + " $(id)", `is a shell command line (it uses "$")`},
		{agentScript + " > /tmp/x", `is a shell command line (it uses ">")`},
	} {
		_, err := ParseTrustedCommand("--notify-command", tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Fix: put what you want run in a script of your own") {
			t.Errorf("%q: %v, want %q and the fix", tc.line, err, tc.want)
		}
	}
	// The control: the script itself, with fixed arguments.
	c, err := ParseTrustedCommand("--notify-command", agentScript+" --now quietly")
	if err != nil {
		t.Fatalf("a private script with fixed arguments: %v", err)
	}
	if c.Program() != agentScript {
		t.Fatalf("program %q", c.Program())
	}
}

// The command runs without a shell, from the descriptor that was checked:
// a program swapped in under the same name after the check (by the
// console's own user: nobody else can, the directories being checked) does
// not run. A directory above it that changes hands after start makes the
// next run refuse.
func TestNotifyCommandRunsTheCheckedFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	prog := writeProgram(t, filepath.Join(dir, "notify"), `printf '%s|' "$0" "$@" > `+out)
	if _, err := ParseTrustedCommand("--notify-command", prog+" one two*"); err == nil {
		t.Fatal("a * was accepted")
	}
	if _, err := ParseTrustedCommand("--notify-command", prog+" one ${x}x"); err == nil {
		t.Fatal("a $ was accepted")
	}
	c, err := ParseTrustedCommand("--notify-command", prog+" one two")
	if err != nil {
		t.Fatal(err)
	}
	cmd, done, err := c.Cmd(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The swap between check and exec: a new file under the same name.
	swapped := writeProgram(t, filepath.Join(dir, "swapped"), `echo swapped > `+out)
	if err := os.Rename(swapped, prog); err != nil {
		t.Fatal(err)
	}
	runErr := cmd.Run()
	done()
	if runErr != nil {
		t.Fatalf("run: %v", runErr)
	}
	got, _ := os.ReadFile(out)
	if !strings.HasSuffix(string(got), "|one|two|") {
		t.Fatalf("the command wrote %q, want the checked program's output with its two arguments", got)
	}
	// A directory above it opens to everyone after start: refused before run.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Remove(out))
	must(os.Chmod(dir, 0o777))
	if _, _, err := c.Cmd(context.Background()); err == nil || !strings.Contains(err.Error(), "the directory "+dir+" is writable by group or others (mode 0777)") {
		t.Fatalf("run after the directory opened: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the command ran")
	}
}

// A FIFO as the program: checking it for a #! line does not open it (that
// would wait for a writer; a hang fails the test by its timeout), and it is
// never run, not being an executable file.
func TestNotifyCommandThatIsAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "notify")
	if err := syscall.Mkfifo(fifo, 0o700); err != nil {
		t.Fatal(err)
	}
	if interp := shebang(fifo); interp != "" {
		t.Fatalf("a FIFO's interpreter: %q", interp)
	}
	c, err := ParseTrustedCommand("--notify-command", fifo)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Cmd(context.Background()); err == nil || !strings.Contains(err.Error(), "the program "+fifo+" is not an executable file") {
		t.Fatalf("run of a FIFO: %v", err)
	}
}

// The #! line is looked for in the first shebangMax bytes only, as the
// kernel does: a large program with no newline (sparse zeros here) is not
// read into memory to find the end of its first line.
func TestShebangReadsOnlyTheKernelsBuffer(t *testing.T) {
	dir := t.TempDir()
	script := writeProgram(t, filepath.Join(dir, "notify"), "exit 0")
	if interp := shebang(script); interp != "/bin/sh" {
		t.Fatalf("a script's interpreter: %q, want /bin/sh", interp)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte("#!/bin/sh"), 0o700); err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	if err := os.Truncate(big, size); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	shebang(big)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > size/4 {
		t.Fatalf("looking for the #! line of a %d-byte file without a newline allocated %d bytes", size, grew)
	}
}
