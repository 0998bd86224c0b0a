package authority_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A kind states its landed-effects check and its grant rule, or it does not
// build: the two are methods of Kind, with no default behind them. The
// small kind in testdata/kindpieces is built as it is (it must compile, or
// this test proves nothing), then without each piece, through an overlay
// of its one file; each build must fail naming the missing method.
func TestAKindMustStateItsPieces(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the test kind: %v", err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "kindpieces", "kind.go"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	build := func(t *testing.T, text string) (string, error) {
		t.Helper()
		dir := t.TempDir()
		file, overlay := filepath.Join(dir, "kind.go"), filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		o, _ := json.Marshal(map[string]any{"Replace": map[string]string{src: file}})
		if err := os.WriteFile(overlay, o, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(goBin, "build", "-overlay", overlay, "-o", os.DevNull, "./testdata/kindpieces").CombinedOutput()
		return string(out), err
	}
	without := func(piece string) string {
		var keep []string
		for _, l := range strings.Split(string(whole), "\n") {
			if !strings.HasSuffix(l, "// piece: "+piece) {
				keep = append(keep, l)
			}
		}
		if len(keep) != strings.Count(string(whole), "\n") {
			t.Fatalf("testdata/kindpieces/kind.go has no line marked %q", "// piece: "+piece)
		}
		return strings.Join(keep, "\n")
	}

	if out, err := build(t, string(whole)); err != nil {
		t.Fatalf("the whole kind does not build, so nothing below would prove anything: %v\n%s", err, out)
	}
	for _, c := range []struct{ piece, method string }{{"landed", "CheckLanded"}, {"grant", "Grant"}} {
		t.Run("without "+c.method, func(t *testing.T) {
			out, err := build(t, without(c.piece))
			if err == nil {
				t.Fatalf("a kind without %s builds: the missing piece would be a default, not a compile error", c.method)
			}
			if !strings.Contains(out, "missing method "+c.method) {
				t.Errorf("the build failed, but not for the missing %s:\n%s", c.method, out)
			}
		})
	}
}
