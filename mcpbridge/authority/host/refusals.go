package host

import (
	"log/slog"
	"sync"
	"time"
)

// A flood of refused connections must not become a flood of log lines: one
// line per refusal grew the log by 14 MiB in 20 s (issue 33). The first
// refusal of a user for a reason is logged at once, with its details; the
// rest are counted, and each interval ends with one line per user and
// reason giving the count. A user who keeps flooding is summarised once an
// interval; one who stops is forgotten after a quiet interval.

// DefaultRefusalSummaryEvery is how often refusals are summarised.
const DefaultRefusalSummaryEvery = 10 * time.Second

// maxRefusalKeys bounds the users tallied at once; the rest share one line.
const maxRefusalKeys = 1024

// otherUsers is the key of users past maxRefusalKeys, and of connections
// whose credentials could not be read.
const otherUsers = ^uint32(0)

type refusalKey struct {
	uid uint32
	msg string
}

type refusalTally struct {
	log   *slog.Logger
	every time.Duration
	mu    sync.Mutex
	// counts holds every user and reason seen since the last summary but
	// one: a key is in it from its first refusal until an interval passes
	// without one. Its count is what the next summary reports.
	counts map[refusalKey]uint64
	timer  *time.Timer
	// flushing is held by a flush from taking the counts until their lines
	// are written: a stop that runs beside another flush (a listener
	// closed twice, or the timer firing) returns only once those lines
	// are in the log, so whoever closes the log next loses none.
	flushing sync.Mutex
}

func newRefusalTally(log *slog.Logger, every time.Duration) *refusalTally {
	if every <= 0 {
		every = DefaultRefusalSummaryEvery
	}
	return &refusalTally{log: log, every: every, counts: map[refusalKey]uint64{}}
}

// note records one refusal of uid for msg. The first one of a user and
// reason is logged with attrs; later ones are only counted.
func (r *refusalTally) note(uid uint32, msg string, attrs ...any) {
	r.mu.Lock()
	k := refusalKey{uid, msg}
	if _, ok := r.counts[k]; !ok && len(r.counts) >= maxRefusalKeys {
		k.uid = otherUsers
	}
	_, seen := r.counts[k]
	if seen {
		r.counts[k]++
	} else {
		r.counts[k] = 0
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(r.every, r.flush)
	}
	r.mu.Unlock()
	if !seen {
		r.log.Warn(msg, append(attrs, slog.String("then", "further refusals of this user are counted and logged every "+r.every.String()))...)
	}
}

// flush writes one line per user and reason refused since the last flush,
// and forgets those refused not at all.
func (r *refusalTally) flush() {
	r.flushing.Lock()
	defer r.flushing.Unlock()
	r.mu.Lock()
	type line struct {
		k refusalKey
		n uint64
	}
	var lines []line
	for k, n := range r.counts {
		if n == 0 {
			delete(r.counts, k)
			continue
		}
		lines = append(lines, line{k, n})
		r.counts[k] = 0
	}
	r.timer = nil
	if len(r.counts) > 0 {
		r.timer = time.AfterFunc(r.every, r.flush)
	}
	r.mu.Unlock()
	for _, l := range lines {
		uid := slog.Uint64("uid", uint64(l.k.uid))
		if l.k.uid == otherUsers {
			uid = slog.String("uid", "other users")
		}
		r.log.Warn(l.k.msg+" (summary)", uid, slog.Uint64("refused", l.n), slog.Duration("interval", r.every))
	}
}

// stop ends the timer and writes what is counted.
func (r *refusalTally) stop() {
	r.mu.Lock()
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.mu.Unlock()
	r.flush()
	r.mu.Lock()
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.mu.Unlock()
}
