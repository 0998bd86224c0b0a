//go:build !linux

package mcpbridge

import (
	"io"
	"os"
)

// PollFile is f.
func PollFile(f *os.File) io.ReadWriter { return f }
