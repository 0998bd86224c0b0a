package host

import "errors"

// darwin has no pidfd, and no per-message credentials either (see
// passCredentials), so no grant is ever bound to a socket caller's process
// there: the console refuses to make one.
type ProcessWatch struct{}

func WatchProcess(ProcessID) (*ProcessWatch, error) {
	return nil, errors.New("grants bound to an agent process need Linux (pidfd and per-message credentials)")
}

func (*ProcessWatch) Wait() bool  { return false }
func (*ProcessWatch) Alive() bool { return false }
func (*ProcessWatch) Close()      {}
