package hostlist

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"node[001-003,010]", "node001 node002 node003 node010"},
		{"rack[0-1]_blade[7-8]", "rack0_blade7 rack0_blade8 rack1_blade7 rack1_blade8"},
		{"n[9-11]", "n9 n10 n11"},
		{"n[09-11]", "n09 n10 n11"},
		{"n[01-3]", "n01 n02 n03"},
		{"a,b[1-2]", "a b1 b2"},
		{"n[1,1]", "n1 n1"},
		{"plain", "plain"},
		// White space and empty elements, as Slurm's hostlist_create (scontrol show
		// hostnames) reads them.
		{"a b", "a b"},
		{"n[1-2],,n3", "n1 n2 n3"},
		{" ,n[1-2]\t n3, ", "n1 n2 n3"},
		{"a,,b", "a b"},
	} {
		got, err := Expand(tc.in)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("Expand(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"n[3-1]", "n[1-3]x", "n[1-2", "n1-2]", "n[]", "n[a-b]", "n[1-99999999999999999999]", "n[0-99999999]", "", ",", " \t", "n[[1]]", "n[1-4194304,0]"} {
		if _, err := Expand(bad); err == nil {
			t.Errorf("Expand(%q) accepted", bad)
		}
	}
}

func TestCompress(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"node5", "node5"},
		{"node5,node6", "node[5-6]"},
		{"c01,c1,c2", "c[01,1-2]"},
		{"c1,c01,c02", "c[1,01-02]"},
		{"a1,b1,a2", "a1,b1,a2"},
		{"a1,a2,b1,a3", "a[1-2],b1,a3"},
		{"x,x1", "x,x1"},
		{"n1,n1", "n[1,1]"},
		{"n1,n3,n2", "n[1,3,2]"},
		{"n9,n10,n11", "n[9-11]"},
		{"n09,n10,n11", "n[09-11]"},
		{"n099,n100", "n[099-100]"},
		{"host-1a,host-2a", "host-1a,host-2a"},
		{"r1b2,r1b3", "r1b[2-3]"},
		{"n0,n00,n000", "n[0,00,000]"},
	} {
		got, err := Compress(strings.Split(tc.in, ","))
		if err != nil || got != tc.want {
			t.Errorf("Compress(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		// and back
		if back, err := Expand(got); err != nil || strings.Join(back, ",") != tc.in {
			t.Errorf("Expand(Compress(%s)) = %v, %v", tc.in, back, err)
		}
	}
	for _, bad := range []string{"", "a,b", "a b", "a[1]"} {
		if _, err := Compress([]string{bad}); err == nil {
			t.Errorf("Compress(%q) accepted", bad)
		}
	}
}

// randomNames draws host names of a few prefixes, padded and unpadded, in random
// order with some runs and repeats.
func randomNames(rng *rand.Rand) []string {
	prefixes := []string{"node", "n", "rack1_blade", "gpu-", "c"}
	var out []string
	for range 1 + rng.IntN(40) {
		p := prefixes[rng.IntN(len(prefixes))]
		padded := p == "node" || p == "gpu-"
		v := rng.IntN(120)
		run := 1 + rng.IntN(6)
		for j := range run {
			if padded {
				out = append(out, fmt.Sprintf("%s%03d", p, v+j))
			} else {
				out = append(out, fmt.Sprintf("%s%d", p, v+j))
			}
		}
	}
	return out
}

// TestAgainstScontrol compares Expand and Compress with Slurm's own scontrol show
// hostnames / show hostlist on random sets, when scontrol is installed.
func TestAgainstScontrol(t *testing.T) {
	sc, err := exec.LookPath("scontrol")
	if err != nil {
		t.Skip("scontrol not on PATH: install Debian's slurm-client (or run scripts/slurm-local.sh as root) to compare with Slurm")
	}
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	os.WriteFile(conf, []byte("ClusterName=hostlist\nSlurmctldHost=localhost\n"), 0o644)
	env := append(os.Environ(), "SLURM_CONF="+conf)
	run := func(args ...string) string {
		cmd := exec.Command(sc, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scontrol %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	rng := rand.New(rand.NewPCG(4, 2))
	n := 300
	if testing.Short() {
		n = 30
	}
	for range n {
		names := randomNames(rng)
		want := run("show", "hostlist", strings.Join(names, ","))
		got, err := Compress(names)
		if err != nil || got != want {
			t.Fatalf("Compress(%v) = %q, %v; scontrol show hostlist: %q", names, got, err, want)
		}
		wantNames := strings.Fields(run("show", "hostnames", want))
		gotNames, err := Expand(want)
		if err != nil || !slices.Equal(gotNames, wantNames) {
			t.Fatalf("Expand(%q) = %v, %v; scontrol show hostnames: %v", want, gotNames, err, wantNames)
		}
	}
	t.Logf("%d random sets: Compress equals scontrol show hostlist, Expand equals scontrol show hostnames", n)
}

// MaxHosts bounds the names of all the expressions together (30 expressions of
// MaxHosts names each ran out of memory), and a bracket's ranges together.
func TestExpandAllCap(t *testing.T) {
	for _, exprs := range [][]string{{"n[1-4194303]", "m[1-2]"}, {"a[1-3000000],b[1-3000000]"}, {"a[1-2048][1-2049]"}} {
		if _, err := ExpandAll(exprs); err == nil || !errors.Is(err, ErrSyntax) {
			t.Errorf("ExpandAll(%q): %v", exprs, err)
		}
	}
	names, err := ExpandAll([]string{"a,b", "c d", "n[1-2]"})
	if err != nil || strings.Join(names, " ") != "a b c d n1 n2" {
		t.Errorf("ExpandAll: %v, %v", names, err)
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"node[001-016,020]", "rack[0-3]_blade[0-41]", "a,b", "n[3-1]", "a b", "n[1-2],,n3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := Expand(s)
		if err != nil {
			return
		}
		if len(names) > MaxHosts || len(names) == 0 {
			t.Fatalf("%d names", len(names))
		}
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, ", \t\n\r") {
				t.Fatalf("%q: name %q", s, n)
			}
		}
		if c, err := Compress(names); err == nil {
			back, err := Expand(c)
			if err != nil || !slices.Equal(back, names) {
				t.Fatalf("%q -> %q -> %v (%v)", s, c, back, err)
			}
		}
	})
}

func TestNaturalCompare(t *testing.T) {
	sorted := []string{"a", "a1", "a2", "a02", "a10", "b", "node1", "node2", "node9", "node10", "node10a", "node11", "rack1_blade2", "rack1_blade10", "rack2_blade1"}
	for i := range sorted {
		for j := range sorted {
			want := cmpLen(i, j)
			if got := NaturalCompare(sorted[i], sorted[j]); got != want {
				t.Errorf("NaturalCompare(%q, %q) = %d, want %d", sorted[i], sorted[j], got, want)
			}
		}
	}
}
