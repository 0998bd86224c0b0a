package store

import "os"

// dataSync makes a head-file slot durable. darwin has no fdatasync, and its
// fsync does not flush the drive's cache; os.File.Sync issues F_FULLFSYNC,
// which does.
func dataSync(f *os.File) error { return f.Sync() }
