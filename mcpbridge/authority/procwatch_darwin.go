package authority

import "errors"

// darwin has no pidfd, and no per-message credentials either (see
// passCredentials), so no grant is ever bound to a socket caller's process
// there: the console refuses to make one.
type processWatch struct{}

func watchProcess(processID) (*processWatch, error) {
	return nil, errors.New("grants bound to an agent process need Linux (pidfd and per-message credentials)")
}

func (*processWatch) wait() bool  { return false }
func (*processWatch) alive() bool { return false }
func (*processWatch) close()      {}
