package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCurveSlurmFormatRefusals: curve's Slurm topology outputs refuse what Slurm
// could not read, naming the flag and the problem: flag values (placements that do
// not fit, a machine that is not a torus of at most three dimensions, no host
// names) exit 2; a network whose host hangs on another host, not a switch, exit 1.
func TestCurveSlurmFormatRefusals(t *testing.T) {
	g := filepath.Join(t.TempDir(), "g.txt")
	os.WriteFile(g, []byte("%switch s\na b\nb s\nc s\n"), 0o644)
	t3 := []string{"curve", "--curve", "snake", "--format", "slurm-torus3d"}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{append(t3, "--machine", "torus:4x2x2", "--hostlist", "n[01-16]", "--placements", "8x1x1"), 2, "--placements: placement 8x1x1 does not fit in the 4x2x2 torus"},
		{append(t3, "--machine", "torus:4x2x2", "--hostlist", "n[01-16]", "--placements", "32"), 2, "--placements: placement 32: no box of 32 nodes fits in the 4x2x2 torus"},
		{append(t3, "--machine", "torus:2x2x2x2", "--hostlist", "n[01-16]"), 2, "--format slurm-torus3d: torus3d describes at most three dimensions, not 4"},
		{append(t3, "--machine", "mesh:4x4", "--hostlist", "n[01-16]"), 2, "--format slurm-torus3d: mesh:4x4 is not a torus (dimension 0 has no wraparound)"},
		{append(t3, "--machine", "torus:4x2x2"), 2, "--format slurm-torus3d needs --hosts FILE or --hostlist EXPR"},
		{[]string{"curve", "--graph", g, "--curve", "bfs", "--format", "slurm-topology"}, 1, "1 of 3 hosts hang on no switch; topology.conf needs every node under a switch"},
	} {
		code, out, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%q: exit %d, %q; want %d and %q", c.args[1:], code, stderr, c.code, c.want)
		}
	}
}
