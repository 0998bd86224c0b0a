package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/solgate/solgate/mcpbridge/authority/approval"
)

// decidedBy names the console's human in decisions and the audit trail.
const decidedBy = "operator"

// denyUserReason is what D denies with.
const denyUserReason = "denied with every pending proposal of this agent's user (the operator stopped a flood)"

// closedReason is what pending proposals are denied with when the console
// goes away: nobody is left to approve them.
const closedReason = "console closed"

// action is a decision taken by a key press. Components and dialogs return
// actions; only the root Update turns one into a command (perform), so the
// decision logic is testable without a hub and the side effect happens in
// exactly one place.
type action interface{ isAction() }

type (
	actionApprove struct{ ID string }
	actionDeny    struct{ ID, Reason string }
	actionPause   struct{ Paused bool }
	// actionRevoke carries the approved proposals the console knows of, so
	// the command can read back their new state: RevokeAll publishes one
	// summary event, not one per proposal.
	actionRevoke struct{ Approved []string }
	actionResume struct{ Clients []string }
	// actionDenyUser denies every pending proposal of the user that
	// proposed ID, all its processes together (D, then y).
	actionDenyUser struct{ ID string }
	// actionQuit denies whatever is pending as "console closed" and quits.
	actionQuit struct{}
	// actionGrant approves ID and grants more like it (A, then Enter).
	actionGrant struct {
		ID    string
		Terms approval.GrantTerms
	}
	// actionEndGrant ends grant N (the grants list).
	actionEndGrant struct{ N int }
)

func (actionGrant) isAction()    {}
func (actionEndGrant) isAction() {}

func (actionApprove) isAction()  {}
func (actionDeny) isAction()     {}
func (actionPause) isAction()    {}
func (actionRevoke) isAction()   {}
func (actionResume) isAction()   {}
func (actionQuit) isAction()     {}
func (actionDenyUser) isAction() {}

// actionDoneMsg reports a performed action back to Update.
type actionDoneMsg struct {
	act      action
	proposal *approval.Proposal   // Approve/Deny/Grant: the hub's snapshot after the decision
	grant    approval.Grant       // Grant: the grant made
	updated  []*approval.Proposal // Revoke: snapshots of the proposals it voided; DenyUser: those it denied
	n        int                  // RevokeAll/DenyAllPending: how many
	err      error
}

// perform returns the command carrying out a. The command captures only the
// operator and the action's values, never the model: a tea.Cmd must not
// mutate model state.
func perform(ops approval.Service, a action) tea.Cmd {
	if ops == nil || a == nil {
		return nil
	}
	return func() tea.Msg {
		done := actionDoneMsg{act: a}
		switch a := a.(type) {
		case actionApprove:
			done.proposal, done.err = ops.Approve(a.ID, decidedBy)
		case actionDeny:
			done.proposal, done.err = ops.Deny(a.ID, decidedBy, a.Reason)
		case actionGrant:
			done.proposal, done.grant, done.err = ops.ApproveWithGrant(a.ID, decidedBy, a.Terms)
		case actionEndGrant:
			if ops.EndGrant(a.N, decidedBy) {
				done.n = 1
			}
		case actionPause:
			ops.SetPaused(a.Paused)
		case actionRevoke:
			done.n = ops.RevokeAll(decidedBy)
			for _, id := range a.Approved {
				if p, ok := ops.Proposal(id); ok {
					done.updated = append(done.updated, p)
				}
			}
		case actionResume:
			for _, c := range a.Clients {
				ops.ResumeClient(c)
			}
			done.n = len(a.Clients)
		case actionQuit:
			done.n = ops.DenyAllPending(decidedBy, closedReason)
		case actionDenyUser:
			done.updated, done.err = ops.DenyPendingOf(a.ID, decidedBy, denyUserReason)
			done.n = len(done.updated)
		}
		return done
	}
}
