// Package host is admission and the checks of the machine the console runs
// on, apart from the approval core: it knows nothing of the Hub. It holds
// the console's socket (socket.go: SO_PEERCRED on every connection, the
// directory and socket modes, per-peer and total connection limits and
// file-descriptor reserve, refusals summarised per uid), who the peer is
// (peer.go, peercred_*.go: uid, pid and start time from the kernel; who
// wrote each read, sender.go; the process a grant binds to, followed to its
// exit, procwatch_*.go), the admission of other users (admission.go), the
// console's terminal device (tty.go, terminal_*.go, ancestry_*.go), the
// files it trusts (trusted.go), what the console knows of who can reach
// what it guards, its terminal included (exposure.go, terminalcheck.go,
// tmuxaccess.go: the Exposure the hub's warnings are raised from), the notify command run from a checked
// descriptor, never a shell (trustedcmd.go), and the log file that never
// blocks (logfile.go). The authority takes a caller's identity from here
// (PeerConnFrom, PeerCredOf, ProcessOf) and judges it.
package host
