package store

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	genesisA = "GH7ome3EiwEr7tu9JuTh2dpYWBJK3z69Xm1ZE3MEE6JC"
	genesisB = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"
)

// The first cluster served is pinned, survives a restart, and another
// cluster's hash is refused naming both, without moving the pin.
func TestPinClusterRefusesAnotherGenesis(t *testing.T) {
	st, dir := openTemp(t)
	if g, err := st.Cluster(); err != nil || g != "" {
		t.Fatalf("fresh store pinned to %q (%v)", g, err)
	}
	if err := st.PinCluster(genesisA); err != nil {
		t.Fatal(err)
	}
	st = reopen(t, st, dir)
	if err := st.PinCluster(genesisA); err != nil {
		t.Fatalf("same cluster after restart: %v", err)
	}
	err := st.PinCluster(genesisB)
	var mm *ClusterMismatchError
	if !errors.As(err, &mm) || !errors.Is(err, ErrOtherCluster) || mm.Pinned != genesisA || mm.Current != genesisB {
		t.Fatalf("other cluster: %v", err)
	}
	if !strings.Contains(err.Error(), genesisA) || !strings.Contains(err.Error(), genesisB) {
		t.Fatalf("error does not name both hashes: %v", err)
	}
	if g, _ := st.Cluster(); g != genesisA {
		t.Fatalf("pin moved to %s", g)
	}
	// The pin is in the audit trail, once.
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM audit WHERE kind = 'cluster_pinned' AND body LIKE ?`, "%"+genesisA+"%").Scan(&n); err != nil || n != 1 {
		t.Fatalf("cluster_pinned audit entries: %d (%v)", n, err)
	}
	if bad, err := st.VerifyAudit(); err != nil {
		t.Fatalf("audit broken at %d: %v", bad, err)
	}
	if err := st.PinCluster(""); err == nil {
		t.Fatal("an empty genesis hash was pinned")
	}
}

// A state directory written before pins existed (schema 2, with history)
// takes the hash of the cluster it is next opened on.
func TestPinClusterAdoptsUnpinnedOldDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendAudit("console_start", "", map[string]any{"at": time.Now().Unix()}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// Rebuild it as a schema-3 database (before the cluster pin) holding one audit entry.
	db, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE reservation_tokens`, `DROP TABLE cluster`, `ALTER TABLE reservations DROP COLUMN mint`, `ALTER TABLE reservations DROP COLUMN token_amount`,
		`ALTER TABLE proposals DROP COLUMN owner`, `ALTER TABLE reservations DROP COLUMN agent`, `DROP TABLE x402_payments`, `DELETE FROM schema_version WHERE version >= 4`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.PinCluster(genesisB); err != nil {
		t.Fatal(err)
	}
	if g, _ := st.Cluster(); g != genesisB {
		t.Fatalf("old directory pinned to %q", g)
	}
	if err := st.PinCluster(genesisA); !errors.Is(err, ErrOtherCluster) {
		t.Fatalf("after adoption another cluster: %v", err)
	}
}

// PinnedCluster refuses a database in a directory others can write before
// SQLite reads it: the file there may be another user's. The file planted
// here is no database, so reading it would fail differently.
func TestPinnedClusterRefusesAnOpenDirectoryUnread(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("not a database, placed by another user"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := PinnedCluster(dir)
	if err == nil || !strings.Contains(err.Error(), "state dir "+dir+" has mode 0777") || !strings.Contains(err.Error(), "chmod 700 "+dir) {
		t.Fatalf("PinnedCluster on a directory of mode 0777: %v; want the private-directory refusal", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := PinnedCluster(dir); err == nil || strings.Contains(err.Error(), "has mode") {
		t.Fatalf("PinnedCluster on the same file in a private directory: %v; want SQLite's own refusal of a file that is no database", err)
	}
}
