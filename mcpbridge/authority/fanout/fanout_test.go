package fanout

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// Every subscriber gets every event that may not be dropped, in publish
// order, whether publish handed it over itself or queued it for the
// dispatcher: a small buffer read slowly forces the queue, a large one read
// at once takes the direct handover, and the two interleave. Progress
// events may be dropped for a full buffer, never reordered.
func TestBrokerDeliversInOrderWhetherHandedOverOrQueued(t *testing.T) {
	b := New[testEvent]()
	defer b.Close()
	const n = 3000
	type sub struct {
		ch     <-chan testEvent
		cancel func()
		slow   bool
	}
	subs := []sub{}
	// Many subscribers with small buffers: the dispatcher's hand-over of
	// one queued event to all of them takes a while, and publish must not
	// hand the next one over past it.
	bufs := []int{1, n}
	for range 30 {
		bufs = append(bufs, 2)
	}
	for _, buf := range bufs {
		ch, cancel := b.Subscribe(buf)
		subs = append(subs, sub{ch, cancel, buf == 1})
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(subs))
	for _, s := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.cancel()
			next, lastProgress := 0, -1
			for next < n {
				var ev testEvent
				select {
				case ev = <-s.ch:
				case <-time.After(time.Minute): // a guard against a hang, not a timing
					errs <- fmt.Errorf("subscriber stalled waiting for event %d", next)
					return
				}
				var i int
				fmt.Sscan(ev.msg, &i)
				if ev.Droppable() {
					if i <= lastProgress || i < next {
						errs <- fmt.Errorf("progress event %d after %d (next undroppable %d)", i, lastProgress, next)
						return
					}
					lastProgress = i
					continue
				}
				if i != next {
					errs <- fmt.Errorf("event %d where %d was due", i, next)
					return
				}
				next++
				if s.slow && next%7 == 0 {
					time.Sleep(50 * time.Microsecond) // behaviour under test: a slow reader fills its buffer
				}
			}
		}()
	}
	// Publishers from two goroutines would race for the order; one
	// publishes, as the hub's events of one proposal come from one goroutine
	// at a time. Progress events go between them.
	for i := 0; i < n; i++ {
		b.Publish(testEvent{progress: true, msg: fmt.Sprint(i)})
		b.Publish(testEvent{msg: fmt.Sprint(i)})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// An event published while nothing is queued reaches a subscriber with
// room without the dispatcher: it is in the channel when publish returns.
func TestBrokerHandsOverDirectlyWhenNothingIsQueued(t *testing.T) {
	b := New[testEvent]()
	defer b.Close()
	ch, cancel := b.Subscribe(4)
	defer cancel()
	for i := 0; i < 100; i++ {
		b.Publish(testEvent{msg: fmt.Sprint(i)})
		if len(ch) != 1 {
			t.Fatalf("event %d: %d events in the subscriber's channel as publish returned, want 1", i, len(ch))
		}
		<-ch
	}
}

// An event published while the dispatcher is still handing a queued one
// over waits behind it, even when every subscriber has room by then.
func TestBrokerPublishWaitsForTheDispatchersHandOver(t *testing.T) {
	handing := make(chan struct{})
	release := make(chan struct{})
	b := New[testEvent]()
	defer b.Close()
	var first sync.Once
	b.beforeDispatch = func() { first.Do(func() { handing <- struct{}{}; <-release }) }
	ch, cancel := b.Subscribe(1)
	defer cancel()
	b.Publish(testEvent{msg: "0"}) // handed over: the buffer is now full
	b.Publish(testEvent{msg: "1"}) // queued for the dispatcher
	<-handing                      // the dispatcher holds event 1
	if ev := <-ch; ev.msg != "0" { // room again
		t.Fatalf("first event %q, want 0", ev.msg)
	}
	b.Publish(testEvent{msg: "2"})
	close(release)
	for _, want := range []string{"1", "2"} {
		select {
		case ev := <-ch:
			if ev.msg != want {
				t.Fatalf("event %q where %s was due", ev.msg, want)
			}
		case <-time.After(time.Minute): // a guard against a hang, not a timing
			t.Fatalf("event %s never came", want)
		}
	}
}

// testEvent is a progress event (droppable) or a note (never dropped).
type testEvent struct {
	progress bool
	msg      string
}

func (e testEvent) Droppable() bool { return e.progress }
