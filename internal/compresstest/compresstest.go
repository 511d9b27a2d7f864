// Package compresstest makes the compressed copies of test inputs that the tests
// of procalloc's compressed-input reading (internal/textin.Decompress) and of the
// commands and packages that read through it compare with the plain input.
package compresstest

import (
	"bytes"
	"compress/gzip"
	"os/exec"
	"testing"
)

// Gzip is data gzip-compressed (one member), by the standard library.
func Gzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Bzip2 is data compressed by the bzip2 command (the standard library has no
// bzip2 writer), nil when the command is absent: the caller skips or leaves
// bzip2 out, saying so.
func Bzip2(t testing.TB, data []byte) []byte {
	t.Helper()
	if _, err := exec.LookPath("bzip2"); err != nil {
		return nil
	}
	cmd := exec.Command("bzip2", "-c")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bzip2 -c: %v", err)
	}
	return out
}
