package tui

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// renderer draws the console's screen: it writes a frame when, and only when,
// what the console shows changed. It replaces Bubble Tea v1's standard
// renderer, which flushes on a ticker at its frame rate whether or not
// anything changed; at the 120 fps a prompt key → frame needs, those
// wake-ups were nearly all of an idle console's CPU.
//
// The first change after a quiet spell is drawn at once. Changes that follow
// within one frame interval are coalesced into one frame at the interval's
// end, so a burst of hub events costs one write, as it did at the old rate.
// Between changes no goroutine, timer or ticker of the renderer is awake.
//
// The painting (line diff against the last frame, truncation to the width,
// erasing what a shorter frame leaves, a full repaint after a resize) follows
// Bubble Tea's standard_renderer.go (github.com/charmbracelet/bubbletea,
// MIT), for the alternate screen only, which is all the console uses.
type renderer struct {
	out      io.Writer
	interval time.Duration // at least this long between two frames

	mu            sync.Mutex
	want          frame // the latest frame handed over
	dirty         bool  // want (or the size) changed since the last draw
	full          bool  // the next draw repaints every line
	width, height int
	closed        bool

	kick    chan struct{} // a draw is due; holds at most one token
	done    chan struct{} // closed by close
	stopped chan struct{} // closed when the drawing goroutine has returned
	once    sync.Once
	started bool

	// wakes counts the drawing goroutine's wake-ups: tests check that an
	// unchanged screen costs none.
	wakes atomic.Int64

	// Owned by the drawing goroutine.
	lines []string // the view's lines as last drawn (before truncation)
	title string   // the window title as last set
	last  time.Time
	buf   bytes.Buffer
}

// frame is everything the console shows: the view and the window title.
// (Bubble Tea v2's View carries the title the same way.)
type frame struct {
	view, title string
}

func newRenderer(out io.Writer, interval time.Duration) *renderer {
	return &renderer{
		out:      out,
		interval: interval,
		kick:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
}

// Terminal modes the console sets on open and resets on close, as Bubble
// Tea's Program did with its standard renderer: the alternate screen
// (cleared, since some terminals have none), a hidden cursor, and bracketed
// paste (a pasted deny reason arrives as one paste, not as keys).
const (
	openSeq  = ansi.HideCursor + ansi.SetModeAltScreenSaveCursor + ansi.EraseEntireScreen + ansi.CursorHomePosition + ansi.HideCursor + ansi.SetModeBracketedPaste
	closeSeq = ansi.ResetModeBracketedPaste + ansi.ShowCursor + ansi.ResetModeAltScreenSaveCursor + ansi.ShowCursor
)

// open takes over the terminal and starts drawing.
func (s *renderer) open() {
	_, _ = io.WriteString(s.out, openSeq)
	s.started = true
	go s.run()
}

// close stops drawing and gives the terminal back: the main screen, the
// cursor shown, bracketed paste off. It is safe to call more than once; a
// frame being written when it is called is finished first, and none is
// written after.
func (s *renderer) close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.done)
		if s.started {
			<-s.stopped
		}
		_, _ = io.WriteString(s.out, closeSeq)
	})
}

// show hands over what the console shows now. It never blocks on the
// terminal: it wakes the drawing goroutine, and only when something changed.
func (s *renderer) show(f frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || f == s.want {
		return
	}
	s.want = f
	s.due()
}

// resize records the terminal's size; the next frame repaints every line.
// Before the first view there is nothing to repaint, so nothing is due: the
// first frame is drawn whole anyway, and an empty frame drawn ahead of it
// would only be one more write.
func (s *renderer) resize(width, height int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || width == s.width && height == s.height {
		return
	}
	s.width, s.height, s.full = width, height, true
	if s.want != (frame{}) {
		s.due()
	}
}

// due marks a draw as due; s.mu is held. Only the first change since the
// last draw wakes the drawing goroutine: later ones are picked up by the
// draw it is about to do.
func (s *renderer) due() {
	if s.dirty {
		return
	}
	s.dirty = true
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// run draws whenever a draw is due, at most once per interval. It blocks on
// a channel while nothing changes.
func (s *renderer) run() {
	defer close(s.stopped)
	for {
		select {
		case <-s.done:
			return
		case <-s.kick:
		}
		s.wakes.Add(1)
		if wait := s.interval - time.Since(s.last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-s.done:
				t.Stop()
				return
			case <-t.C:
			}
		}
		s.draw()
	}
}

// draw writes the latest frame, in one write so that nothing else written
// to the terminal (the bell) can land inside a sequence.
func (s *renderer) draw() {
	s.mu.Lock()
	if !s.dirty || s.closed {
		s.mu.Unlock()
		return
	}
	f, full, width, height := s.want, s.full, s.width, s.height
	s.dirty, s.full = false, false
	s.mu.Unlock()

	s.buf.Reset()
	if f.title != s.title {
		s.buf.WriteString(ansi.SetWindowTitle(f.title))
		s.title = f.title
	}
	s.lines = paint(&s.buf, s.lines, f.view, width, height, full)
	if s.buf.Len() == 0 {
		return
	}
	_, _ = s.out.Write(s.buf.Bytes())
	s.last = time.Now()
}

// paint writes to b what turns the terminal from showing prev into showing
// view, and returns view's lines. Unchanged lines are skipped unless full;
// each changed line is addressed by its row (a cursor position), so a
// skipped line costs nothing and nothing depends on how the terminal treats
// a newline.
func paint(b *bytes.Buffer, prev []string, view string, width, height int, full bool) []string {
	lines := strings.Split(view, "\n")
	// The cursor cannot reach above the screen: like the standard renderer,
	// keep the bottom of a view taller than the terminal.
	if height > 0 && len(lines) > height {
		lines = lines[len(lines)-height:]
	}
	if full {
		// After a resize the terminal may have reflowed or cut what it
		// showed: start from a blank screen.
		b.WriteString(ansi.EraseEntireScreen)
		prev = nil
	}
	for i, line := range lines {
		if i < len(prev) && prev[i] == line {
			continue
		}
		b.WriteString(cursorTo(i))
		if width > 0 {
			// A line wider than the terminal would wrap and push every
			// line below it down.
			line = ansi.Truncate(line, width, "")
		}
		b.WriteString(line)
		// Erase what a longer line left, unless the line fills the row:
		// then the cursor sits on the last cell and an erase would take it.
		if width <= 0 || ansi.StringWidth(line) < width {
			b.WriteString(ansi.EraseLineRight)
		}
	}
	if len(prev) > len(lines) {
		b.WriteString(cursorTo(len(lines)))
		b.WriteString(ansi.EraseScreenBelow)
	}
	return lines
}

// cursorTo moves the cursor to the start of row i (0-based).
func cursorTo(i int) string {
	return "\x1b[" + strconv.Itoa(i+1) + "H"
}

// rendered hands each view to the renderer. Bubble Tea v1's event loop
// calls View after every Update and gives the result to its renderer, which
// cannot be replaced (the interface is unexported); with WithoutRenderer it
// drops the view. This wrapper passes it on instead, with the size the
// renderer needs to truncate and repaint, and is nothing more: the console's
// one root model is m, and the wrapper does no I/O.
type rendered struct {
	m *model
	r *renderer
	// restore gives the terminal back. Bubble Tea recovers a panic in
	// Update or View and prints it, but only the renderer can leave the
	// alternate screen first, where the message would be lost.
	restore func()
}

func (rm rendered) Init() tea.Cmd { return rm.m.Init() }

func (rm rendered) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	defer rm.restoreOnPanic()
	if size, ok := msg.(tea.WindowSizeMsg); ok {
		rm.r.resize(size.Width, size.Height)
	}
	_, cmd := rm.m.Update(msg)
	return rm, cmd
}

func (rm rendered) View() string {
	defer rm.restoreOnPanic()
	rm.r.show(frame{view: rm.m.View(), title: rm.m.title()})
	return ""
}

func (rm rendered) restoreOnPanic() {
	if v := recover(); v != nil {
		if rm.restore != nil {
			rm.restore()
		}
		panic(v)
	}
}
