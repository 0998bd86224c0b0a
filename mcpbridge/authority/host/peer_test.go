package host

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// Field 22 of /proc/<pid>/stat is counted after the command name, which is
// in parentheses and may contain spaces and ')' (the process chooses it).
func TestParseStartTime(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want uint64
		bad  bool
	}{
		// proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt
		// cminflt majflt cmajflt utime stime cutime cstime priority nice
		// num_threads itrealvalue starttime ...
		{stat: "4242 (solgate) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 8 0 987654 1000000 500", want: 987654},
		{stat: "4242 (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 8 0 555 1000000 500", want: 555},
		{stat: "4242 (short) S 1 2 3", bad: true},
		{stat: "no parenthesis", bad: true},
	} {
		got, err := ParseStartTime([]byte(tc.stat))
		if tc.bad {
			if err == nil {
				t.Errorf("%q: got %d, want an error", tc.stat, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %d, %v; want %d", tc.stat, got, err, tc.want)
		}
	}
}

// Our own start time read through /proc is stable and not zero.
func TestProcStartTimeOfSelf(t *testing.T) {
	a, err := ProcStartTime(int32(os.Getpid()))
	if err != nil || a == 0 {
		t.Fatalf("start time of self: %d, %v", a, err)
	}
	b, _ := ProcStartTime(int32(os.Getpid()))
	if a != b {
		t.Fatalf("start time changed: %d then %d", a, b)
	}
	raw, _ := os.ReadFile("/proc/self/stat")
	if !strings.Contains(string(raw), " "+strconv.FormatUint(a, 10)+" ") {
		t.Fatalf("%d is not a field of %s", a, raw)
	}
}
