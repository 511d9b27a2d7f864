package topo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/topo"
)

// The machines of the readers' benchmarks at 10^5 hosts: plan's (docs/plan.md, "At
// 10^5 hosts"), a 3-level fat tree of 32-port switches and a dragonfly.
const (
	benchFatTree   = "fattree:16,16:16,16:16,16:32"                                                        // 131,072 hosts, 28,672 switches
	benchDragonfly = "dragonfly:hosts_per_router=8,routers_per_group=64,intergroup_links=4,num_groups=200" // 102,400 hosts, 12,800 switches
)

// benchDumpCache holds the last dump benchDump wrote: the testing package calls
// a benchmark again with a larger b.N, and the dumps are 10^8 bytes, so only one
// is kept at a time.
var benchDumpCache struct {
	sync.Mutex
	key  string
	data []byte
}

// benchDump returns spec written in form f (fabrictest.WriteDump), hosts named
// n000000 ....
func benchDump(b testing.TB, spec string, f fabrictest.DumpForm) []byte {
	b.Helper()
	key := fmt.Sprint(spec, f)
	benchDumpCache.Lock()
	defer benchDumpCache.Unlock()
	if benchDumpCache.key == key {
		return benchDumpCache.data
	}
	benchDumpCache.key, benchDumpCache.data = "", nil // free the last before writing the next
	m, err := topo.ParseMachine(spec)
	if err != nil {
		b.Fatal(err)
	}
	g := m.(*topo.Graph)
	var buf bytes.Buffer
	d := fabrictest.Dump{Graph: g, Ports: 40, HostName: func(v int) string { return fmt.Sprintf("n%06d", v) }}
	if err := fabrictest.WriteDump(&buf, d, f); err != nil {
		b.Fatal(err)
	}
	benchDumpCache.key, benchDumpCache.data = key, buf.Bytes()
	return buf.Bytes()
}

func benchmarkRead(b *testing.B, spec string, f fabrictest.DumpForm, hosts int) {
	data := benchDump(b, spec, f)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		g, err := topo.ReadGraphFormat(bytes.NewReader(data), topo.GraphReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if g.N() != hosts {
			b.Fatalf("%d hosts, want %d", g.N(), hosts)
		}
	}
}

func BenchmarkReadIBNetDiscoverFatTree131072(b *testing.B) {
	benchmarkRead(b, benchFatTree, fabrictest.IBNetDiscover, 131072)
}

func BenchmarkReadIBNetDiscoverPortsFatTree131072(b *testing.B) {
	benchmarkRead(b, benchFatTree, fabrictest.IBNetDiscoverPorts, 131072)
}

func BenchmarkReadIBNetDiscoverDragonfly102400(b *testing.B) {
	benchmarkRead(b, benchDragonfly, fabrictest.IBNetDiscover, 102400)
}

func BenchmarkReadSubnetLstFatTree131072(b *testing.B) {
	benchmarkRead(b, benchFatTree, fabrictest.SubnetLst, 131072)
}

func BenchmarkReadOPAReportFatTree131072(b *testing.B) {
	benchmarkRead(b, benchFatTree, fabrictest.OPAReport, 131072)
}

// dumpForms are the forms fabrictest.WriteDump writes, by name.
var dumpForms = map[string]fabrictest.DumpForm{"ibnetdiscover": fabrictest.IBNetDiscover, "ibnetdiscover -p": fabrictest.IBNetDiscoverPorts, "opareport": fabrictest.OPAReport, "subnet-lst": fabrictest.SubnetLst}

// A written dump reads back as the network it was written from: the same hosts
// (by name), switches and links, in every form. (What the benchmarks below read
// is what they should.)
func TestWrittenDumpsReadBack(t *testing.T) {
	for _, spec := range []string{"fattree:4,4:4,4:8", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		want := fabrictest.HostDist(g)
		for name, f := range dumpForms {
			var buf bytes.Buffer
			if err := fabrictest.WriteDump(&buf, fabrictest.Dump{Graph: g, Ports: 40}, f); err != nil {
				t.Fatal(err)
			}
			r, err := topo.ReadGraphFormat(&buf, topo.GraphReadOptions{})
			if err != nil {
				t.Fatalf("%s as %s: %v", spec, name, err)
			}
			if r.N() != g.N() || r.Vertices() != g.Vertices() || r.Edges() != g.Edges() {
				t.Fatalf("%s as %s: %d hosts, %d vertices, %d links; want %d, %d, %d", spec, name, r.N(), r.Vertices(), r.Edges(), g.N(), g.Vertices(), g.Edges())
			}
			got := fabrictest.HostDist(r)
			for k, d := range want {
				if got[k] != d {
					t.Fatalf("%s as %s: %s-%s %d hops, want %d", spec, name, k[0], k[1], got[k], d)
				}
			}
		}
	}
}

// Reading a fabric dump looks at its context every few thousand lines (XML
// tokens) and links while it builds the fabric, so that Ctrl-C stops it within a
// second at 10^5 hosts (plan, curve, sim --graph; slurm.GraphFile.ReadContext
// also stops the file's reads, but a dump read whole before took 2-12 s of
// parsing at that size, not looking at the context). Ended at its looks (the first,
// the last, some between), the reading returns context.Canceled.
func TestReadFabricDumpStopsWhenCancelled(t *testing.T) {
	const spec = "fattree:16,16:16,16:32" // 8,192 hosts
	for name, f := range dumpForms {
		data := benchDump(t, spec, f)
		lines := bytes.Count(data, []byte("\n"))
		count := ctxtest.NewCounting()
		if _, err := topo.ReadGraphFormat(bytes.NewReader(data), topo.GraphReadOptions{Context: count}); err != nil {
			t.Fatal(err)
		}
		looks := count.Looks()
		// One look every 4,096 lines or tokens at least, and over the links.
		if min := int64(lines/4096 + 16384/4096); looks < min {
			t.Fatalf("%s: %d looks at the context over %d lines, want %d at least", name, looks, lines, min)
		}
		// Ended at the first look, the last, and some between (every one would be
		// minutes).
		for _, k := range []int64{0, 1, looks / 3, looks / 2, looks * 2 / 3, looks - 2, looks - 1} {
			_, err := topo.ReadGraphFormat(bytes.NewReader(data), topo.GraphReadOptions{Context: ctxtest.StopAfter(k)})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: ended at look %d of %d: %v, want context.Canceled", name, k, looks, err)
			}
		}
	}
}

// The -p report's and the default form's fast readers read what the regular
// expressions read; what neither reads is refused naming the line.
func TestReadFabricDumpMalformedLineNamed(t *testing.T) {
	data := string(benchDump(t, "fattree:4,4:8", fabrictest.IBNetDiscover))
	bad := strings.Replace(data, "[3]\t\"H-", "[3]\t\"Q-", 1)
	if _, err := topo.ReadGraphFormat(strings.NewReader(bad), topo.GraphReadOptions{}); err == nil || !strings.Contains(err.Error(), "malformed port line") {
		t.Errorf("a port line to Q-<guid>: %v", err)
	}
}
