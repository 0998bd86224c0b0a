package mcpbridge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
)

// rawAnswers are the bytes a net/http server really sends for each handler,
// read off a socket.
func rawAnswers(t *testing.T, handlers map[string]http.HandlerFunc) map[string][]byte {
	t.Helper()
	ln, _ := listenConsoleSocket(t)
	mux := http.NewServeMux()
	for path, h := range handlers {
		mux.HandleFunc(path, h)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	out := map[string][]byte{}
	for path := range handlers {
		c, err := net.Dial("unix", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: solgate\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", path)
		var raw bytes.Buffer
		resp, err := http.ReadResponse(bufio.NewReader(io.TeeReader(c, &raw)), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		c.Close()
		out[path] = raw.Bytes()
	}
	return out
}

// readHead takes the answers the console's net/http server writes, and
// every answer, read with it where it can and with http.ReadResponse where
// it cannot, reads as http.ReadResponse alone reads it: status, body,
// refusal, whether the connection stays, and whether it fails. It went red
// when readHead ignored Connection: close, took a second Content-Length,
// read a 204's body, or took a Transfer-Encoding.
func TestReadHeadAgreesWithReadResponse(t *testing.T) {
	canned, err := os.ReadFile("testdata/pending_transfer_sol.json")
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 9000)
	served := rawAnswers(t, map[string]http.HandlerFunc{
		"/answer":  func(w http.ResponseWriter, r *http.Request) { writeAnswer(w, canned) },
		"/empty":   func(w http.ResponseWriter, r *http.Request) { writeAnswer(w, nil) },
		"/small":   func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"isError":true,"text":"x"}`)) },
		"/error":   func(w http.ResponseWriter, r *http.Request) { http.Error(w, "bad request", http.StatusBadRequest) },
		"/chunked": func(w http.ResponseWriter, r *http.Request) { w.Write(big) },
		"/refused": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(RefusalHeader, "uid")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{}`))
		},
	})
	// What must take the fast path: the console's answers.
	fast := []string{"/answer", "/empty", "/small", "/refused", "refusal"}
	answers := map[string]string{
		// authority's writeRefusal, as it writes it.
		"refusal":          "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nX-Solgate-Refused: uid\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}",
		"http/1.0":         "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"no reason":        "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\n{}",
		"lower case":       "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-solgate-refused: 1\r\n\r\n{}",
		"204":              "HTTP/1.1 204 No Content\r\nContent-Length: 2\r\n\r\n{}",
		"304":              "HTTP/1.1 304 Not Modified\r\nContent-Length: 2\r\n\r\n{}",
		"100 then 200":     "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"two lengths":      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}x",
		"same two lengths": "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
		"signed length":    "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n{}",
		"no length":        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}",
		"too long":         fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n{}", maxAnswerBytes+1),
		"cut short":        "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{}",
		"nothing":          "",
		"head cut short":   "HTTP/1.1 200 OK\r\nContent-Len",
		"bare newlines":    "HTTP/1.1 200 OK\nContent-Length: 2\n\n{}",
		"folded":           "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n  ; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}",
		"keep-alive":       "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}",
		"close, upper":     "HTTP/1.1 200 OK\r\nConnection: CLOSE\r\nContent-Length: 2\r\n\r\n{}",
		"chunked":          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"chunked and len":  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"empty refusal":    "HTTP/1.1 403 Forbidden\r\nX-Solgate-Refused:  \r\nContent-Length: 2\r\n\r\n{}",
		"two refusals":     "HTTP/1.1 403 Forbidden\r\nX-Solgate-Refused:\r\nX-Solgate-Refused: uid\r\nContent-Length: 2\r\n\r\n{}",
		"space in name":    "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\n{}",
		"not http":         "SSH-2.0-OpenSSH\r\n\r\n",
		"status 999":       "HTTP/1.1 999 What\r\nContent-Length: 2\r\n\r\n{}",
	}
	for path, raw := range served {
		answers[path] = string(raw)
	}
	for name, raw := range answers {
		if _, ok := readHead(bufio.NewReader(strings.NewReader(raw))); !ok && contains(fast, name) {
			t.Errorf("%s: the console's answer was left to http.ReadResponse:\n%q", name, raw)
		}
		br := bufio.NewReader(strings.NewReader(raw))
		var status int
		var ans answer
		var reuse bool
		var err error
		if head, ok := readHead(br); ok {
			status, ans, reuse, err = readBody(br, head)
		} else {
			status, ans, reuse, err = readResponse(br)
		}
		wStatus, wAns, wReuse, wErr := readResponse(bufio.NewReader(strings.NewReader(raw)))
		if (err != nil) != (wErr != nil) || (err == nil && (status != wStatus || !bytes.Equal(ans.body, wAns.body) || ans.refused != wAns.refused || reuse != wReuse)) {
			t.Errorf("%s: read as %d %q refused %v reuse %v err %v; http.ReadResponse: %d %q refused %v reuse %v err %v\n%q",
				name, status, ans.body, ans.refused, reuse, err, wStatus, wAns.body, wAns.refused, wReuse, wErr, raw)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
