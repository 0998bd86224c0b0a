// Package server is the HTTP routes the bridges call on the console's
// socket: a forwarded tool call, a bridge's presence and the health check.
// It stands apart from the approval core, which it reaches only through the
// small Core interface it declares: it imports nothing of the core, so the
// socket's parsing and limits can be read (and fuzzed) without the hub, and
// the core learns who calls from the connection (package host), not from
// anything the request says.
package server
