package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// slurm-weight is a ranking format of curves once this package is linked: it
// round-trips through curves.WriteRanking and ReadRanking, is detected, and refuses
// bad input naming the line (the tests that lived in curves).
func TestWeightFormatRoundTrip(t *testing.T) {
	if !slices.Contains(curves.Formats(), FormatWeight) || !slices.Contains(curves.SchedulerFormats(), FormatWeight) {
		t.Fatal("slurm-weight not registered with curves")
	}
	for _, spec := range []string{"mesh:4x2", "mesh:16x22", "torus:8x8"} {
		g, _ := topo.ParseSpec(spec)
		var names []string
		for i := range g.N() {
			names = append(names, fmt.Sprintf("cn%04d", 10+i))
		}
		for _, curve := range []string{"snake", "morton"} {
			o, err := curves.Generate(curve, g)
			if err != nil {
				t.Fatal(err)
			}
			for _, hosts := range [][]string{nil, names} {
				var buf bytes.Buffer
				if hosts == nil {
					// Issue 31 item 9: no "NodeName=0" lines.
					if err := curves.WriteRanking(&buf, FormatWeight, o, curves.RankingMeta{}, nil); !errors.Is(err, curves.ErrNoHostNames) || buf.Len() > 0 {
						t.Fatalf("without host names: %v, %q", err, buf.String())
					}
					continue
				}
				if err := curves.WriteRanking(&buf, FormatWeight, o, curves.RankingMeta{}, hosts); err != nil {
					t.Fatal(err)
				}
				if f, err := curves.DetectFormat(buf.Bytes()); err != nil || f != FormatWeight {
					t.Fatalf("detected %q, %v", f, err)
				}
				back, err := curves.ReadRanking(bytes.NewReader(buf.Bytes()), FormatWeight, g.N(), hosts)
				if err != nil || !slices.Equal(back, o) {
					t.Fatalf("%s %s: round trip: %v", spec, curve, err)
				}
			}
		}
	}
	hosts := []string{"a1", "a2", "a3"}
	for _, c := range []struct{ in, want string }{
		{"NodeName=a1 Weight=1\nNodeName=a2 Weight=x\n", "line 2: Weight \"x\" is not a positive integer"},
		{"NodeName=a1 Weight=1\nNodeName=a1 Weight=2\nNodeName=a3 Weight=3\n", "line 2: host \"a1\" again (first on line 1)"},
		{"NodeName=a1 Weight=1\nNodeName=a2 Weight=1\nNodeName=a3 Weight=3\n", "line 2: rank 0 given twice"},
		{"NodeName=a1\n", "line 1: want NodeName=HOST Weight=N"},
	} {
		_, err := curves.ReadRanking(strings.NewReader(c.in), FormatWeight, 3, hosts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// randomConf writes a slurm.conf defining hosts (node names in index order) in
// NodeName lines of random lengths, some hostlists with per-host Port= and
// NodeHostname= lists, some with a Weight= already, between other lines.
func randomConf(rng *rand.Rand, hosts []string) string {
	var b strings.Builder
	b.WriteString("ClusterName=test # a comment\nNodeName=DEFAULT CPUs=2 Weight=99\n\n")
	perm := rng.Perm(len(hosts))
	for i := 0; i < len(hosts); {
		k := 1 + rng.IntN(5)
		k = min(k, len(hosts)-i)
		var names, ports, nhs []string
		for _, j := range perm[i : i+k] {
			names = append(names, hosts[j])
			ports = append(ports, strconv.Itoa(17000+j))
			nhs = append(nhs, "h"+hosts[j])
		}
		hl, _ := hostlist.Compress(names)
		line := "NodeName=" + hl
		if rng.IntN(2) == 0 {
			p, _ := hostlist.Compress(ports)
			line += " Port=" + p
		} else {
			line += " Port=6818"
		}
		if rng.IntN(2) == 0 {
			h, _ := hostlist.Compress(nhs)
			line += " NodeHostname=" + h
		}
		line += " RealMemory=100"
		if rng.IntN(3) == 0 {
			line += " weight=7"
		}
		if rng.IntN(3) == 0 {
			line += " State=UNKNOWN # rack " + strconv.Itoa(i)
		}
		b.WriteString(line + "\n")
		if rng.IntN(4) == 0 {
			b.WriteString("# between\nPartitionName=p" + strconv.Itoa(i) + " Nodes=ALL\n")
		}
		i += k
	}
	b.WriteString("PartitionName=all Nodes=ALL Default=YES")
	return b.String()
}

// parsedNode is what a merged NodeName line says about one host.
type parsedNode struct {
	weight    string
	port, nh  string
	line      int
	otherKeys string
}

func parseNodes(t *testing.T, conf string) (map[string]parsedNode, []string) {
	t.Helper()
	nodes := map[string]parsedNode{}
	var other []string
	for i, l := range strings.Split(conf, "\n") {
		f := strings.Fields(strings.SplitN(l, "#", 2)[0])
		if len(f) == 0 || !strings.HasPrefix(f[0], "NodeName=") || f[0] == "NodeName=DEFAULT" {
			other = append(other, l)
			continue
		}
		names, err := hostlist.Expand(strings.TrimPrefix(f[0], "NodeName="))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		var p parsedNode
		var keys []string
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch strings.ToLower(k) {
			case "weight":
				p.weight = v
			case "port":
				p.port = v
			case "nodehostname":
				p.nh = v
			default:
				keys = append(keys, kv)
			}
		}
		p.otherKeys, p.line = strings.Join(keys, " "), i+1
		for j, n := range names {
			q := p
			if ports, err := hostlist.Expand(p.port); err == nil && len(ports) == len(names) {
				q.port = ports[j]
			}
			if nhs, err := hostlist.Expand(p.nh); err == nil && len(nhs) == len(names) && p.nh != "" {
				q.nh = nhs[j]
			}
			if _, dup := nodes[n]; dup {
				t.Fatalf("%s defined twice in the merged conf", n)
			}
			nodes[n] = q
		}
	}
	return nodes, other
}

// MergeWeights on random slurm.confs: every line that is not a NodeName line is kept
// as it was, every host keeps its attributes (its own Port and NodeHostname out of
// a split list) and gets Weight = rank+1, lines are split only where weights differ
// (here: every line of several hosts), and merging again changes nothing.
func TestMergeWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	for trial := range 200 {
		n := 1 + rng.IntN(40)
		hosts := slurmtest.NodeNames(n)
		o := curves.Order(rng.Perm(n))
		conf := randomConf(rng, hosts)
		out, warnings, err := MergeWeights(context.Background(), []byte(conf), o, hosts)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("trial %d: %v %v\n%s", trial, err, warnings, conf)
		}
		before, otherBefore := parseNodes(t, conf)
		after, otherAfter := parseNodes(t, string(out))
		if !slices.Equal(otherBefore, otherAfter) {
			t.Fatalf("trial %d: other lines changed:\n%s\n---\n%s", trial, conf, out)
		}
		ranks := o.Ranks()
		for i, h := range hosts {
			b, a := before[h], after[h]
			if a.weight != strconv.Itoa(ranks[i]+1) || a.port != b.port || a.nh != b.nh || a.otherKeys != b.otherKeys {
				t.Fatalf("trial %d: %s before %+v after %+v (rank %d)\n%s\n---\n%s", trial, h, b, a, ranks[i], conf, out)
			}
		}
		again, _, err := MergeWeights(context.Background(), out, o, hosts)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("trial %d: merging twice changed the file (%v)", trial, err)
		}
	}
	// A line of hosts of one weight stays one line (weights from another ordering's
	// file can repeat only through MergeWeights' callers; here, one host per line).
	out, _, err := MergeWeights(context.Background(), []byte("NodeName=n[1-3] CPUs=1\n"), curves.Order{0, 1, 2}, []string{"n1", "n2", "n3"})
	if err != nil || string(out) != "NodeName=n1 CPUs=1 Weight=1\nNodeName=n2 CPUs=1 Weight=2\nNodeName=n3 CPUs=1 Weight=3\n" {
		t.Fatalf("split: %q %v", out, err)
	}
	out, _, err = MergeWeights(context.Background(), []byte("NodeName=n1 CPUs=1 Weight=5\r\nNodeName=n2 CPUs=1\r\n"), curves.Order{1, 0}, []string{"n1", "n2"})
	if err != nil || string(out) != "NodeName=n1 CPUs=1 Weight=2\r\nNodeName=n2 CPUs=1 Weight=1\r\n" {
		t.Fatalf("CRLF and an existing weight: %q %v", out, err)
	}
}

// Bad input: a host the conf does not define, or defines twice, is an error naming
// the host and line, and nothing is returned; hosts the ordering does not name are
// a warning.
func TestMergeWeightsBadInput(t *testing.T) {
	hosts := []string{"n1", "n2", "n3"}
	o := curves.Order{2, 0, 1}
	for _, c := range []struct{ conf, want string }{
		{"NodeName=n[1-2] CPUs=1\n", "host n3 (rank 0 of the ordering) is not defined by any NodeName line"},
		{"NodeName=n[1-3] CPUs=1\n# x\nNodeName=n2 CPUs=2\n", "line 3: node n2 is defined again (first on line 1)"},
		{"NodeName=n[1-3 CPUs=1\n", "line 1: NodeName=n[1-3"},
		{"Include /etc/slurm/nodes.conf\nNodeName=n[1-2]\n", "not followed"},
	} {
		out, _, err := MergeWeights(context.Background(), []byte(c.conf), o, hosts)
		if err == nil || out != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %q %v, want %q", c.conf, out, err, c.want)
		}
	}
	_, warnings, err := MergeWeights(context.Background(), []byte("NodeName=n[0-3] CPUs=1\n"), o, hosts)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "n0 keep Slurm's default Weight=1") {
		t.Fatalf("extra node: %v %v", warnings, err)
	}
}

func FuzzMergeWeights(f *testing.F) {
	f.Add("NodeName=n[1-3] Port=[1-3] CPUs=1\n", uint8(0))
	f.Add("NodeName=n1 Weight=4 # x\nNodeName=n[2-3] NodeHostname=h[2-3]\n", uint8(3))
	f.Add("NodeName=n[1-2],n3\nNodeName=DEFAULT\n", uint8(1))
	hosts := []string{"n1", "n2", "n3"}
	perms := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	f.Fuzz(func(t *testing.T, conf string, p uint8) {
		o := curves.Order(perms[int(p)%len(perms)])
		out, _, err := MergeWeights(context.Background(), []byte(conf), o, hosts)
		if err != nil {
			return
		}
		// Every host is now defined once, with its weight, as Slurm reads the file.
		c, err := ReadConf(out)
		if err != nil {
			t.Fatalf("%q -> %q: %v", conf, out, err)
		}
		nodes, err := c.Nodes()
		if err != nil {
			t.Fatalf("%q -> %q: %v", conf, out, err)
		}
		w := map[string]uint32{}
		for _, n := range nodes {
			w[n.Name] = n.Weight
		}
		for i, h := range hosts {
			if w[h] != uint32(o.Ranks()[i]+1) {
				t.Fatalf("%q -> %q: %s has weight %d", conf, out, h, w[h])
			}
		}
	})
}
