package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/solgate/solgate/localnet/testkit"
)

// readHead reads the head file as its format is documented: JSON lines, the
// head is the one with the highest seq.
func readHead(t *testing.T, dir string) (seq int64, hash string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "audit.head"))
	if err != nil {
		t.Fatal(err)
	}
	seq = -1
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var h struct {
			Seq  int64  `json:"seq"`
			Hash string `json:"hash"`
		}
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatalf("head file line %q: %v", line, err)
		}
		if h.Seq > seq {
			seq, hash = h.Seq, h.Hash
		}
	}
	return seq, hash
}

// Every append moves the head file, read back from disk, to the newest
// entry's sequence number and hash as the database has them.
func TestHeadFileFollowsEveryAppend(t *testing.T) {
	st := seedAudit(t, 1)
	dir := filepath.Dir(st.Path())
	for i := 2; i <= 4; i++ {
		if _, err := st.AppendAudit("note", "", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
		// The head file follows each commit, but no writer waits for it:
		// HeadFileErr takes the writers' lock, so the write has landed.
		if err := st.HeadFileErr(); err != nil {
			t.Fatal(err)
		}
		var hash string
		if err := st.DB().QueryRow(`SELECT hash FROM audit WHERE seq = ?`, i).Scan(&hash); err != nil {
			t.Fatal(err)
		}
		if seq, h := readHead(t, dir); seq != int64(i) || h != hash {
			t.Fatalf("after entry %d the head file says %d %s, the database %s", i, seq, h, hash)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "audit.head"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("head file mode %v, %v; want 0600", fi.Mode(), err)
	}
	if err := st.HeadFileErr(); err != nil {
		t.Fatal(err)
	}
}

// A state directory from before the head file gets one from its current head
// when a console opens it, and the console says so.
func TestHeadFileCreatedForOldStateDir(t *testing.T) {
	st := seedAudit(t, 3)
	dir := filepath.Dir(st.Path())
	st.Close()
	os.Remove(filepath.Join(dir, "audit.head"))
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := st.HeadFileNote(); !strings.Contains(n, "created the audit head file") || !strings.Contains(n, "entry 3") {
		t.Fatalf("note %q", n)
	}
	if seq, _ := readHead(t, dir); seq != 3 {
		t.Fatalf("head file at %d, want 3", seq)
	}
}

// Entries removed from the end, with the head row moved back to match, pass
// the database's own check but not the head file's.
func TestHeadFileCatchesTruncationWithMovedHeadRow(t *testing.T) {
	st := seedAudit(t, 5)
	db := st.DB()
	if _, err := db.Exec(`DELETE FROM audit WHERE seq > 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE audit_head SET seq = 3, hash = (SELECT hash FROM audit WHERE seq = 3)`); err != nil {
		t.Fatal(err)
	}
	bad, err := st.VerifyAudit()
	if bad != 4 || !errors.Is(err, ErrAuditHeadFile) || !strings.Contains(err.Error(), "entries 4 to 5 were removed") {
		t.Fatalf("VerifyAudit = %d, %v", bad, err)
	}
}

// Entries appended behind the console's back are not vouched for; a console
// that opens the directory advances the file and says which entries those were.
func TestHeadFileBehindTheDatabase(t *testing.T) {
	st := seedAudit(t, 2)
	dir := filepath.Dir(st.Path())
	if err := st.HeadFileErr(); err != nil { // entry 2's head write has landed
		t.Fatal(err)
	}
	st.headFile.Close() // as if the console died between commit and head write
	st.headFile = nil
	if _, err := st.AppendAudit("note", "", map[string]int{"i": 3}); err != nil {
		t.Fatal(err)
	}
	bad, err := st.VerifyAudit()
	if bad != 3 || !errors.Is(err, ErrAuditHeadFile) {
		t.Fatalf("VerifyAudit = %d, %v; want entry 3 not vouched for", bad, err)
	}
	st.Close()
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := st.HeadFileNote(); !strings.Contains(n, "was at entry 2, the database at 3") {
		t.Fatalf("note %q", n)
	}
	if _, err := st.VerifyAudit(); err != nil {
		t.Fatal(err)
	}
}

// A state directory others can read, or that another user owns, is refused
// by name with the fix.
func TestCheckPrivateDir(t *testing.T) {
	t.Run("readable by others", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "state")
		os.Mkdir(dir, 0o755)
		os.Chmod(dir, 0o755)
		err := CheckPrivateDir(dir)
		if err == nil || !strings.Contains(err.Error(), "state dir "+dir+" has mode 0755") || !strings.Contains(err.Error(), "chmod 700 "+dir) {
			t.Fatalf("CheckPrivateDir = %v", err)
		}
		os.Chmod(dir, 0o700)
		if err := CheckPrivateDir(dir); err != nil {
			t.Fatalf("a private directory: %v", err)
		}
	})
	t.Run("owned by another user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("requires root to chown a directory to another user")
		}
		dir := filepath.Join(t.TempDir(), "state")
		os.Mkdir(dir, 0o700)
		os.Chown(dir, 65534, 65534)
		if err := CheckPrivateDir(dir); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Fatalf("CheckPrivateDir = %v", err)
		}
	})
}

// A slot torn by a crash (its CRC fails) leaves the other slot, the previous
// head: the file is one entry behind, which the next Open repairs.
func TestHeadFileTornSlot(t *testing.T) {
	st, dir := openTemp(t)
	for i := 1; i <= 4; i++ {
		if _, err := st.AppendAudit("note", "p", map[string]any{"i": i}); err != nil {
			t.Fatal(err)
		}
		// Each head in the file: heads committed faster than the file
		// is written are folded into the newest, and the slot before
		// entry 4's would then hold an older one.
		if err := st.HeadFileErr(); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	path := filepath.Join(dir, "audit.head")
	raw, err := os.ReadFile(path)
	if err != nil || len(raw) != 256 {
		t.Fatalf("head file of %d bytes (%v), want two 128-byte slots", len(raw), err)
	}
	// Entry 4 lives in slot 0; tear it in the middle of its hash.
	raw[40] ^= 0x01
	os.WriteFile(path, raw, 0o600)
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := st.HeadFileNote(); !strings.Contains(n, "was at entry 3, the database at 4") {
		t.Fatalf("note %q", n)
	}
	if seq, _ := readHead(t, dir); seq != 4 {
		t.Fatalf("head file at %d after Open, want 4", seq)
	}
}

// The slot and its check, as fmt writes them: the definition
// formatHeadSlot and headCRC must keep to, byte for byte (head files
// written before stay readable, and `solgate audit` reads either).
func TestHeadSlotFormat(t *testing.T) {
	hash := strings.Repeat("0123456789abcdef", 4)
	for _, h := range []headRecord{{0, GenesisHash}, {1, hash}, {9, hash}, {10, hash}, {123456789, strings.ToUpper(hash)}, {math.MaxInt64, hash}} {
		crc := fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(fmt.Sprintf("%d:%s", h.Seq, h.Hash))))
		line := fmt.Sprintf(`{"seq":%d,"hash":%q,"crc":%q}`, h.Seq, h.Hash, crc)
		want := line + strings.Repeat(" ", headSlotSize-1-len(line)) + "\n"
		if got := headCRC(h); got != crc {
			t.Errorf("headCRC(%d): %q, want %q", h.Seq, got, crc)
		}
		if got := string(formatHeadSlot(h)); got != want {
			t.Errorf("formatHeadSlot(%d):\n%q\nwant\n%q", h.Seq, got, want)
		}
	}
}

// Whatever is planted where the head file goes is refused by name, both
// when a console opens the state and when `solgate audit` verifies it: a
// FIFO is not waited on for a writer, a link to /dev/zero is not followed
// (and read without end), a file past any head file's size is not read
// whole.
func TestHeadFilePlantsAreRefused(t *testing.T) {
	st := seedAudit(t, 2)
	dir := filepath.Dir(st.Path())
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	head := filepath.Join(dir, HeadFileName)
	plant := func(put func() error) {
		t.Helper()
		if err := os.Remove(head); err != nil {
			t.Fatal(err)
		}
		if err := put(); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(what, want string) {
		t.Helper()
		err := testkit.Within(t, 10*time.Second, "Open with "+what, func() error {
			st, err := Open(dir)
			if err == nil {
				st.Close()
			}
			return err
		})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "put back the real one, or remove it") {
			t.Fatalf("Open with %s: %v, want %q and the fix", what, err, want)
		}
		err = testkit.Within(t, 10*time.Second, "VerifyAudit with "+what, func() error {
			st, err := OpenExisting(dir)
			if err != nil {
				return err
			}
			defer st.Close()
			_, err = st.VerifyAudit()
			return err
		})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("VerifyAudit with %s: %v, want %q", what, err, want)
		}
	}

	plant(func() error { return syscall.Mkfifo(head, 0o600) })
	refused("a FIFO", "audit head file "+head+" is not a regular file (p---------)")
	plant(func() error { return os.Symlink("/dev/zero", head) })
	refused("a link to /dev/zero", "audit head file "+head+" is a symbolic link")
	plant(func() error {
		if err := os.WriteFile(head, nil, 0o600); err != nil {
			return err
		}
		return os.Truncate(head, maxHeadFile+1)
	})
	refused("a file past the bound", "audit head file "+head+" is larger than 4096 bytes")
	plant(func() error {
		l, err := net.Listen("unix", head)
		if err == nil {
			t.Cleanup(func() { l.Close() })
		}
		return err
	})
	refused("a socket", "audit head file "+head+" is not a regular file (a socket or a FIFO)")
}

// The open the store keeps for writing its slots (read-write, at Open after
// the head was read and checked) refuses what the read's open refuses: a
// FIFO swapped in after the read is refused, not written into, and a link
// is not followed (here, to the key). Only a race reaches this open through
// Open, so it is called here directly.
func TestHeadFileWriteOpenRefusesPlants(t *testing.T) {
	dir := t.TempDir()
	head := filepath.Join(dir, HeadFileName)
	if err := syscall.Mkfifo(head, 0o600); err != nil {
		t.Fatal(err)
	}
	err := testkit.Within(t, 10*time.Second, "the read-write open of a FIFO", func() error {
		f, err := openHeadFile(head, os.O_RDWR)
		if err == nil {
			f.Close()
		}
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "is not a regular file (p---------)") {
		t.Fatalf("read-write open of a FIFO: %v", err)
	}
	if err := os.Remove(head); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "key.json")
	if err := os.WriteFile(key, []byte("[1,2,3]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(key, head); err != nil {
		t.Fatal(err)
	}
	if f, err := openHeadFile(head, os.O_RDWR); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		if f != nil {
			f.Close()
		}
		t.Fatalf("read-write open of a link to the key: %v", err)
	}
	if raw, _ := os.ReadFile(key); string(raw) != "[1,2,3]" {
		t.Fatalf("the key behind the link changed: %q", raw)
	}
}
