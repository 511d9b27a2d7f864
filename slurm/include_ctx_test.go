package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
