// Package fanout hands published events to every subscriber, in publish
// order, without ever blocking the publisher: the hub's events reach the
// console and the tests through it.
package fanout

import "sync"

// Event is what a Broker carries: an event says whether a subscriber with a
// full buffer may miss it (progress) or must get it (a decision).
type Event interface{ Droppable() bool }

// Broker fans events out to subscribers in publish order. Publish never
// blocks the publisher. When nothing is queued and every subscriber has
// room, Publish hands the event over itself; otherwise it queues it for
// one dispatcher goroutine. Events that may not be dropped (the authority's approval events) must
// reach every subscriber, so the
// dispatcher waits for a slow subscriber; progress events are dropped for
// a subscriber whose buffer is full.
//
// The direct handover saves a goroutine hop on the way to the console:
// publish → dispatcher → subscriber was two wake-ups, and on a busy 2-core
// machine each can wait for a core.
type Broker[E Event] struct {
	mu     sync.Mutex
	subs   map[*subscriber[E]]struct{}
	queue  []E
	busy   bool // the dispatcher is handing an event over, outside mu
	wake   chan struct{}
	closed bool

	// beforeDispatch, when set (tests only, before the first publish),
	// runs as the dispatcher is about to hand a queued event over.
	beforeDispatch func()
}

type subscriber[E Event] struct {
	ch   chan E
	done chan struct{}
}

func New[E Event]() *Broker[E] {
	b := &Broker[E]{subs: map[*subscriber[E]]struct{}{}, wake: make(chan struct{}, 1)}
	go b.dispatch()
	return b
}

// Subscribe returns a channel of events and a function that ends the
// subscription. The channel is never closed; stop reading after cancel.
func (b *Broker[E]) Subscribe(buffer int) (<-chan E, func()) {
	s := &subscriber[E]{ch: make(chan E, buffer), done: make(chan struct{})}
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

func (b *Broker[E]) Publish(ev E) {
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
func (b *Broker[E]) roomLocked(ev E) bool {
	if ev.Droppable() {
		return true
	}
	for s := range b.subs {
		if len(s.ch) == cap(s.ch) {
			return false
		}
	}
	return true
}

func (b *Broker[E]) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *Broker[E]) dispatch() {
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
			subs := make([]*subscriber[E], 0, len(b.subs))
			for s := range b.subs {
				subs = append(subs, s)
			}
			b.mu.Unlock()
			if b.beforeDispatch != nil {
				b.beforeDispatch()
			}
			for _, s := range subs {
				if ev.Droppable() {
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
