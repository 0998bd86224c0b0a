package executor

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"github.com/gagliardetto/solana-go"
)

// Keypair holds the console's signing key. It exists so the secret can never be
// printed by accident: solana.PrivateKey's String method prints the secret, so the
// key is kept unexported and every formatting path shows only the public key.
type Keypair struct {
	priv solana.PrivateKey
	pub  solana.PublicKey
}

// ErrKeypair is wrapped by every keypair-loading error so callers can branch on it.
var ErrKeypair = errors.New("keypair")

// DefaultKeypairPath is where the Solana CLI keeps its default keypair.
func DefaultKeypairPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".config", "solana", "id.json")
	}
	return filepath.Join(home, ".config", "solana", "id.json")
}

// LoadKeypair reads a Solana CLI keypair file: a JSON array of 64 bytes (the 32-byte
// seed followed by the 32-byte public key). Like ssh, it refuses a file that group
// or others can read, and one that belongs to another user (who could loosen its
// mode or swap the key at any time), and anything but a regular file (a FIFO
// planted there would make it wait for a writer). Errors name the file and
// the fix but never its contents.
func LoadKeypair(path string) (*Keypair, error) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist (create one with `solgate keygen -o %s`, or pass --keypair FILE)", ErrKeypair, path, path)
		}
		return nil, fmt.Errorf("%w: %v", ErrKeypair, err)
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%w: %s is a directory, expected a keypair file (a JSON array of 64 numbers)", ErrKeypair, path)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (%s), expected a keypair file (a JSON array of 64 numbers)", ErrKeypair, path, info.Mode().Type())
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != uint32(os.Geteuid()) {
		return nil, fmt.Errorf("%w: %s belongs to uid %d, not to the user the console runs as (uid %d): the key must belong to that user alone: run `sudo chown %d %s`, or start the console as the key's owner", ErrKeypair, path, st.Uid, os.Geteuid(), os.Geteuid(), path)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s is readable by other users (mode %04o); a signing key must be private: run `chmod 600 %s`", ErrKeypair, path, perm, path)
	}
	raw, err := readKeypairFile(path, info)
	if err != nil {
		return nil, err
	}
	kp, err := ParseKeypair(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrKeypair, path, err)
	}
	return kp, nil
}

// maxKeypairFile bounds what is read of a keypair file: the Solana CLI's
// format is at most 257 bytes, and a link to a file without end (such as
// /proc/self/pagemap, which passes the owner and mode checks) must not fill
// the console's memory.
const maxKeypairFile = 64 << 10

// readKeypairFile reads the file LoadKeypair checked as seen: it is opened
// without waiting (a FIFO swapped in after the check would wait for a
// writer) and must still be that file, and at most maxKeypairFile bytes are
// read.
func readKeypairFile(path string, seen fs.FileInfo) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %v", ErrKeypair, path, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %v", ErrKeypair, path, err)
	}
	if !os.SameFile(seen, opened) {
		return nil, fmt.Errorf("%w: %s was replaced while it was checked: try again, and find out what replaces it", ErrKeypair, path)
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxKeypairFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %v", ErrKeypair, path, err)
	}
	if len(raw) > maxKeypairFile {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes, expected a keypair file (a JSON array of 64 numbers)", ErrKeypair, path, maxKeypairFile)
	}
	return raw, nil
}

// ParseKeypair decodes the Solana CLI's JSON keypair format. Its error messages
// describe the shape only; they never echo the bytes, which are the secret.
func ParseKeypair(raw []byte) (*Keypair, error) {
	var nums []int
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&nums); err != nil {
		return nil, errors.New("not a JSON array of numbers (expected the Solana CLI format: [n0, n1, …, n63])")
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON array")
	}
	if len(nums) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("holds %d numbers, expected %d (32-byte seed + 32-byte public key)", len(nums), ed25519.PrivateKeySize)
	}
	key := make([]byte, len(nums))
	for i, n := range nums {
		if n < 0 || n > 255 {
			return nil, fmt.Errorf("element %d is not a byte (0..255)", i)
		}
		key[i] = byte(n)
	}
	// The second half must be the public key of the first: a file with a
	// mismatched half would sign as an address the operator did not expect.
	derived := ed25519.NewKeyFromSeed(key[:32])
	if !bytes.Equal(derived[32:], key[32:]) {
		return nil, errors.New("public-key half does not match the seed (file corrupted or not a Solana keypair)")
	}
	priv := solana.PrivateKey(key)
	return &Keypair{priv: priv, pub: priv.PublicKey()}, nil
}

// NewRandomKeypair makes a fresh key, for tests, the demo and `prove`'s recipient.
func NewRandomKeypair() (*Keypair, error) {
	priv, err := solana.NewRandomPrivateKey()
	if err != nil {
		return nil, err
	}
	return &Keypair{priv: priv, pub: priv.PublicKey()}, nil
}

// WriteFile stores the key in the Solana CLI format with mode 0600.
func (k *Keypair) WriteFile(path string) error {
	nums := make([]int, len(k.priv))
	for i, b := range k.priv {
		nums[i] = int(b)
	}
	data, err := json.Marshal(nums)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// CreateFile stores the key as WriteFile does, but only in a file that does
// not exist yet (parent directories are made 0700): a new key must never
// replace one that may hold funds.
func (k *Keypair) CreateFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("%w: create %s: %v", ErrKeypair, filepath.Dir(path), err)
	}
	nums := make([]int, len(k.priv))
	for i, b := range k.priv {
		nums[i] = int(b)
	}
	data, err := json.Marshal(nums)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s already exists: a new key never replaces one (it may hold funds); choose another file", ErrKeypair, path)
	}
	if err != nil {
		return fmt.Errorf("%w: create %s: %v", ErrKeypair, path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("%w: write %s: %v", ErrKeypair, path, err)
	}
	return nil
}

// PublicKey is the wallet address.
func (k *Keypair) PublicKey() solana.PublicKey { return k.pub }

// signer returns the private key for exactly one public key, the getter shape
// solana-go's Transaction.Sign expects; any other key gets nil.
func (k *Keypair) signer(pub solana.PublicKey) *solana.PrivateKey {
	if pub.Equals(k.pub) {
		return &k.priv
	}
	return nil
}

// String, GoString, Format and LogValue all show the public key only.
func (k *Keypair) String() string   { return "Keypair(" + k.pub.String() + ")" }
func (k *Keypair) GoString() string { return k.String() }
func (k *Keypair) Format(f fmt.State, _ rune) {
	_, _ = f.Write([]byte(k.String()))
}
func (k *Keypair) LogValue() slog.Value { return slog.StringValue(k.String()) }
