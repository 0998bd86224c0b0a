package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// GenesisHash is the prev_hash of the first audit entry.
var GenesisHash = strings.Repeat("0", 64)

// AuditEntry is one link of the append-only trail.
//
// Hash = hex(sha256(PrevHash || canonical)), where canonical is the JSON
// object {"seq":…,"at":…,"kind":…,"proposal_id":…,"body":…} in exactly that
// key order, at in unix nanoseconds and body the stored canonical JSON
// verbatim. Including seq makes a removed entry visible as a gap even if the
// remaining links were recomputed.
type AuditEntry struct {
	Seq        int64           `json:"seq"`
	At         time.Time       `json:"at"`
	Kind       string          `json:"kind"`
	ProposalID string          `json:"proposal_id"`
	Body       json.RawMessage `json:"body"`
	PrevHash   string          `json:"prev_hash"`
	Hash       string          `json:"hash"`
}

// Why an audit trail failed verification; reachable with errors.Is.
var (
	ErrAuditHashMismatch = errors.New("hash mismatch: the entry was altered")
	ErrAuditGap          = errors.New("gap: an entry is missing")
	ErrAuditPrevHash     = errors.New("prev-hash mismatch: the entry does not link to the one before it")
	ErrAuditTruncated    = errors.New("truncated: newest entries are missing")
)

// AuditError names the first bad entry.
type AuditError struct {
	Seq    int64
	Detail string
	Err    error // one of the ErrAudit* sentinels
}

func (e *AuditError) Error() string {
	return fmt.Sprintf("audit entry %d: %v (%s)", e.Seq, e.Err, e.Detail)
}

func (e *AuditError) Unwrap() error { return e.Err }

// canonicalBody renders body as compact JSON with object keys sorted, so the
// same value always hashes the same however it was produced: marshalled,
// decoded into interfaces and marshalled again (maps marshal with sorted
// keys). The chain hashes these bytes, so they must never change for a
// record (TestStoredChainStillVerifiesAndCanonicalisesTheSame holds them to
// a trail an older store wrote).
func canonicalBody(body any) (string, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep large integers (lamports, slots) exact
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

func canonicalEntry(seq, at int64, kind, proposalID, body string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"seq":`)
	b.WriteString(strconv.FormatInt(seq, 10))
	b.WriteString(`,"at":`)
	b.WriteString(strconv.FormatInt(at, 10))
	b.WriteString(`,"kind":`)
	b.WriteString(strconv.Quote(kind))
	b.WriteString(`,"proposal_id":`)
	b.WriteString(strconv.Quote(proposalID))
	b.WriteString(`,"body":`)
	b.WriteString(body)
	b.WriteString(`}`)
	return b.Bytes()
}

func entryHash(prevHash string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(prevHash))
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
}

// appendAuditTx appends one entry after prev, the chain's head as this
// transaction has it (see chainHead). When the entry's seq is taken, the
// head was stale (another process appended): it is read again from the
// database and the append tried once more.
func (s *Store) appendAuditTx(tx *writeTx, prev headRecord, kind, proposalID string, body any) (AuditEntry, error) {
	if kind == "" {
		return AuditEntry{}, errors.New("append audit: empty kind")
	}
	text, err := canonicalBody(body)
	if err != nil {
		return AuditEntry{}, fmt.Errorf("append audit %s: encode body: %w", kind, err)
	}
	at := time.Now().UnixNano()
	for retried := false; ; retried = true {
		seq := prev.Seq + 1
		hash := entryHash(prev.Hash, canonicalEntry(seq, at, kind, proposalID, text))
		_, err := s.txExec(tx, `INSERT INTO audit (seq, at, kind, proposal_id, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			seq, at, kind, proposalID, text, prev.Hash, hash)
		if err == nil {
			// The head row moves once per transaction, to its last entry
			// (moveHeadTx, from commitGroup).
			return AuditEntry{Seq: seq, At: fromNanos(at), Kind: kind, ProposalID: proposalID, Body: json.RawMessage(text), PrevHash: prev.Hash, Hash: hash}, nil
		}
		fresh, rerr := s.readChainHeadTx(tx)
		if retried || rerr != nil || fresh == prev {
			return AuditEntry{}, fmt.Errorf("append audit %s: %w", kind, err)
		}
		prev = fresh
	}
}

// readChainHeadTx reads the chain's newest entry (seq 0 and GenesisHash
// for an empty trail).
func (s *Store) readChainHeadTx(tx *writeTx) (headRecord, error) {
	h := headRecord{Hash: GenesisHash}
	switch err := s.txQueryRow(tx, `SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1`).Scan(&h.Seq, &h.Hash); {
	case errors.Is(err, sql.ErrNoRows):
		return headRecord{Hash: GenesisHash}, nil
	case err != nil:
		return headRecord{}, fmt.Errorf("read audit chain head: %w", err)
	}
	return h, nil
}

// moveHeadTx records e as the chain's head in the transaction that
// appended it.
func (s *Store) moveHeadTx(tx *writeTx, e AuditEntry) error {
	if _, err := s.txExec(tx, `INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash`, e.Seq, e.Hash); err != nil {
		return fmt.Errorf("append audit %s: move head: %w", e.Kind, err)
	}
	return nil
}

// AppendAudit appends a free-standing entry (e.g. "console_start",
// "pause", "revoke_tokens"). body must marshal to JSON and must never hold
// a secret: the trail is printed by `solgate audit`.
func (s *Store) AppendAudit(kind, proposalID string, body any) (AuditEntry, error) {
	return s.write(kind, proposalID, body, nil)
}

type auditHead struct {
	present bool
	seq     int64
	hash    string
}

func (s *Store) readAudit() ([]AuditEntry, auditHead, error) {
	// One read transaction, so entries and head are one consistent snapshot
	// even while a console appends.
	tx, err := s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, auditHead{}, fmt.Errorf("read audit: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT seq, at, kind, proposal_id, body, prev_hash, hash FROM audit ORDER BY seq`)
	if err != nil {
		return nil, auditHead{}, fmt.Errorf("read audit: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at int64
		var body string
		if err := rows.Scan(&e.Seq, &at, &e.Kind, &e.ProposalID, &body, &e.PrevHash, &e.Hash); err != nil {
			return nil, auditHead{}, fmt.Errorf("read audit: %w", err)
		}
		e.At, e.Body = fromNanos(at), json.RawMessage(body)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, auditHead{}, fmt.Errorf("read audit: %w", err)
	}
	var head auditHead
	switch err := tx.QueryRow(`SELECT seq, hash FROM audit_head WHERE id = 1`).Scan(&head.seq, &head.hash); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, auditHead{}, fmt.Errorf("read audit head: %w", err)
	default:
		head.present = true
	}
	return out, head, nil
}

// Audit returns the whole trail, oldest first.
func (s *Store) Audit() ([]AuditEntry, error) {
	entries, _, err := s.readAudit()
	return entries, err
}

// VerifyAudit recomputes the chain. It returns (0, nil) when intact, else
// the seq of the first bad entry and an *AuditError saying why.
//
// When the state directory has an audit head file, the chain must also reach
// the entry it names with the hash it records, and end there: a database
// re-chained by someone who could not rewrite the file fails, naming the
// entry the file vouches for.
func (s *Store) VerifyAudit() (badSeq int64, err error) {
	// The file is read before and after the database: a console appending
	// meanwhile moves it forward, never back.
	// This store may be writing the file: let its last commit's head land.
	s.headMu.Lock()
	s.flushHeadLocked()
	s.headMu.Unlock()
	path := s.HeadFilePath()
	before, ferr := readHeadFile(path)
	entries, head, err := s.readAudit()
	if err != nil {
		return 0, err
	}
	if e := VerifyChain(entries, head.present, head.seq, head.hash); e != nil {
		return e.Seq, e
	}
	switch {
	case errors.Is(ferr, fs.ErrNotExist):
		return 0, nil
	case ferr != nil:
		return 0, ferr
	}
	ahead, e := checkHeadFile(entries, before, path)
	if e != nil {
		return e.Seq, e
	}
	if ahead > 0 {
		if after, err := readHeadFile(path); err == nil && after.Seq >= int64(len(entries)) {
			return 0, nil
		}
		e := &AuditError{Seq: before.Seq + 1, Err: ErrAuditHeadFile,
			Detail: fmt.Sprintf("%s ends at entry %d: entries %d to %d are not vouched for by it", path, before.Seq, before.Seq+1, len(entries))}
		return e.Seq, e
	}
	return 0, nil
}

// HasHeadFile reports whether the state directory has an audit head file
// (state directories from before it have none until a console opens them).
func (s *Store) HasHeadFile() bool {
	_, err := os.Stat(s.HeadFilePath())
	return err == nil
}

// VerifyChain checks entries (ordered by seq) against each other and against
// the recorded head. Exported for tools that read the trail themselves.
func VerifyChain(entries []AuditEntry, headPresent bool, headSeq int64, headHash string) *AuditError {
	prevHash := GenesisHash
	want := int64(1)
	for _, e := range entries {
		if e.Seq != want {
			return &AuditError{Seq: want, Err: ErrAuditGap,
				Detail: fmt.Sprintf("expected entry %d next, found %d: entries %d to %d are missing", want, e.Seq, want, e.Seq-1)}
		}
		computed := entryHash(e.PrevHash, canonicalEntry(e.Seq, e.At.UnixNano(), e.Kind, e.ProposalID, string(e.Body)))
		if computed != e.Hash {
			return &AuditError{Seq: e.Seq, Err: ErrAuditHashMismatch,
				Detail: fmt.Sprintf("stored %s, recomputed %s", short(e.Hash), short(computed))}
		}
		if e.PrevHash != prevHash {
			return &AuditError{Seq: e.Seq, Err: ErrAuditPrevHash,
				Detail: fmt.Sprintf("prev_hash %s, but entry %d hashes to %s", short(e.PrevHash), e.Seq-1, short(prevHash))}
		}
		prevHash = e.Hash
		want++
	}
	last := want - 1
	switch {
	case !headPresent && last == 0:
		return nil
	case !headPresent:
		return &AuditError{Seq: last + 1, Err: ErrAuditTruncated,
			Detail: fmt.Sprintf("the chain head record is missing, so nothing vouches that the trail ends at entry %d", last)}
	case headSeq > last:
		return &AuditError{Seq: last + 1, Err: ErrAuditTruncated,
			Detail: fmt.Sprintf("the head records %d entries but only %d remain: entries %d to %d were removed", headSeq, last, last+1, headSeq)}
	case headSeq != last || headHash != prevHash:
		return &AuditError{Seq: last, Err: ErrAuditHashMismatch,
			Detail: fmt.Sprintf("the head records entry %d with hash %s, the chain ends at %d with %s", headSeq, short(headHash), last, short(prevHash))}
	}
	return nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
