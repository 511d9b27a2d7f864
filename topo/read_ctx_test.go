package topo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// stopsWhenCancelled checks that build, given a context, returns
// context.Canceled and nothing when the context has ended before it starts or at
// any of about 40 (-short: 15) of the looks a whole build makes (counted), that the looks are
// at least minLooks, and that with a context that does not end it builds what
// build(context.Background()) builds.
func stopsWhenCancelled(t *testing.T, name string, minLooks int64, build func(ctx context.Context) (*Graph, error)) {
	t.Helper()
	want, err := build(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if g, err := build(ctx); !errors.Is(err, context.Canceled) || g != nil {
		t.Fatalf("%s: a cancelled context: graph %v, error %v; want none and context.Canceled", name, g != nil, err)
	}
	count := ctxtest.NewCounting()
	g, err := build(count)
	if err != nil {
		t.Fatalf("%s with a context: %v", name, err)
	}
	if a, b := graphByIndex(g), graphByIndex(want); a != b {
		t.Fatalf("%s: built with a context, the network differs", name)
	}
	looks := count.Looks()
	if looks < minLooks {
		t.Fatalf("%s: looked at its context %d times; want at least %d", name, looks, minLooks)
	}
	points := int64(40)
	if testing.Short() {
		points = 15
	}
	step := max(1, looks/points)
	for k := int64(0); k < looks; k += step {
		if g, err := build(ctxtest.StopAfter(k)); !errors.Is(err, context.Canceled) || g != nil {
			t.Fatalf("%s: context ended at its look %d of %d: graph %v, error %v; want none and context.Canceled", name, k+1, looks, g != nil, err)
		}
	}
}

// Building a fat tree or a dragonfly from its spec (0.1-0.3 s at 10^5 hosts)
// stops when the context ends, with its cause unwrapped; grids look at nothing
// (they are built lazily).
func TestParseMachineContextStopsWhenCancelled(t *testing.T) {
	for _, c := range []struct {
		spec string
		// passes over the hosts or the links that look every ctxEvery: the host
		// names, the links' keys, switchedGraph's links and hosts
		passes int
	}{
		{"fattree:16,16:16,16:32", 4},
		{"dragonfly:hosts_per_router=4,routers_per_group=16,intergroup_links=2,num_groups=64", 4},
	} {
		stopsWhenCancelled(t, c.spec, 0, func(ctx context.Context) (*Graph, error) {
			m, err := ParseMachineContext(ctx, c.spec, 1<<20)
			if err != nil {
				return nil, err
			}
			return m.(*Graph), nil
		})
		m, _ := ParseMachine(c.spec)
		count := ctxtest.NewCounting()
		if _, err := ParseMachineContext(count, c.spec, 1<<20); err != nil {
			t.Fatal(err)
		}
		if min := int64(c.passes * m.N() / ctxEvery); count.Looks() < min {
			t.Errorf("%s: %d looks for %d hosts; want at least %d", c.spec, count.Looks(), m.N(), min)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("interrupted")
	cancel(stop)
	if _, err := ParseMachineContext(ctx, "fattree:16,16:32", 1<<20); err != stop {
		t.Errorf("a cancelled build: %v, want its cause unwrapped", err)
	}
	// Spec errors are found before the build looks: the same with a live context.
	for _, spec := range []string{"fattree:3,x:4", "dragonfly:hosts_per_router=0", "fattree:16,16:32"} {
		_, e1 := ParseMachineMax(spec, 100)
		_, e2 := ParseMachineContext(context.Background(), spec, 100)
		if fmt.Sprint(e1) != fmt.Sprint(e2) || e1 == nil {
			t.Errorf("%s: ParseMachineMax %v, ParseMachineContext %v", spec, e1, e2)
		}
	}
}

// bigFabricFiles writes a fat tree's network as an edge list with %switch lines,
// subnet.lst and opareport's XML.
func bigFabricFiles(t *testing.T, g *Graph) map[string][]byte {
	t.Helper()
	var edges, lst, opa bytes.Buffer
	for v := g.N(); v < g.Vertices(); v++ {
		fmt.Fprintf(&edges, "%%switch %s\n", g.Name(v))
	}
	port := make([]int, g.Vertices())
	var links [][2]string
	typ := func(v int) (string, string) {
		if g.IsSwitch(v) {
			return "SW", g.Name(v)
		}
		return "CA", g.Name(v) + " mlx5_0"
	}
	for a := range g.Vertices() {
		for _, b := range g.Neighbors(a, nil) {
			if b < a {
				continue
			}
			fmt.Fprintf(&edges, "%s %s\n", g.Name(a), g.Name(b))
			port[a]++
			port[b]++
			// The switch end first, as OpenSM prints a switch's links.
			s, h := a, b
			if !g.IsSwitch(s) {
				s, h = h, s
			}
			st, sd := typ(s)
			ht, hd := typ(h)
			lst.WriteString(lstLine(st, uint64(s+1), sd, port[s], ht, uint64(h+1), hd, port[h]))
			ot := map[string]string{"SW": "SW", "CA": "FI"}
			links = append(links, [2]string{opaPortXML(uint64(s+1), port[s], ot[st], sd), opaPortXML(uint64(h+1), port[h], ot[ht], strings.Replace(hd, "mlx5_0", "hfi1_0", 1))})
		}
	}
	opa.WriteString(opaDoc("LinkSummary", links...))
	return map[string][]byte{"edges": edges.Bytes(), "subnet-lst": lst.Bytes(), "opareport": opa.Bytes()}
}

// Every network format of this package stops while it is parsed and while its
// network is built, not only while its file is read: a cancelled context, or one
// ending at any of its looks, returns context.Canceled and no graph
// (ReadGraphFormat's Context).
func TestReadGraphFormatStopsWhenCancelled(t *testing.T) {
	shape := "16,16:16,8:16" // 4,096 hosts: subnet.lst 3.6 MB, opareport 5.9 MB, 0.6-0.8 s each read
	if testing.Short() {
		shape = "8,8:8,8:16" // 1,024 hosts: subnet.lst 0.9 MB
	}
	g, err := FatTree(shape)
	if err != nil {
		t.Fatal(err)
	}
	for format, data := range bigFabricFiles(t, g) {
		// At least one look a 64 KiB read of the file (the parse: the largest
		// buffer the line readers read at once) and the network's construction
		// (its links and hosts).
		min := int64(len(data)/(64<<10) + g.Edges()/ctxEvery + g.N()/ctxEvery)
		stopsWhenCancelled(t, format, min, func(ctx context.Context) (*Graph, error) {
			opt := GraphReadOptions{Format: format}
			if ctx != context.Background() {
				opt.Context = ctx
			}
			h, err := ReadGraphFormat(bytes.NewReader(data), opt)
			if err == nil && h.N() != g.N() {
				t.Fatalf("%s: %d hosts, want %d", format, h.N(), g.N())
			}
			return h, err
		})
	}
}
