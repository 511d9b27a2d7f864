package slurm

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// fatTree131kConf returns the topology.conf procalloc writes for the 131,072-host
// fattree:16,16:16,16:16,16:32 (28,672 switches) along curve, its hosts named
// n000000-n131071 when named is set (else the graph's names).
func fatTree131kConf(tb testing.TB, curve string, named bool) []byte {
	tb.Helper()
	g, err := topo.FatTree("16,16:16,16:16,16:32")
	if err != nil {
		tb.Fatal(err)
	}
	o, err := curves.Generate(curve, g)
	if err != nil {
		tb.Fatal(err)
	}
	var hosts []string
	if named {
		hosts = make([]string, g.N())
		for i := range hosts {
			hosts[i] = fmt.Sprintf("n%06d", i)
		}
	}
	var c bytes.Buffer
	if _, err := WriteTopology(&c, g, o, hosts); err != nil {
		tb.Fatal(err)
	}
	return c.Bytes()
}

// treeConfToYAML writes a tree topology.conf's switch lines as a topology.yaml tree,
// each Nodes=/Switches= hostlist kept as written.
func treeConfToYAML(conf []byte) []byte {
	var y bytes.Buffer
	y.WriteString("- topology: tree\n  cluster_default: true\n  tree:\n    switches:\n")
	for _, line := range strings.Split(string(conf), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], "SwitchName=") {
			continue
		}
		k, v, _ := strings.Cut(f[1], "=")
		key := "nodes"
		if k == "Switches" {
			key = "children"
		}
		fmt.Fprintf(&y, "      - switch: %s\n        %s: %s\n", strings.TrimPrefix(f[0], "SwitchName="), key, v)
	}
	return y.Bytes()
}

// BenchmarkReadTopology131k reads the 131,072-host fat tree's topology.conf and
// topology.yaml (ReadTopology: the parse and Slurm's rules; /graph adds the network
// of --graph), reporting allocated bytes: the readers' memory at 10^5 hosts.
func BenchmarkReadTopology131k(b *testing.B) {
	conf := fatTree131kConf(b, "rcm", true) // scripts/yamlscale.sh's tree.conf
	yml := treeConfToYAML(conf)
	for _, c := range []struct {
		name  string
		data  []byte
		graph bool
	}{{"conf", conf, false}, {"yaml", yml, false}, {"conf/graph", conf, true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				t, err := readTopology(context.Background(), bytes.NewReader(c.data), "", nil)
				if err != nil {
					b.Fatal(err)
				}
				if c.graph {
					if _, err := t.Graph(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
