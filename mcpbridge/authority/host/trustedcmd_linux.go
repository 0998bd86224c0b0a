package host

import "golang.org/x/sys/unix"

// openProgramFlags opens the notify program for executing only: O_PATH needs
// no read permission and gives nothing but a handle on that inode.
const openProgramFlags = unix.O_PATH

// execFD3 executes the file open on the child's descriptor 3; a script's
// interpreter then reads the script through the same descriptor.
const execFD3 = "/proc/self/fd/3"
