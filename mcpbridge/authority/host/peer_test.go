package host

import (
	"os"
	"slices"
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

// The Groups line of /proc/<pid>/status is read whatever its spacing; a
// status without one, or with a field that is not a gid, is an error rather
// than a process without groups.
func TestParseStatusGroups(t *testing.T) {
	for _, tc := range []struct {
		name, status string
		want         []uint32
		bad          bool
	}{
		{name: "as the kernel writes it", status: "Name:\tsolgate\nUid:\t1000\t1000\t1000\t1000\nGroups:\t4 24 27 1000 \nNStgid:\t42\n", want: []uint32{4, 24, 27, 1000}},
		{name: "odd whitespace", status: "Groups:  \t7\t\t 4294967294   8\t\n", want: []uint32{7, 4294967294, 8}},
		{name: "last line without newline", status: "Uid:\t0\nGroups:\t0 1", want: []uint32{0, 1}},
		// The process chooses its name (the kernel escapes a newline in it).
		{name: "a process named like the line", status: "Name:\tGroups: 0\nGroups:\t1000\n", want: []uint32{1000}},
		{name: "no supplementary groups", status: "Gid:\t0\t0\t0\t0\nGroups:\t\nNStgid:\t1\n", want: []uint32{}},
		{name: "no Groups line", status: "Name:\tx\nGid:\t0\t0\t0\t0\n", bad: true},
		{name: "empty", status: "", bad: true},
		{name: "not a number", status: "Groups:\t4 wheel 27\n", bad: true},
		{name: "negative", status: "Groups:\t-1\n", bad: true},
		{name: "beyond 32 bits", status: "Groups:\t4294967296\n", bad: true},
	} {
		got, err := ParseStatusGroups([]byte(tc.status))
		if tc.bad {
			if err == nil {
				t.Errorf("%s: got %v, want an error", tc.name, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
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
