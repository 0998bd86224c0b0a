package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key the console answers to. Enter is deliberately bound to
// nothing in the queue: a stray Enter must never approve.
type keyMap struct {
	Approve, Deny         key.Binding
	Grant                 key.Binding // A: approve, and grant more like it
	Grants                key.Binding // l: the grants list, to end one
	DenyUser              key.Binding // D: every pending proposal of the selected one's user
	Up, Down              key.Binding
	Top, Bottom           key.Binding
	PageUp, PageDown      key.Binding
	Pause, Revoke, Resume key.Binding
	ScrollDown, ScrollUp  key.Binding
	LogBack, LogForward   key.Binding
	Move                  key.Binding // help only: j/k
	PauseShort            key.Binding // help only: shorter words for the one-line help
	RevokeShort           key.Binding
	Wallet, Help, Quit    key.Binding
	Interrupt             key.Binding

	// In dialogs.
	Confirm, Submit, Cancel, Erase key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Approve:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve")),
		Deny:        key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "deny")),
		Grant:       key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "approve, and grant more like it")),
		Grants:      key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "grants: list, end one")),
		DenyUser:    key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "deny all pending of this agent's user")),
		Up:          key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "up")),
		Down:        key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "down")),
		Top:         key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "oldest")),
		Bottom:      key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
		PageUp:      key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		ScrollDown:  key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "scroll detail down")),
		ScrollUp:    key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "scroll detail up")),
		LogBack:     key.NewBinding(key.WithKeys("["), key.WithHelp("[", "log: older")),
		LogForward:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "log: newer")),
		Move:        key.NewBinding(key.WithKeys("j", "k"), key.WithHelp("j/k", "move")),
		PauseShort:  key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		RevokeShort: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "revoke")),
		Pause:       key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause/resume writes")),
		Revoke:      key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "revoke tokens and grants")),
		Resume:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resume paused agents")),
		Wallet:      key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "full wallet")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Quit:        key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Interrupt:   key.NewBinding(key.WithKeys("ctrl+c")),
		Confirm:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "confirm")),
		Submit:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "submit")),
		Cancel:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Erase:       key.NewBinding(key.WithKeys("backspace", "ctrl+h")),
	}
}

// ShortHelp implements help.KeyMap.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Approve, k.Deny, k.Move, k.PauseShort, k.RevokeShort, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Approve, k.Grant, k.Grants, k.Deny, k.DenyUser, k.Confirm},
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown, k.ScrollDown, k.ScrollUp, k.LogBack, k.LogForward},
		{k.Pause, k.Revoke, k.Resume},
		{k.Wallet, k.Help, k.Quit},
	}
}
