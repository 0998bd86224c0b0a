package authority

import (
	"sync"
	"time"

	"github.com/solgate/solgate/executor"
)

// Event is one published change. Proposal is a snapshot, safe to keep.
type Event struct {
	Kind     EventKind
	At       time.Time
	Proposal *Proposal
	Progress *executor.Progress
	Client   string
	Message  string // for auto-denials and refusals: the reason shown in the log
	// Warnings accompany an auto-denial, e.g. a recipient that looks like a
	// known address; each deserves a line of its own, never cut short.
	Warnings []string
}

// broker fans events out to subscribers in publish order. publish never
// blocks the authority. When nothing is queued and every subscriber has
// room, publish hands the event over itself; otherwise it queues it for
// one dispatcher goroutine. Approval events must reach the console, so the
// dispatcher waits for a slow subscriber; progress events are dropped for
// a subscriber whose buffer is full.
//
// The direct handover saves a goroutine hop on the way to the console:
// publish → dispatcher → subscriber was two wake-ups, and on a busy 2-core
// machine each can wait for a core.
type broker struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	queue  []Event
	busy   bool // the dispatcher is handing an event over, outside mu
	wake   chan struct{}
	closed bool

	// beforeDispatch, when set (tests only, before the first publish),
	// runs as the dispatcher is about to hand a queued event over.
	beforeDispatch func()
}

type subscriber struct {
	ch   chan Event
	done chan struct{}
}

func newBroker() *broker {
	b := &broker{subs: map[*subscriber]struct{}{}, wake: make(chan struct{}, 1)}
	go b.dispatch()
	return b
}

// Subscribe returns a channel of events and a function that ends the
// subscription. The channel is never closed; stop reading after cancel.
func (b *broker) Subscribe(buffer int) (<-chan Event, func()) {
	s := &subscriber{ch: make(chan Event, buffer), done: make(chan struct{})}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
			close(s.done)
		})
	}
}

func (b *broker) publish(ev Event) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	if len(b.queue) == 0 && !b.busy && b.roomLocked(ev) {
		// In order: nothing published earlier is still on its way. None of
		// these sends blocks: only publish (under mu) and the dispatcher
		// (not busy) send, and a receiver only makes room.
		for s := range b.subs {
			select {
			case s.ch <- ev:
			default: // a droppable event, for a full buffer
			}
		}
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, ev)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// roomLocked reports whether ev can be handed to every subscriber without
// waiting: a droppable event always can.
func (b *broker) roomLocked(ev Event) bool {
	if ev.Kind.Droppable() {
		return true
	}
	for s := range b.subs {
		if len(s.ch) == cap(s.ch) {
			return false
		}
	}
	return true
}

func (b *broker) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *broker) dispatch() {
	for range b.wake {
		for {
			b.mu.Lock()
			if len(b.queue) == 0 {
				b.busy = false
				closed := b.closed
				b.mu.Unlock()
				if closed {
					return
				}
				break
			}
			b.busy = true
			ev := b.queue[0]
			b.queue = b.queue[1:]
			subs := make([]*subscriber, 0, len(b.subs))
			for s := range b.subs {
				subs = append(subs, s)
			}
			b.mu.Unlock()
			if b.beforeDispatch != nil {
				b.beforeDispatch()
			}
			for _, s := range subs {
				if ev.Kind.Droppable() {
					select {
					case s.ch <- ev:
					default:
					}
					continue
				}
				select {
				case s.ch <- ev:
				case <-s.done:
				}
			}
		}
	}
}
