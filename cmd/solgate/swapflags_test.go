package main

import (
	"strings"
	"testing"
)

// --swap-program takes base58 program ids; anything else is one clear error
// naming the flag.
func TestSwapProgramFlag(t *testing.T) {
	got, err := parseSwapPrograms([]string{"JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4", " MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr "})
	if err != nil || len(got) != 2 || got[1].String() != "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" {
		t.Fatalf("valid ids: %v %v", got, err)
	}
	if _, err := parseSwapPrograms([]string{"not-a-key"}); err == nil || !strings.Contains(err.Error(), `--swap-program "not-a-key"`) {
		t.Fatalf("invalid id: %v", err)
	}
}
