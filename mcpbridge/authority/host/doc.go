// Package host holds the console's checks of the machine it runs on that
// need nothing of the approval core: files the console trusts (the key, the
// state directory, the socket's directory, the notify program and the log
// file, each owned by the console's user or root and writable by nobody
// else, down every directory from /), the notify command run from a checked
// descriptor, never a shell (trustedcmd.go), and the log file written
// without ever blocking the console (logfile.go). It knows nothing of the
// Hub; the authority and cmd/solgate call it.
package host
