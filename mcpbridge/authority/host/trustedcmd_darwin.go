package host

import "syscall"

// openProgramFlags: darwin has no O_PATH; the program is opened for reading.
const openProgramFlags = syscall.O_RDONLY

// execFD3 executes the file open on the child's descriptor 3 (fdesc).
const execFD3 = "/dev/fd/3"
