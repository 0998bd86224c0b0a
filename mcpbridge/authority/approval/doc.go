// Package approval is the console's side of the authority: the approval
// service the operator acts through (list and subscribe, approve, deny,
// grant, pause, revoke, spend) and the plain values it hands out. In the
// manner of crush's permission service, the console depends on this
// interface and never on the authority's own types, so its surface is
// explicit and it can be driven by a fake. It imports nothing privileged.
package approval
