package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// bigTopologyConfs returns a topology/tree file of 32,768 hosts (2,048 leaves of 16,
// 64 middle switches, one top) and a topology/block file of the same hosts (blocks
// of 16, BlockSizes=16,64), the shapes curve --format slurm-topology and
// slurm-block write.
func bigTopologyConfs() (tree, block []byte) {
	var t, b bytes.Buffer
	for l := range 2048 {
		fmt.Fprintf(&t, "SwitchName=leaf%d Nodes=n[%05d-%05d]\n", l, 16*l, 16*l+15)
		fmt.Fprintf(&b, "BlockName=b%d Nodes=n[%05d-%05d]\n", l, 16*l, 16*l+15)
	}
	for m := range 64 {
		fmt.Fprintf(&t, "SwitchName=mid%d Switches=leaf[%d-%d]\n", m, 32*m, 32*m+31)
	}
	fmt.Fprintf(&t, "SwitchName=top Switches=mid[0-63]\n")
	fmt.Fprintf(&b, "BlockSizes=16,64\n")
	return t.Bytes(), b.Bytes()
}

// sameLinks fails unless a and b have the same vertices, names and links (every
// vertex's neighbours; graphformat_fuzz_test's sameGraph compares distances).
func sameLinks(t *testing.T, what string, a, b *topo.Graph) {
	t.Helper()
	if a.N() != b.N() || a.Vertices() != b.Vertices() || a.Edges() != b.Edges() {
		t.Fatalf("%s: %d hosts, %d vertices, %d links; want %d, %d, %d", what, a.N(), a.Vertices(), a.Edges(), b.N(), b.Vertices(), b.Edges())
	}
	for v := range a.Vertices() {
		if a.Name(v) != b.Name(v) || !slices.Equal(a.Neighbors(v, nil), b.Neighbors(v, nil)) {
			t.Fatalf("%s: vertex %d differs (%s, %s)", what, v, a.Name(v), b.Name(v))
		}
	}
}

// Reading a topology.conf of 10^5 hosts took 1-2 s with no look at a context
// (curve, order, evaluate, bench, sim and compare --graph: Ctrl-C waited for the
// CLI's 2 s watchdog). Ended before the read, or at any of the places the read
// looks at it, ReadGraphFormat returns context.Canceled and no graph; the looks come
// at least once every ctxEvery names; a live context reads the graph Read reads.
func TestReadGraphStopsWhenCancelled(t *testing.T) {
	tree, block := bigTopologyConfs()
	for _, c := range []struct {
		name string
		data []byte
		// passes over the hosts that look at the context: the lines, then (tree)
		// newTree's switches and its nodes on two leaves, then the network's
		// hosts and its links
		passes int
	}{{"tree", tree, 5}, {"block", block, 3}} {
		want, err := ReadGraphFormat(bytes.NewReader(c.data), GraphReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if g, err := ReadGraphFormat(bytes.NewReader(c.data), GraphReadOptions{Context: ctx}); !errors.Is(err, context.Canceled) || g != nil {
			t.Fatalf("%s: a cancelled context: graph %v, error %v; want none and context.Canceled", c.name, g != nil, err)
		}
		count := ctxtest.NewCounting()
		g, err := ReadGraphFormat(bytes.NewReader(c.data), GraphReadOptions{Context: count})
		if err != nil {
			t.Fatal(err)
		}
		sameLinks(t, c.name+" with a context", g, want)
		looks := count.Looks()
		// Every pass over the hosts looks at least every ctxEvery names.
		if min := int64(c.passes * want.N() / ctxEvery); looks < min {
			t.Fatalf("%s: the read looked at its context %d times for %d hosts; want at least %d", c.name, looks, want.N(), min)
		}
		step := max(1, looks/40)
		for k := int64(0); k < looks; k += step {
			g, err := ReadGraphFormat(bytes.NewReader(c.data), GraphReadOptions{Context: ctxtest.StopAfter(k)})
			if !errors.Is(err, context.Canceled) || g != nil {
				t.Fatalf("%s: context ended at its look %d of %d: graph %v, error %v; want none and context.Canceled", c.name, k+1, looks, g != nil, err)
			}
		}
	}

	// GraphFile.ReadContext: the cause itself (not a *GraphFileError naming the
	// file, whose content is fine), from the file's reading on.
	path := filepath.Join(t.TempDir(), "topology.conf")
	if err := os.WriteFile(path, tree, 0o644); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	_, _, err := GraphFile{Path: path}.ReadContext(ctx)
	if ge := (*GraphFileError)(nil); errors.As(err, &ge) || !errors.Is(err, stop) {
		t.Fatalf("ReadContext with a cancelled context: %v, want the cause alone", err)
	}
	g, _, err := GraphFile{Path: path}.ReadContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := GraphFile{Path: path}.Read()
	if err != nil {
		t.Fatal(err)
	}
	sameLinks(t, "ReadContext", g, want)
}
