package main

import "runtime/debug"

// version can be stamped at release time with -ldflags "-X main.version=v1.2.3".
// Left at "dev", it comes from what the Go toolchain recorded about the build:
// with -buildvcs=true (as `make build` does) that is a pseudo-version naming
// the checkout's revision, "+dirty" when built from uncommitted changes. So
// `solgate --version`, MCP serverInfo and the console's /v1/health name the
// exact code an operator runs.
var version = "dev"

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return version
}
