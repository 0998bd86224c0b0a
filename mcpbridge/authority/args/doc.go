// Package args parses and normalises the arguments of the console's tools
// as the agent sent them: the shared pieces every kind's parser uses
// (addresses, exact JSON integers with their bounds, confirmation tokens,
// argument names), the read tools' arguments, the Args and WriteArgs
// interfaces, and fingerprints over the normal form. Its errors (*ArgError)
// name the tool, the argument and what is accepted, written for the model.
// It imports nothing of the approval core, so the core and the kinds can
// both use it; which parser a tool name selects is the core's ParseArgs.
package args
