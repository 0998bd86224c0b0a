package authority_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/solgate/solgate/localnet/testkit"
	"github.com/solgate/solgate/mcpbridge/authority/host"
)

// The console reads with recvmsg to learn each message's sender; file
// descriptors a peer sends along (SCM_RIGHTS) must not pile up in the
// console's process: it has a budget of them (DefaultReservedFDs).
func TestDescriptorsSentToTheConsoleAreNotKept(t *testing.T) {
	path := filepath.Join(testkit.SocketDir(t), "s")
	l, err := host.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := host.NewSocketHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, "ok")
	}))
	go srv.Serve(l)
	defer srv.Close()
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	fds := make([]int, 8)
	for i := range fds {
		fds[i] = int(devnull.Fd())
	}
	br := bufio.NewReader(c)
	ask := func(rights []byte) {
		t.Helper()
		req := "POST /x HTTP/1.1\r\nHost: solgate\r\nContent-Length: 2\r\n\r\n{}"
		if _, _, err := c.WriteMsgUnix([]byte(req), rights, nil); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ask(nil) // the connection served once before counting
	before := openFDs(t)
	for range 20 {
		ask(syscall.UnixRights(fds...))
	}
	if after := openFDs(t); after > before {
		t.Fatalf("the console holds %d descriptors after 160 were sent to it, %d before", after, before)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
