package host

// Ancestor is one process above the console and the terminals it holds.
type Ancestor struct {
	PID  int
	Comm string
	UID  uint32
	EUID uint32
	TTYs []TTY
}

// Ancestry is not read on darwin (no /proc): only the console's own
// terminal is judged there (README, "macOS").
func Ancestry() []Ancestor { return nil }

// ListeningSocketOf is not read on darwin.
func ListeningSocketOf(int) string { return "" }
