package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	solana "github.com/gagliardetto/solana-go"

	"github.com/solgate/solgate/executor"
	"github.com/solgate/solgate/localnet"
	"github.com/solgate/solgate/localnet/testkit"
)

// A release binary is built the way .ci/release/goreleaser.yaml builds one:
// -trimpath and the VCS stamp. These tests build it from fresh clones of
// this commit, so they see what a user's `go install -trimpath` or a release
// archive holds, not this worktree.

// cloneAt clones the repository at HEAD into dir (a plain clone, so the go
// command finds .git and stamps the revision).
func cloneAt(t *testing.T, dir string) string {
	t.Helper()
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("requires a git checkout: %v", err)
	}
	rev := strings.TrimSpace(string(head))
	for _, args := range [][]string{
		{"clone", "--quiet", "--no-checkout", repoRoot(t), dir},
		{"-C", dir, "checkout", "--quiet", rev},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return rev
}

func releaseBuild(t *testing.T, src, out string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=true", "-o", out, "./cmd/solgate")
	cmd.Dir = src
	// Whatever the machine's GOFLAGS say (this one sets -buildvcs=false).
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in %s: %v\n%s", src, err, b)
	}
}

// TestReleaseBuildIsReproducible builds this commit twice, from clones at
// two different paths, and compares the bytes; neither path, nor this
// checkout's, may appear in the binary; and `solgate version --json` names
// the commit.
func TestReleaseBuildIsReproducible(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "first-clone"), filepath.Join(base, "elsewhere", "second")
	rev := cloneAt(t, a)
	cloneAt(t, b)
	binA, binB := filepath.Join(base, "solgate-a"), filepath.Join(base, "solgate-b")
	releaseBuild(t, a, binA)
	releaseBuild(t, b, binB)
	rawA, errA := os.ReadFile(binA)
	rawB, errB := os.ReadFile(binB)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !bytes.Equal(rawA, rawB) {
		t.Fatalf("two builds of %s differ (%d and %d bytes): the release is not reproducible", rev, len(rawA), len(rawB))
	}
	for _, p := range []string{a, b, repoRoot(t)} {
		if bytes.Contains(rawA, []byte(p)) {
			t.Errorf("the binary refers to the source path %s", p)
		}
	}

	out, err := exec.Command(binA, "version", "--json").Output()
	if err != nil {
		t.Fatalf("solgate version --json: %v", err)
	}
	var v struct {
		Module   string `json:"module"`
		Version  string `json:"version"`
		Revision string `json:"vcs_revision"`
		Modified bool   `json:"vcs_modified"`
		Go       string `json:"go"`
		Deps     []struct {
			Path, Version string
		} `json:"deps"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("version --json is not JSON: %v\n%s", err, out)
	}
	goVersion, _ := exec.Command("go", "env", "GOVERSION").Output()
	if v.Module != "github.com/solgate/solgate" || v.Revision != rev || v.Modified ||
		v.Go != strings.TrimSpace(string(goVersion)) || !strings.Contains(v.Version, rev[:12]) {
		t.Errorf("version --json = %+v, want module github.com/solgate/solgate, revision %s unmodified, %s, a version naming the commit", v, rev, goVersion)
	}
	deps := map[string]string{}
	for _, d := range v.Deps {
		deps[d.Path] = d.Version
	}
	// Read from go.mod independently of the binary's own report.
	want, _ := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "golang.org/x/text").Output()
	if got := deps["golang.org/x/text"]; got == "" || got != strings.TrimSpace(string(want)) {
		t.Errorf("version --json lists golang.org/x/text %q, go.mod requires %q", got, want)
	}
}

// installedBinary is a release build whose checkout has been moved away.
func installedBinary(t *testing.T) (bin, rev string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "checkout")
	rev = cloneAt(t, src)
	bin = filepath.Join(dir, "bin", "solgate")
	releaseBuild(t, src, bin)
	if err := os.Rename(src, src+"-moved-away"); err != nil {
		t.Fatal(err)
	}
	return bin, rev
}

// TestInstalledBinaryOutsideCheckout runs a release build from a directory
// outside any checkout, after the checkout it was built from has been moved:
// mcp answers, the console starts, and demo says what it needs.
func TestInstalledBinaryOutsideCheckout(t *testing.T) {
	bin, rev := installedBinary(t)
	outside := t.TempDir()
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, localnet.DirEnv+"=") {
			env = append(env, kv)
		}
	}

	t.Run("demo says what it needs", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// --prove: the interactive demo first asks for a terminal, then
		// reaches the same ledger start.
		cmd := exec.CommandContext(ctx, bin, "demo", "--prove")
		cmd.Dir, cmd.Env = outside, env
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("demo outside a checkout succeeded:\n%s", out)
		}
		for _, want := range []string{"not part of an installed solgate", "solgate checkout", localnet.DirEnv, "Node.js"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("demo's message does not say %q:\n%s", want, out)
			}
		}
	})

	t.Run("mcp", func(t *testing.T) {
		sock := filepath.Join(outside, "none.sock")
		_, res := testkit.StartMCPClient(t, "installed-test", env, "sh", "-c",
			"cd "+shellWords(outside)+" && exec "+shellWords(bin, "mcp", "--socket", sock))
		if res.ServerInfo.Name != "solgate" || !strings.Contains(res.ServerInfo.Version, rev[:12]) {
			t.Errorf("serverInfo = %+v, want solgate at %s", res.ServerInfo, rev[:12])
		}
	})

	t.Run("console", func(t *testing.T) {
		ctx := context.Background()
		// The ledger comes from this test's checkout; the console does not.
		l, err := localnet.Start(ctx, localnet.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		key, _ := executor.NewRandomKeypair()
		if err := l.Fund(ctx, key.PublicKey().String(), solana.LAMPORTS_PER_SOL); err != nil {
			t.Fatal(err)
		}
		keyFile := filepath.Join(outside, "id.json")
		if err := key.WriteFile(keyFile); err != nil {
			t.Fatal(err)
		}
		sockDir := testkit.SocketDir(t)
		errLog := filepath.Join(outside, "stderr")
		command := "cd " + shellWords(outside) + " && exec env -u " + localnet.DirEnv + " " +
			shellWords(bin, "console", "--rpc", l.RPC(), "--keypair", keyFile,
				"--socket", filepath.Join(sockDir, "c.sock"), "--state", filepath.Join(outside, "state")) + " 2>" + shellWords(errLog)
		p := startTmux(t, 140, 40, command)
		testkit.Eventually(t, 60*time.Second, "the console drawn (QUEUE)", func() bool { return strings.Contains(p.screen(), "QUEUE") }, func() string {
			logged, _ := os.ReadFile(errLog)
			return "screen:\n" + p.screen() + "\nstderr:\n" + string(logged)
		})
		if !strings.Contains(p.screen(), key.PublicKey().String()[:4]) {
			t.Errorf("console does not show its wallet %s:\n%s", key.PublicKey(), p.screen())
		}
	})
}

// TestGoInstallAtVersionReportsIt installs this commit the way a user would,
// `go install -trimpath github.com/solgate/solgate/cmd/solgate@VERSION`,
// from a module proxy on disk (this commit's module zip, and the machine's
// module download cache for the dependencies), and asks the binary its
// version: it must be VERSION, not "dev".
func TestGoInstallAtVersionReportsIt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("requires git")
	}
	const version = "v0.0.1-installtest"
	modPath := "github.com/solgate/solgate"
	proxy := filepath.Join(t.TempDir(), "proxy")
	at := filepath.Join(proxy, modPath, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	// The module zip: the tracked files of HEAD under module@version/,
	// without .ci and .github, which hold modules of their own.
	zip := filepath.Join(at, version+".zip")
	arch := exec.Command("git", "archive", "--format=zip", "--prefix="+modPath+"@"+version+"/", "-o", zip, "HEAD", "--", ".", ":!.ci", ":!.github")
	arch.Dir = repoRoot(t)
	if out, err := arch.CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, out)
	}
	gomod, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"list":            version + "\n",
		version + ".info": `{"Version":"` + version + `","Time":"2026-12-01T00:00:00Z"}`,
		version + ".mod":  string(gomod),
	} {
		if err := os.WriteFile(filepath.Join(at, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	download := filepath.Join(strings.TrimSpace(string(cache)), "cache", "download")
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	gobin := t.TempDir()
	cmd := exec.Command(filepath.Join(strings.TrimSpace(string(goroot)), "bin", "go"), "install", "-trimpath", modPath+"/cmd/solgate@"+version)
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = append(os.Environ(),
		"GOBIN="+gobin,
		// A module cache of its own, so the test version never enters the
		// machine's; it fills from the two file proxies without a network.
		"GOMODCACHE="+filepath.Join(t.TempDir(), "modcache"),
		"GOFLAGS=-modcacherw",
		"GOPROXY=file://"+proxy+",file://"+download,
		"GONOSUMDB="+modPath, "GOSUMDB=off",
		// The toolchain already running, not one fetched into that cache.
		"GOTOOLCHAIN=local",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s@%s: %v\n%s", modPath, version, err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "solgate"), "version", "--json").Output()
	if err != nil {
		t.Fatalf("solgate version --json: %v", err)
	}
	var v struct{ Version string }
	if err := json.Unmarshal(out, &v); err != nil || v.Version != version {
		t.Fatalf("installed solgate@%s reports version %q (%v)\n%s", version, v.Version, err, out)
	}
}
