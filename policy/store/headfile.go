package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The hash chain proves that entries were not altered one by one, but whoever
// can write the database can also recompute every hash after an edit, and the
// head row in the same database with them. So the chain's head (sequence
// number and hash) is also kept in a file beside the database. In the
// own-user setup both belong to the console's account, out of the agent's
// reach; a forger who can rewrite the database but not this file is caught.

// HeadFileName is the head file inside the state directory.
const HeadFileName = "audit.head"

// ErrAuditHeadFile means the database disagrees with the head file.
var ErrAuditHeadFile = errors.New("disagrees with the head file: the database was rewritten")

type headRecord struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// HeadFilePath is the head file of the store's state directory.
func (s *Store) HeadFilePath() string { return filepath.Join(filepath.Dir(s.path), HeadFileName) }

// The head file holds two fixed-size slots, one JSON line each:
//
//	{"seq":41,"hash":"<64 hex>","crc":"<crc32 of seq:hash>"}   (padded to 128 bytes)
//	{"seq":42,"hash":"<64 hex>","crc":"…"}
//
// Entry n is written in place into slot n%2, so the other slot always holds
// the previous head, and fdatasynced at most once in headSyncEvery
// (writeHeads). The head is the valid slot with the higher seq. A write
// torn by a crash fails its CRC and leaves the file behind the database,
// which the next Open advances, saying so. Replacing the file (temporary
// file, fsync, rename) measured about 0.8 ms per commit, four times the
// commit itself; a data sync per commit was a third of the store's CPU a
// proposal. The file is only created that way, when missing or behind.
const headSlotSize = 128

// headCRC is the slot's check: the CRC-32 of "seq:hash", as 8 hex digits.
func headCRC(h headRecord) string { return string(appendHeadCRC(nil, h)) }

// appendHeadCRC and formatHeadSlot append their fields rather than go
// through fmt: every commit writes a slot (TestHeadSlotFormat holds them to
// the fmt definitions).
func appendHeadCRC(dst []byte, h headRecord) []byte {
	var buf [96]byte
	in := strconv.AppendInt(buf[:0], h.Seq, 10)
	in = append(append(in, ':'), h.Hash...)
	sum := crc32.ChecksumIEEE(in)
	const digits = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, digits[sum>>shift&0xf])
	}
	return dst
}

func formatHeadSlot(h headRecord) []byte {
	out := make([]byte, 0, headSlotSize)
	out = append(out, `{"seq":`...)
	out = strconv.AppendInt(out, h.Seq, 10)
	out = append(out, `,"hash":`...)
	out = strconv.AppendQuote(out, h.Hash)
	out = append(out, `,"crc":"`...)
	out = appendHeadCRC(out, h)
	out = append(out, `"}`...)
	for len(out) < headSlotSize-1 {
		out = append(out, ' ')
	}
	return append(out, '\n')
}

// createHeadFile writes a new head file with both slots at h: temporary
// file, fsync, rename, directory fsync.
func createHeadFile(path string, h headRecord) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+HeadFileName+".*") // mode 0600
	if err != nil {
		return fmt.Errorf("write audit head file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	slot := formatHeadSlot(h)
	_, err = tmp.Write(append(append([]byte{}, slot...), slot...))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err == nil {
		var d *os.File
		if d, err = os.Open(filepath.Dir(path)); err == nil {
			err = d.Sync()
			d.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("write audit head file %s: %w", path, err)
	}
	return nil
}

// writeHeadSlot records h in its slot of the open head file; the data sync
// follows (writeHeads).
func writeHeadSlot(f *os.File, h headRecord) error {
	if _, err := f.WriteAt(formatHeadSlot(h), (h.Seq%2)*headSlotSize); err != nil {
		return fmt.Errorf("write audit head file %s: %w", f.Name(), err)
	}
	return nil
}

// maxHeadFile bounds what is read of the head file: far more than its two
// slots, and a link to a file without end is refused before that.
const maxHeadFile = 4096

// headFileFix is what to do about a head file the console cannot use.
const headFileFix = "the console keeps the audit head in a regular file of its own there: put back the real one, or remove it (the next console recreates it from the database, which then alone vouches for the trail)"

// openHeadFile opens the head file with flag, never through a link (the
// console would read, or write its slots into, whatever it points at) and
// never waiting (a FIFO planted there would wait for a writer); only a
// regular file is accepted. A missing file's error is the open's own.
func openHeadFile(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("audit head file %s is a symbolic link: %s", path, headFileFix)
	}
	if errors.Is(err, syscall.ENXIO) {
		// What open(2) refuses so is a socket (or, for writing, a FIFO
		// no one reads).
		return nil, fmt.Errorf("audit head file %s is not a regular file (a socket or a FIFO): %s", path, headFileFix)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("audit head file %s is not a regular file (%s): %s", path, fi.Mode().Type(), headFileFix)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func readHeadFile(path string) (headRecord, error) {
	f, err := openHeadFile(path, os.O_RDONLY)
	if err != nil {
		return headRecord{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHeadFile+1))
	if err != nil {
		return headRecord{}, fmt.Errorf("read audit head file %s: %w", path, err)
	}
	if len(data) > maxHeadFile {
		return headRecord{}, fmt.Errorf("audit head file %s is larger than %d bytes, not two %d-byte slots: %s", path, maxHeadFile, headSlotSize, headFileFix)
	}
	best, found := headRecord{}, false
	for _, line := range strings.Split(string(data), "\n") {
		var slot struct {
			headRecord
			CRC string `json:"crc"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(line)), &slot) != nil || slot.Seq < 0 || len(slot.Hash) != 64 || slot.CRC != headCRC(slot.headRecord) {
			continue // a slot torn by a crash
		}
		if !found || slot.Seq > best.Seq {
			best, found = slot.headRecord, true
		}
	}
	if !found {
		return best, fmt.Errorf("audit head file %s holds no valid head record (want lines {\"seq\":N,\"hash\":\"<64 hex>\",\"crc\":\"<8 hex>\"})", path)
	}
	return best, nil
}

// checkHeadFile compares the chain with the head file. It returns nil when
// the entry the file names is in the chain with the file's hash and no
// entry follows it; ahead reports how many entries follow it (a console
// stopped between committing and writing the file, or appended entries).
func checkHeadFile(entries []AuditEntry, h headRecord, path string) (ahead int64, err *AuditError) {
	last := int64(len(entries))
	switch {
	case h.Seq == 0 && h.Hash == GenesisHash:
		return last, nil
	case h.Seq > last:
		return 0, &AuditError{Seq: last + 1, Err: ErrAuditHeadFile,
			Detail: fmt.Sprintf("%s records entry %d, the database ends at entry %d: entries %d to %d were removed", path, h.Seq, last, last+1, h.Seq)}
	}
	if e := entries[h.Seq-1]; e.Hash != h.Hash {
		return 0, &AuditError{Seq: h.Seq, Err: ErrAuditHeadFile,
			Detail: fmt.Sprintf("%s records entry %d with hash %s, the database has %s: the trail was re-chained at or before entry %d", path, h.Seq, short(h.Hash), short(e.Hash), h.Seq)}
	}
	return last - h.Seq, nil
}

// syncHeadFile runs when the console opens its state: it creates a missing
// head file from the current head, and advances one that is behind a chain
// that extends it. A head file the chain does not extend is an error: the
// console must not bless a rewritten database by writing its head. The
// returned note says what was done, for the operator.
func (s *Store) syncHeadFile() (note string, err error) {
	entries, _, err := s.readAudit()
	if err != nil {
		return "", err
	}
	if e := VerifyChain(entries, true, int64(len(entries)), headHash(entries)); e != nil {
		return "", fmt.Errorf("audit trail: %w; run `solgate audit` to see it", e)
	}
	path := s.HeadFilePath()
	cur := headRecord{Seq: int64(len(entries)), Hash: headHash(entries)}
	h, rerr := readHeadFile(path)
	switch {
	case errors.Is(rerr, fs.ErrNotExist):
		if err := createHeadFile(path, cur); err != nil {
			return "", err
		}
		if cur.Seq == 0 {
			return "", nil
		}
		return fmt.Sprintf("created the audit head file %s from the current head (entry %d): entries up to there are vouched for by the database alone", path, cur.Seq), nil
	case rerr != nil:
		return "", rerr
	}
	ahead, aerr := checkHeadFile(entries, h, path)
	if aerr != nil {
		return "", fmt.Errorf("audit trail: %w; run `solgate audit` to see it", aerr)
	}
	if ahead == 0 {
		return "", nil
	}
	if err := createHeadFile(path, cur); err != nil {
		return "", err
	}
	return fmt.Sprintf("the audit head file was at entry %d, the database at %d: advanced it (a console stopped between the two writes, or someone appended entries %d to %d; `solgate audit` shows them)", h.Seq, cur.Seq, h.Seq+1, cur.Seq), nil
}

func headHash(entries []AuditEntry) string {
	if n := len(entries); n > 0 {
		return entries[n-1].Hash
	}
	return GenesisHash
}
