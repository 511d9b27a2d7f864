package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputIsRefused collects the inputs of issue 13 that used to be accepted
// silently, crash, or give an unclear message: each must now exit with the given
// status and a message containing the given words.
func TestBadInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	empty := write("empty.txt", "")
	gap := write("gap.txt", "0 1\n1 2\n0 16777215\n")
	dupNode := write("dupnode.txt", "%node a\n%node a\na b\n")
	dupGroup := write("dupgroup.txt", "a b\n%group s: a\n%group s: b\n")
	big := write("big.txt", "0 0\n9007199254740993 0\n9007199254740994 0\n")
	huge := write("huge.txt", "1e400 0\n")
	ring := write("ring.txt", "1\n2\n3\n")
	plane := write("plane.txt", "0 0\n1 1\n2 0\n")
	jsonOther := write("other.json", `{"format":"procalloc-ranking","machine":"mesh:4x4","n":16,"order":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}`)
	jsonFormat := write("fmt.json", `{"format":"something-else","order":[0,1,2,3]}`)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:46000x46000", "--alloc", "mc1x1"}, 2, "at most 4194304"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--replicate", "1000000", "--alloc", "mc1x1"}, 2, "a replay takes at most 8 GB"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--contract", "NaN"}, 2, "--contract NaN"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--contract", "Inf"}, 2, "--contract +Inf"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--work", "1e30"}, 2, "at most 1e6"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:8x8:wrap=xx"}, 2, "names 'x' twice"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:8x8:wrap="}, 2, "names no dimension"},
		{[]string{"sim", "--trace", empty, "--machine", "mesh:4x4"}, 1, "no jobs"},
		{[]string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "bf:snake,,mm"}, 2, "is empty"},
		{[]string{"curve", "--machine", "mesh:4x4", "--curve", "hilbert", "--curve", "snake"}, 2, "--curve given twice"},
		{[]string{"order", "--machine", "mesh:3x3", "--weights", "list:1", "--no-mip", "--method", "dp"}, 2, "contradicts --method dp"},
		{[]string{"curve", "--graph", gap, "--curve", "bfs"}, 1, "node 3 appears on no line"},
		{[]string{"curve", "--graph", dupNode, "--curve", "bfs"}, 1, "%node a declared again"},
		{[]string{"curve", "--graph", dupGroup, "--curve", "bfs"}, 1, "%group s declared again"},
		{[]string{"subset", "--algo", "mm", "--k", "2", "--points", big}, 1, `line 2: coordinate 1: "9007199254740993" is 2^53 or beyond`},
		{[]string{"subset", "--algo", "mm", "--k", "1", "--points", huge}, 1, "out of the range"},
		{[]string{"subset", "--algo", "ring", "--k", "2", "--points", ring, "--circumference", "Inf"}, 2, "finite number > 0"},
		{[]string{"evaluate", "--machine", "mesh:4x4", "--weights", "list:1e400"}, 2, "out of the range"},
		{[]string{"evaluate", "--machine", "mesh:4x4", "--weights", "exp:2:1000000000"}, 2, "1 to 1048576"},
		{[]string{"evaluate", "--machine", "torus:4x4", "--ranking", jsonOther, "--weights", "list:1"}, 1, "not torus:4x4"},
		{[]string{"evaluate", "--machine", "mesh:2x2", "--ranking", jsonFormat, "--weights", "list:1"}, 1, "not a procalloc ranking"},
		{[]string{"voronoi", "--k", "1", "--points", plane, "--limit", "0"}, 2, "must be at least 1"},
		{[]string{"evaluate", "--machine", "mesh:3x3", "--curve", "snake", "--weights", "list:1e308,1e308", "--json"}, 1, "overflows float64"},
		{[]string{"order", "--machine", "mesh:3x3", "--weights", "list:1e308,1e308", "--method", "local"}, 1, "float64"},
		// Issue 10: I/O machines and the binary-tree allocators.
		{[]string{"batch", "--machine", "mesh:12x16:io=left", "--alloc", "dbt:1/4", "--runs", "1"}, 2, "2^m x 2^n"},
		{[]string{"batch", "--machine", "mesh:16x16:io=middle", "--alloc", "bt"}, 2, `no side "middle"`},
		{[]string{"batch", "--machine", "mesh:16x16:io=left:17", "--alloc", "bt"}, 2, "must be 1..16"},
		{[]string{"batch", "--machine", "torus:16x16:io=left", "--alloc", "bt"}, 2, "without wraparound"},
		{[]string{"batch", "--machine", "mesh:16x16", "--alloc", "bt"}, 2, "has no I/O nodes"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "sbt:300"}, 2, "0..256"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "dbt:3/2"}, 2, "between 0 and 1"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "d-dbt:1/0"}, 2, "Q > 0"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "bt", "--comm-per-io", "-1"}, 2, "must be 0..1048576"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "bt", "--disk-mbps", "0"}, 2, "--disk-mbps 0: must be between"},
		// Issue 24 row 9: rates whose cycle counts overflow or explode.
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "bt", "--disk-mbps", "1e-300"}, 2, "--disk-mbps 1e-300: must be between 0.0003555 and 1e+09 MB/s"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "bt", "--disk-mbps", "1e-9"}, 2, "at most 1048576 cycles"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "bt", "--link-mbps", "1e-300"}, 2, "--link-mbps 1e-300: must be between 1e-06 and 1e+09"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "bt", "--mean-size", "NaN"}, 2, "--mean-size NaN"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:12x12", "--alloc", "scbt"}, 2, "2^m x 2^n"},
		// Issue 12 item 7: a shard out of range.
		{[]string{"sweep", write("s.yaml", "traces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1]\n"), "--shard", "3/3", "-o", filepath.Join(dir, "r.jsonl")}, 2, `--shard "3/3": want i/n with 0 <= i < n`},
		// Issue 9 item 7: the communication replay's bad input.
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--comm", "gossip"}, 2, `unknown communication pattern "gossip"`},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--pattern", "gossip"}, 2, `unknown communication pattern "gossip"`},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--comm", "n-body", "--msg-flits", "0"}, 2, "--msg-flits: message size 0 flits"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--comm", "n-body", "--router-delay", "0"}, 2, "--router-delay: router delay 0 cycles"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--comm", "n-body", "--router-delay", "-1"}, 2, "router delay -1 cycles"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--comm", "n-body", "--msgs-per-second", "-1"}, 2, "--msgs-per-second -1: must be a positive number"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--comm", "n-body", "--cycle-seconds", "0"}, 2, "--cycle-seconds 0"},
		{[]string{"netsim", "--machine", "mesh:8x8", "--rate", "0"}, 2, "--rate 0: must be in (0, 1]"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--from", "1000000000000"}, 1, "no job arrives in the window"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--from", "100", "--to", "50"}, 2, "the window must end after --from 100"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--from", "1.5"}, 2, `"1.5" is neither whole seconds`},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}

func TestHostlistCommand(t *testing.T) {
	code, out, _ := runCLI(t, "", "hostlist", "expand", "rack[0-1]_blade[7-8]")
	if code != 0 || out != "rack0_blade7\nrack0_blade8\nrack1_blade7\nrack1_blade8\n" {
		t.Fatalf("expand: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "n1\nn2,n3 n7\n", "hostlist", "compress")
	if code != 0 || out != "n[1-3,7]\n" {
		t.Fatalf("compress: exit %d, %q", code, out)
	}
	// A malformed expression typed as an argument is a usage error, as it is given
	// to --hostlist (exit 2); read from standard input, a failure (exit 1).
	if code, _, stderr := runCLI(t, "", "hostlist", "expand", "n[3-1]"); code != 2 || !strings.Contains(stderr, "reversed range") {
		t.Fatalf("reversed range: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "n[3-1]\n", "hostlist", "expand", "-"); code != 1 || !strings.Contains(stderr, "reversed range") {
		t.Fatalf("reversed range: exit %d, %s", code, stderr)
	}
	// White space separates names and empty elements are skipped, as in Slurm.
	code, out, _ = runCLI(t, "", "hostlist", "expand", "a b", "n[1-2],,n3")
	if code != 0 || out != "a\nb\nn1\nn2\nn3\n" {
		t.Fatalf("expand 'a b' 'n[1-2],,n3': exit %d, %q", code, out)
	}
	// One cap on the names of all the arguments together (30 arguments of 4,194,304
	// names each ran out of memory).
	big := "n[1-4194303]"
	if code, _, stderr := runCLI(t, "", "hostlist", "expand", big, big, big); code != 2 || !strings.Contains(stderr, "4194304 host names in all") {
		t.Fatalf("three large expressions: exit %d, %s", code, stderr)
	}
}
