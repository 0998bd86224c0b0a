package tui

import (
	"io"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styles holds every style the console uses, built from one renderer so
// that NoColor (or a terminal without colour) turns all of them plain at
// once. Nothing on screen may depend on colour alone: badges, selection and
// status are always also spelled out in words or marks.
type styles struct {
	noColor bool

	title      lipgloss.Style // section titles
	dim        lipgloss.Style // decided rows, secondary text
	label      lipgloss.Style // detail labels
	selected   lipgloss.Style // the selected queue row
	warn       lipgloss.Style // flags, look-alike warnings
	danger     lipgloss.Style // failures, denials
	ok         lipgloss.Style // executed / verified
	mainnet    lipgloss.Style // the MAINNET header bar
	nocap      lipgloss.Style // the NO CAP APPLIES bar of a swap whose input is not SOL
	agent      lipgloss.Style // an agent's narration in the log: its words, not solgate's
	calm       lipgloss.Style // test-network badge
	paused     lipgloss.Style // the paused banner
	dialog     lipgloss.Style // dialog title
	token      lipgloss.Style // the copy-friendly token (no decoration around it)
	barSpent   lipgloss.Style
	barReserve lipgloss.Style
	barFree    lipgloss.Style

	help help.Styles
}

func newStyles(out io.Writer, noColor bool) styles {
	r := lipgloss.NewRenderer(out)
	if noColor {
		r.SetColorProfile(termenv.Ascii)
	}
	return stylesFor(r, noColor)
}

// stylesFor builds the styles on a given renderer (tests force a profile).
func stylesFor(r *lipgloss.Renderer, noColor bool) styles {
	n := r.NewStyle
	red, amber, green, grey := lipgloss.Color("1"), lipgloss.Color("3"), lipgloss.Color("2"), lipgloss.Color("8")
	s := styles{
		noColor:    noColor,
		title:      n().Bold(true),
		dim:        n().Foreground(grey),
		label:      n().Foreground(lipgloss.Color("6")),
		selected:   n().Reverse(true),
		warn:       n().Foreground(amber).Bold(true),
		danger:     n().Foreground(red).Bold(true),
		ok:         n().Foreground(green).Bold(true),
		mainnet:    n().Background(red).Foreground(lipgloss.Color("15")).Bold(true),
		nocap:      n().Background(red).Foreground(lipgloss.Color("15")).Bold(true),
		agent:      n().Foreground(lipgloss.Color("5")).Italic(true),
		calm:       n().Foreground(lipgloss.Color("4")).Bold(true),
		paused:     n().Background(amber).Foreground(lipgloss.Color("0")).Bold(true),
		dialog:     n().Background(lipgloss.Color("4")).Foreground(lipgloss.Color("15")).Bold(true),
		token:      n().Bold(true),
		barSpent:   n().Foreground(amber),
		barReserve: n().Foreground(lipgloss.Color("5")),
		barFree:    n().Foreground(grey),
	}
	key, desc, sep := n().Bold(true), n().Foreground(grey), n().Foreground(grey)
	s.help = help.Styles{
		Ellipsis: sep, ShortKey: key, ShortDesc: desc, ShortSeparator: sep,
		FullKey: key, FullDesc: desc, FullSeparator: sep,
	}
	return s
}
