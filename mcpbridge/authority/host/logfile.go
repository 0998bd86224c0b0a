package host

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The console's log must never stand between the operator and a decision:
// an approval logs a line, and a full disk (ENOSPC) or a stuck one must
// neither block it nor fail it. So lines go through a bounded queue to one
// writer goroutine; when the queue is full, lines are dropped and counted,
// and the count is written once the disk takes lines again. The file
// rotates at a size cap (the old files are kept beside it, up to a count),
// and before each rotation opens a new file, the way to it is checked again
// like every trusted path: a directory that changed hands stops the log
// (counted as dropped) rather than writing where someone else chose. Lines
// go only to a file OpenLogFile opened and checked, never to one opened
// again by name: a link or a FIFO put there after the check would be
// written through or waited on.

const (
	// DefaultLogMaxMiB is the size at which the log rotates.
	DefaultLogMaxMiB = 10
	// DefaultLogBackups is how many rotated logs are kept.
	DefaultLogBackups = 3
	// logQueue bounds the lines waiting for the disk.
	logQueue = 1024
	// logCloseWait bounds how long Close waits for a stuck disk.
	logCloseWait = 2 * time.Second
)

// LogOptions size the log; zero values: the defaults.
type LogOptions struct {
	MaxMiB  int
	Backups int
	// maxBytes overrides MaxMiB in bytes (tests rotate without writing
	// megabytes).
	maxBytes int64
}

// Log is the console's log file. Write never blocks and never fails.
type Log struct {
	what, path string
	out        rotatingWriter
	max        int64
	size       int64 // written to the current file; the writer goroutine's own
	q          chan []byte
	dropped    atomic.Uint64
	pending    atomic.Int64 // lines queued and not yet written or dropped
	done       chan struct{}
	// closeMu orders Write's send against Close's close of q: a write
	// after Close is dropped, never a send on a closed channel.
	closeMu sync.RWMutex
	closed  bool
	mu      sync.Mutex
	err     error // the last failure, for Err
}

// rotatingWriter is what Log writes through: a logFile.
type rotatingWriter interface {
	io.WriteCloser
	Rotate() error
}

// OpenLog checks the log at path as OpenLogFile does (its directories to
// the root, no link, the console user's own file) and returns the log,
// rotating at the size cap.
func OpenLog(what, path string, o LogOptions) (*Log, error) {
	f, err := OpenLogFile(what, path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: stat log %s: %w", what, path, err)
	}
	if o.MaxMiB <= 0 {
		o.MaxMiB = DefaultLogMaxMiB
	}
	if o.Backups <= 0 {
		o.Backups = DefaultLogBackups
	}
	max := int64(o.MaxMiB) << 20
	if o.maxBytes > 0 {
		max = o.maxBytes
	}
	return newLog(what, path, &logFile{what: what, path: path, backups: o.Backups, f: f}, max, fi.Size()), nil
}

func newLog(what, path string, out rotatingWriter, max, size int64) *Log {
	l := &Log{what: what, path: path, out: out, max: max, size: size, q: make(chan []byte, logQueue), done: make(chan struct{})}
	go l.run()
	return l
}

// Write queues one line (slog writes a record in one call) and returns at
// once; a line that finds the queue full is dropped and counted.
func (l *Log) Write(p []byte) (int, error) {
	line := append([]byte(nil), p...)
	l.closeMu.RLock()
	defer l.closeMu.RUnlock()
	if l.closed {
		return len(p), nil // a write after Close: dropped
	}
	l.pending.Add(1)
	select {
	case l.q <- line:
	default:
		l.pending.Add(-1)
		l.dropped.Add(1)
	}
	return len(p), nil
}

func (l *Log) run() {
	defer close(l.done)
	for line := range l.q {
		// The count goes down only once the note saying so is written:
		// until then those lines are still waiting to be reported (Dropped).
		if n := l.dropped.Load(); n > 0 {
			note := fmt.Sprintf("time=%s level=WARN msg=\"log lines dropped: the disk did not take them in time\" dropped=%d\n",
				time.Now().UTC().Format(time.RFC3339), n)
			if l.write([]byte(note)) {
				l.dropped.Add(-n)
			}
		}
		if !l.write(line) {
			l.dropped.Add(1)
		}
		l.pending.Add(-1)
	}
}

// write writes one line, rotating first when it would pass the cap. It
// reports whether the line was written whole.
func (l *Log) write(line []byte) bool {
	if l.size+int64(len(line)) > l.max && l.size > 0 {
		if err := l.rotate(); err != nil {
			l.setErr(err)
			return false
		}
	}
	n, err := l.out.Write(line)
	l.size += int64(n)
	if err != nil {
		l.setErr(fmt.Errorf("%s: write log %s: %w", l.what, l.path, err))
		return false
	}
	return true
}

// rotate checks the way to the log again, then moves the file aside and
// opens a new one (OpenLogFile checks it).
func (l *Log) rotate() error {
	if err := CheckTrustedDir(l.what, filepath.Dir(l.path)); err != nil {
		return fmt.Errorf("log not rotated, lines dropped: %w", err)
	}
	if err := l.out.Rotate(); err != nil {
		return err
	}
	l.size = 0
	return nil
}

func (l *Log) setErr(err error) {
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
}

// Err is the last failure to write or rotate the log, or nil.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Dropped is how many lines are waiting to be reported as dropped.
func (l *Log) Dropped() uint64 { return l.dropped.Load() }

// Close writes what is queued (waiting at most logCloseWait for a stuck
// disk) and closes the file.
func (l *Log) Close() error {
	l.closeMu.Lock()
	if !l.closed {
		l.closed = true
		close(l.q)
	}
	l.closeMu.Unlock()
	select {
	case <-l.done:
		return l.out.Close()
	case <-time.After(logCloseWait):
		return fmt.Errorf("%s: the log %s did not take its last lines within %s", l.what, l.path, logCloseWait)
	}
}

// Path is the log file.
func (l *Log) Path() string { return l.path }

// logFile is the log's current file and its rotation: the old file is
// renamed to NAME-TIME.EXT beside it (UTC, so the names sort by time) and
// only the newest backups are kept.
type logFile struct {
	what, path string
	backups    int
	f          *os.File // nil after a rotation that could not open the new file
}

// backupTime is the time in a rotated log's name.
const backupTime = "2006-01-02T15-04-05.000"

// Write writes to the open file (a nil one, after a failed rotation,
// answers os.ErrInvalid; Log rotates again before writing).
func (w *logFile) Write(p []byte) (int, error) { return w.f.Write(p) }

// Rotate moves the current file aside and opens a new one. After a failed
// open it only tries the open again: what is at the path then is not the
// console's to move.
func (w *logFile) Rotate() error {
	if w.f != nil {
		w.f.Close()
		w.f = nil
		if err := os.Rename(w.path, w.backupName(time.Now())); err != nil {
			return fmt.Errorf("%s: rotate log %s: %w", w.what, w.path, err)
		}
		w.prune()
	}
	f, err := OpenLogFile(w.what, w.path)
	if err != nil {
		return err
	}
	w.f = f
	return nil
}

func (w *logFile) backupName(t time.Time) string {
	ext := filepath.Ext(w.path)
	return strings.TrimSuffix(w.path, ext) + "-" + t.UTC().Format(backupTime) + ext
}

// prune removes the oldest backups beyond the count; a failure leaves a
// file too many, never stops the log.
func (w *logFile) prune() {
	ext := filepath.Ext(w.path)
	prefix := strings.TrimSuffix(filepath.Base(w.path), ext) + "-"
	entries, err := os.ReadDir(filepath.Dir(w.path))
	if err != nil {
		return
	}
	var old []string
	for _, e := range entries {
		rest, ok1 := strings.CutPrefix(e.Name(), prefix)
		stamp, ok2 := strings.CutSuffix(rest, ext)
		if !ok1 || !ok2 || !e.Type().IsRegular() {
			continue
		}
		if _, err := time.Parse(backupTime, stamp); err == nil {
			old = append(old, e.Name())
		}
	}
	slices.Sort(old)
	for len(old) > w.backups {
		_ = os.Remove(filepath.Join(filepath.Dir(w.path), old[0]))
		old = old[1:]
	}
}

func (w *logFile) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
