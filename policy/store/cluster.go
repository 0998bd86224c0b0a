package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrOtherCluster: the state directory belongs to another cluster.
var ErrOtherCluster = errors.New("state directory belongs to another cluster")

// ClusterMismatchError names both genesis hashes so the operator can tell
// which cluster the directory belongs to.
type ClusterMismatchError struct {
	Pinned, Current string
}

func (e *ClusterMismatchError) Error() string {
	return fmt.Sprintf("%v: it was pinned to genesis %s, the node reports genesis %s", ErrOtherCluster, e.Pinned, e.Current)
}

func (e *ClusterMismatchError) Unwrap() error { return ErrOtherCluster }

// PinCluster ties the state directory to the cluster with this genesis hash.
// The first call records it (and says so in the audit trail); a directory
// made before pins existed takes the hash it is first opened with. A later
// call with another hash is refused with a *ClusterMismatchError and
// changes nothing.
func (s *Store) PinCluster(genesis string) error {
	if genesis == "" {
		return errors.New("pin cluster: empty genesis hash")
	}
	pinned, err := s.Cluster()
	if err != nil {
		return err
	}
	switch pinned {
	case genesis:
		return nil
	case "":
	default:
		return &ClusterMismatchError{Pinned: pinned, Current: genesis}
	}
	var raced string
	_, err = s.write("cluster_pinned", "", map[string]string{"genesis": genesis}, func(tx *writeTx) error {
		// Another process may have pinned between the read above and this
		// write lock: re-read inside the transaction.
		switch err := tx.QueryRow(`SELECT genesis FROM cluster WHERE id = 1`).Scan(&raced); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("read cluster pin: %w", err)
		default:
			return errRaced
		}
		if _, err := tx.Exec(`INSERT INTO cluster (id, genesis, pinned_at) VALUES (1, ?, ?)`, genesis, nanos(time.Now())); err != nil {
			return fmt.Errorf("pin cluster: %w", err)
		}
		return nil
	})
	if errors.Is(err, errRaced) {
		if raced == genesis {
			return nil
		}
		return &ClusterMismatchError{Pinned: raced, Current: genesis}
	}
	return err
}

var errRaced = errors.New("cluster pinned concurrently")

// Cluster is the genesis hash the directory is pinned to, or "" if none yet.
func (s *Store) Cluster() (string, error) {
	var g string
	switch err := s.db.QueryRow(`SELECT genesis FROM cluster WHERE id = 1`).Scan(&g); {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read cluster pin: %w", err)
	}
	return g, nil
}

// PinnedCluster is the genesis hash the database in dir is pinned to, or ""
// when dir holds no database or an unpinned one. It creates nothing. A
// database in a directory others can write is refused before SQLite reads
// it: the console asks this before it checks the state directory, and a
// file another user put there is theirs to shape.
func PinnedCluster(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, FileName)); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err := CheckPrivateDir(dir); err != nil {
		return "", err
	}
	s, err := OpenExisting(dir)
	if err != nil {
		return "", err
	}
	defer s.Close()
	return s.Cluster()
}
