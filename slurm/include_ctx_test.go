package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// ctxTree is a fat tree of 8,192 hosts (4,096 in -short) named n000001..., in
// reverse order, and its topology.conf.
func ctxTree(t *testing.T) (topo.Machine, curves.Order, []string, []byte) {
	t.Helper()
	spec := "fattree:16,16:16,16:32"
	if testing.Short() {
		spec = "fattree:8,8:8,8:64"
	}
	m, err := topo.ParseMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	n := m.N()
	o := curves.Order(make([]int, n))
	names := make([]string, n)
	for i := range o {
		o[i], names[i] = n-1-i, fmt.Sprintf("n%06d", i+1)
	}
	var buf bytes.Buffer
	if _, err := WriteTopology(&buf, m, o, names); err != nil {
		t.Fatal(err)
	}
	return m, o, names, buf.Bytes()
}

// plan's check of the site's topology.conf (ParseTopologyConfIncluding) read it
// and its included files under no context: the lines of an included file now
// get the looks of the file's own. Here the whole tree is in the included file:
// ended at any look, the cause; live, the tree of the file read alone.
func TestParseTopologyConfIncludingStopsInIncludedFiles(t *testing.T) {
	m, _, _, tree := ctxTree(t)
	files := map[string][]byte{"/etc/slurm/tree.conf": tree}
	open := func(name string) ([]byte, error) {
		if b, ok := files[name]; ok {
			return b, nil
		}
		return nil, fmt.Errorf("%s: no such file", name)
	}
	top := []byte("# the site's switches\nInclude tree.conf\n")
	parse := func(ctx context.Context) (*Topology, error) {
		return ParseTopologyConfIncluding(ctx, bytes.NewReader(top), "/etc/slurm/topology.conf", "/etc/slurm/slurm.conf", open)
	}
	count := ctxtest.NewCounting()
	got, err := parse(count)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseTopologyConf(bytes.NewReader(tree))
	if err != nil {
		t.Fatal(err)
	}
	if got.Tree == nil || topoSummary(got.Tree) != topoSummary(want.Tree) {
		t.Fatal("the tree read through Include differs from the file read alone")
	}
	looks := count.Looks()
	if min := int64(m.N() / ctxEvery); looks < min {
		t.Fatalf("%d looks for %d hosts in the included file, want at least %d", looks, m.N(), min)
	}
	for k, stop := range ctxtest.Stops(looks, 20) {
		if tp, err := parse(stop); !errors.Is(err, context.Canceled) || tp != nil {
			t.Fatalf("ended at look %d of %d: %v, topology %v; want context.Canceled and none", k+1, looks, err, tp != nil)
		}
	}
}

// WriteTopologyContext (plan's tree build: 0.4 s at 131,072 hosts) stops at
// each of its looks with the cause and writes what WriteTopology writes live.
func TestWriteTopologyContextStops(t *testing.T) {
	m, o, names, tree := ctxTree(t)
	count := ctxtest.NewCounting()
	var buf bytes.Buffer
	if _, err := WriteTopologyContext(count, &buf, m, o, names); err != nil || !bytes.Equal(buf.Bytes(), tree) {
		t.Fatalf("%v, or not WriteTopology's file", err)
	}
	looks := count.Looks()
	// The switches' rules twice and the lines written: each every 4,096 names.
	if min := int64(1 + 3*m.N()/ctxEvery); looks < min {
		t.Fatalf("%d looks for %d hosts, want at least %d", looks, m.N(), min)
	}
	for k, stop := range ctxtest.Stops(looks, 20) {
		var b strings.Builder
		if _, err := WriteTopologyContext(stop, &b, m, o, names); !errors.Is(err, context.Canceled) {
			t.Fatalf("ended at look %d of %d: %v, want context.Canceled", k+1, looks, err)
		}
	}
}

// WriteBlock looked at no context: with a block size of 2 at 196,608 nodes
// (98,304 blocks) it took 0.5-1.1 s under load, where plan's time limit and Ctrl-C
// waited. WriteBlockContext and WriteBlockLevelsContext write WriteBlock's and
// WriteBlockLevels' files live, looking at least once per 4,096 nodes in each of
// the blocks cut, their rules checked and the lines written; ended at any look,
// or cancelled before, they return context.Canceled. 8,192 nodes in -short.
func TestWriteBlockContextStops(t *testing.T) {
	n := 65536
	if testing.Short() {
		n = 8192
	}
	o := make(curves.Order, n)
	names := make([]string, n)
	for i := range o {
		o[i] = n - 1 - i // not name order
		names[i] = fmt.Sprintf("n%06d", i)
	}
	for _, c := range []struct {
		name  string
		plain func(io.Writer, curves.Order, []string, int) error
		ctx   func(context.Context, io.Writer, curves.Order, []string, int) error
		looks int // at least: the blocks cut, checked, written (23.11's check goes over the nodes too)
	}{
		{"WriteBlock", WriteBlock, WriteBlockContext, 1 + 2*n/ctxEvery},
		{"WriteBlockLevels", WriteBlockLevels, WriteBlockLevelsContext, 1 + 3*n/ctxEvery},
	} {
		for _, size := range []int{2, 16} {
			var want bytes.Buffer
			if err := c.plain(&want, o, names, size); err != nil {
				t.Fatal(err)
			}
			count := ctxtest.NewCounting()
			var got bytes.Buffer
			if err := c.ctx(count, &got, o, names, size); err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%s size %d: live: %v, or not the file without a context", c.name, size, err)
			}
			looks := count.Looks()
			if looks < int64(c.looks) {
				t.Fatalf("%s size %d: %d looks for %d nodes, want at least %d", c.name, size, looks, n, c.looks)
			}
			for k, stop := range ctxtest.Stops(looks, 20) {
				if err := c.ctx(stop, io.Discard, o, names, size); !errors.Is(err, context.Canceled) {
					t.Fatalf("%s size %d: ended at look %d of %d: %v, want context.Canceled", c.name, size, k+1, looks, err)
				}
			}
		}
	}
}
