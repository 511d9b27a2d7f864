package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestHostlistErrorQuotesOnce: a malformed --hostlist (or hostlist expand) value is
// quoted once in the message, clipped around the fault, with where it is; the flag's
// copy was whole (1 MB of value, 1 MB of message) and the library's quoted the
// expression, its item and the number again (some 1,090 bytes for a 606-byte value).
func TestHostlistErrorQuotesOnce(t *testing.T) {
	quoted := regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	bad := "a," + strings.Repeat("n", 300) + "[1-" + strings.Repeat("x", 300) + "]"
	huge := strings.Repeat("node1,", 200000) + "n[1-x]"
	for _, args := range [][]string{
		{"curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--hostlist", bad},
		{"sim", "--trace", "../../sim/testdata/sacct-fattree.txt", "--machine", "mesh:4x4", "--alloc", "ff:hilbert", "--hostlist", bad},
		{"plan", "--machine", "mesh:4x4", "--hostlist", bad, "--slurm-conf", "x.conf", "-o", t.TempDir()},
		{"hostlist", "expand", bad},
		{"curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--hostlist", huge},
	} {
		code, _, stderr := runCLI(t, "", args...)
		long := 0
		for _, q := range quoted.FindAllString(stderr, -1) {
			if len(q) > 50 {
				long++
			}
		}
		if code == 0 || len(stderr) > 400 || long != 1 || !strings.Contains(stderr, "is not a number") || !strings.Contains(stderr, "(byte ") {
			t.Errorf("%s: exit %d, %d bytes, %d long quotes:\n%s", args[0], code, len(stderr), long, stderr)
		}
	}
}
