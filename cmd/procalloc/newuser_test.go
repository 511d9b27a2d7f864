package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewUserBadInputExits collects the bad inputs a new user's tour of every
// command found mishandled (wt-rel, 2026-12-05; wt-rel3's sweep of empty, binary,
// huge, negative, NaN and repeated inputs, 2026-12-06): each must exit with the given
// status, say the given words on stderr in one line (two with the usage hint),
// print nothing on stdout and leave no file behind.
func TestNewUserBadInputExits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	garbage := writeTemp(t, "garbage.txt", "garbage\n")
	ring := writeTemp(t, "ring.txt", "5\n1\n400\n")
	plane := writeTemp(t, "plane.txt", "0 0\n1 1\n")
	blocks := writeTemp(t, "blocks.conf", "BlockName=b1 Nodes=n[1-4]\nBlockSizes=0\n")
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		// bench exited 1 for a spec sim and compare refuse with 2.
		{"", []string{"bench", "--machine", "mesh:16x16", "--alloc", "bf:hilbert,nosuch"}, 2, `unknown allocator "nosuch"`},
		{"", []string{"bench", "--machine", "mesh:16x16", "--alloc", "mc1x1:tb=-1,2,3,4"}, 2, `scan radius "-1"`},
		{"", []string{"bench", "--machine", "torus:8x8", "--alloc", "mc", "-o", out}, 2, "mc needs a mesh without wraparound"},
		// bench ran its default 2000 jobs on an explicit --jobs 0 (-1 was refused).
		{"", []string{"bench", "--machine", "mesh:16x16", "--alloc", "mm", "--jobs", "0"}, 2, "--jobs 0: must be at least 1"},
		// A huge --jobs panicked allocating the synthetic workload (wt-rel, twelfth round).
		{"", []string{"bench", "--machine", "mesh:8x8", "--alloc", "mc1x1", "--jobs", "99999999999999", "-o", out}, 2, "99999999999999 jobs: at most 16777216"},
		{"", []string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", "x.conf", "--jobs", "99999999999999", "-o", filepath.Join(dir, "plan")}, 2, "--jobs 99999999999999: at most 2000000"},
		// subset's ring and line checks did not name the file.
		{"", []string{"subset", "--algo", "ring", "--k", "2", "--points", ring, "--circumference", "360"}, 1, "ring: " + ring + ": point 2 (0-based, as in indices) has coordinate 400"},
		{"", []string{"subset", "--algo", "line", "--k", "2", "--points", plane}, 1, "line: " + plane + ": points have 2 coordinates"},
		// An empty output name ("-o $OUT", OUT unset) wrote to stdout, or nothing.
		{"", []string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "-o", ""}, 2, `-o "": an empty file name`},
		{"", []string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "--svg", ""}, 2, `--svg "": an empty file name`},
		{"", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--per-job", ""}, 2, `--per-job "": an empty file name`},
		{"", []string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", "x.conf", "-o", ""}, 2, `-o "": an empty directory name`},
		// A ranking or topology file an allocator names, read and refused, was a
		// usage error in sim and compare (a failure in curve and --span-curve);
		// a name that is neither a curve nor a file stays one.
		{"", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "bf:" + garbage, "-o", out}, 1, `unknown host "garbage"`},
		{"", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "slurm:block:" + blocks}, 1, "BlockSizes=0"},
		{"", []string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm,bf:" + garbage}, 1, `unknown host "garbage"`},
		{"", []string{"bench", "--machine", "mesh:16x16", "--alloc", "bf:" + garbage}, 1, `unknown host "garbage"`},
		{"", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "bf:nosuch"}, 2, `unknown curve "nosuch"`},
		// subset ran a negative --time-limit as no limit (cluster, order and bench
		// refuse it), and left --eps Inf to the library's message.
		{"", []string{"subset", "--algo", "exact", "--k", "2", "--points", garbage, "--time-limit", "-1s"}, 2, "--time-limit -1s: must not be negative"},
		{"", []string{"subset", "--algo", "ptas", "--k", "2", "--points", garbage, "--eps", "Inf"}, 2, "--eps +Inf: must be a positive finite number"},
		// hostlist took - as a host name and printed it back, even on empty stdin.
		{"", []string{"hostlist", "expand", "-"}, 1, "-: no hostlist expression"},
		{"", []string{"hostlist", "compress", "-"}, 1, "-: no host names"},
		{"n1\n", []string{"hostlist", "compress", "n2", "-"}, 2, "- (standard input) goes alone"},
		{"n1\n", []string{"hostlist", "expand", "-", "n2", "-o", out}, 2, "- (standard input) goes alone"},
		// The thirteenth round's sweep (wt-rel3, 2026-12-06). A huge --replicate
		// overflowed the job count's bound and hung building replicas.
		{"", []string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm,bf:hilbert", "--replicate", "9223372036854775807", "-o", out}, 2, "--replicate 9223372036854775807: makes"},
		{"", []string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--replicate", "9223372036854775807", "-o", out}, 2, "--replicate 9223372036854775807: makes"},
		// An empty name in --curve or --start was "listed twice" (",") or a curve
		// named "" ("hilbert,").
		{"", []string{"evaluate", "--machine", "mesh:4x4", "--curve", ",", "-o", out}, 2, `--curve ",": curve 1 of the list is empty`},
		{"", []string{"evaluate", "--machine", "mesh:4x4", "--curve", "hilbert,", "-o", out}, 2, `--curve "hilbert,": curve 2 of the list is empty`},
		{"", []string{"order", "--machine", "mesh:2x2", "--weights", "list:1", "--start", "hilbert,,snake", "-o", out}, 2, `--start "hilbert,,snake": start 2 of the list is empty`},
		// hostlist's errors on standard input's lines did not say they came from it.
		{"n[1-3\n", []string{"hostlist", "expand", "-", "-o", out}, 1, `-: line 1: "n[1-3": unmatched '['`},
		{"a[b\n", []string{"hostlist", "compress", "-", "-o", out}, 1, `-: line 1: "a[b" is not a host name`},
		// plot printed the Go type it decoded a number into.
		{"5\n", []string{"plot", "-", "-o", out}, 1, "-: neither sweep results nor compare --json output: a JSON number, not an object"},
		{`{"runs": 3}`, []string{"plot", "-", "-o", out}, 1, `"runs" is a JSON number, not a list of runs`},
	} {
		code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
		lines := strings.Count(stderr, "\n")
		if code != tc.code || !strings.Contains(stderr, tc.want) || stdout != "" || lines < 1 || lines > 2 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, %q in one line", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: %s written", tc.args, out)
		}
	}
	// And - now reads standard input.
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"n[1-2]\n\nx7,x8\n", []string{"hostlist", "expand", "-"}, "n1\nn2\nx7\nx8\n"},
		{"n1 n2\nn3,n7\n", []string{"hostlist", "compress", "-"}, "n[1-3,7]\n"},
	} {
		if code, stdout, stderr := runCLI(t, tc.stdin, tc.args...); code != 0 || stdout != tc.want {
			t.Errorf("%q on %q: exit %d, %q (%s), want %q", tc.args, tc.stdin, code, stdout, stderr, tc.want)
		}
	}
}

// failingWriter fails every write, as standard output on a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestHelpOnFullOutputFails: help printed to standard output that cannot be
// written (procalloc help > /dev/full) exited 0 with nothing said.
func TestHelpOnFullOutputFails(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "sim"}, {"sim", "--help"}, {"curve", "-h"}} {
		var errb strings.Builder
		code := run(context.Background(), &env{stdin: strings.NewReader(""), stdout: failingWriter{}, stderr: &errb}, args)
		if code != 1 || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("%q on a full output: exit %d, stderr %q; want 1 and the error", args, code, errb.String())
		}
	}
}

// Every command's messages call standard input "-", as the user wrote it (most
// did; evaluate --ranking -, curve --curve -, plot, merge and hostlist said
// "stdin"): inputName is the one place that names it.
func TestStdinIsNamedDashInMessages(t *testing.T) {
	bad := "x y z\n1 2\n"
	for _, args := range [][]string{
		{"sim", "--trace", "-", "--machine", "mesh:4x4", "--alloc", "mm"},
		{"compare", "--trace", "-", "--machine", "mesh:4x4", "--alloc", "mm"},
		{"evaluate", "--machine", "mesh:2x2", "--ranking", "-", "--weights", "list:1"},
		{"curve", "--machine", "mesh:2x2", "--curve", "-", "--format", "pairs"},
		{"subset", "--points", "-", "--k", "2", "--algo", "mm"},
		{"voronoi", "--points", "-", "--k", "1"},
		{"plot", "-"},
		{"merge", "-"},
		{"sweep", "-", "-o", filepath.Join(t.TempDir(), "r.jsonl")},
	} {
		code, _, stderr := runCLI(t, bad, args...)
		if code != 1 || !strings.HasPrefix(stderr, "procalloc "+args[0]+": -: ") || strings.Contains(stderr, "stdin") {
			t.Errorf("%q: exit %d, %q; want exit 1 and the message on - (standard input) naming it -:", args, code, stderr)
		}
	}
	for _, sub := range []string{"expand", "compress"} {
		code, _, stderr := runCLI(t, "\n", "hostlist", sub, "-")
		if code != 1 || !strings.HasPrefix(stderr, "procalloc hostlist: -: no host") || strings.Contains(stderr, "stdin") {
			t.Errorf("hostlist %s - of an empty line: exit %d, %q", sub, code, stderr)
		}
	}
}
