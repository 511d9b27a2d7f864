package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// Conf.Nodes of a slurm.conf of 131,072 nodes took 0.25-0.43 s with no look at a
// context (plan's Ctrl-C waited up to 0.27 s for it). NodesContext with a cancelled
// context, or one that ends at any of the looks the whole expansion makes, returns
// a *ConfError naming the NodeName line whose Err is context.Canceled, and no
// nodes; the looks come at least twice every ctxEvery nodes (the hostlist's names,
// then the nodes made of them; a bracket's numbers are no longer made before its
// names, 2026-12-07); live, it gives what Nodes gives. Without the looks at the
// nodes made (a mutant) 7 looks come where 8 are wanted (-short): fails.
func TestNodesContextStopsWhenCancelled(t *testing.T) {
	n := 131072
	if testing.Short() {
		n = 16384
	}
	text := fmt.Sprintf("ClusterName=c\nNodeName=DEFAULT CPUs=8\nNodeName=a[%06d-%06d] Weight=5\nNodeName=b[%06d-%06d] NodeAddr=10.0.[0-%d].[0-15]\nPartitionName=p Nodes=ALL\n",
		1, n/2, 1, n/2, n/32-1)
	conf, err := ReadConf([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want, err := conf.Nodes()
	if err != nil || len(want) != n {
		t.Fatalf("Nodes: %d nodes, %v; want %d", len(want), err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := conf.NodesContext(ctx)
	var ce *ConfError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &ce) || ce.Line != 3 || got != nil {
		t.Fatalf("a cancelled context: %d nodes, error %v; want none and a *ConfError of line 3 wrapping context.Canceled", len(got), err)
	}
	count := ctxtest.NewCounting()
	got, err = conf.NodesContext(count)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("a live context: %d nodes, %v; want Nodes' %d", len(got), err, len(want))
	}
	looks := count.Looks()
	if min := int64(2 * n / ctxEvery); looks < min {
		t.Fatalf("%d looks for %d nodes; want at least %d", looks, n, min)
	}
	step := max(1, looks/40)
	if testing.Short() {
		step = 1
	}
	for k := int64(0); k < looks; k += step {
		got, err := conf.NodesContext(ctxtest.StopAfter(k))
		if !errors.Is(err, context.Canceled) || !errors.As(err, &ce) || got != nil {
			t.Fatalf("ended after %d of %d looks: %d nodes, error %v; want none and a *ConfError wrapping context.Canceled", k, looks, len(got), err)
		}
		if !strings.HasPrefix(ce.Msg, "NodeName=a[") && !strings.HasPrefix(ce.Msg, "NodeName=b[") {
			t.Fatalf("ended after %d looks: %q does not name the NodeName list being expanded", k, ce.Msg)
		}
	}
}

// bigTopologyYAML returns a topology.yaml tree of hosts hosts (leaves of perLeaf
// hosts, a spine for every 8 leaves, one root), the leaves' nodes as hostlists
// (n[000000-000031]) or, with lists, as YAML lists of every name (the larger file,
// whose decoding takes the time).
func bigTopologyYAML(hosts, perLeaf int, lists bool) []byte {
	var b bytes.Buffer
	b.WriteString("- topology: fat\n  cluster_default: true\n  tree:\n    switches:\n")
	leaves := hosts / perLeaf
	for s := range leaves {
		lo := perLeaf * s
		if !lists {
			fmt.Fprintf(&b, "      - switch: leaf%05d\n        nodes: n[%06d-%06d]\n", s, lo, lo+perLeaf-1)
			continue
		}
		fmt.Fprintf(&b, "      - switch: leaf%05d\n        nodes: [", s)
		for h := range perLeaf {
			if h > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "n%06d", lo+h)
		}
		b.WriteString("]\n")
	}
	for s := range leaves / 8 {
		fmt.Fprintf(&b, "      - switch: spine%04d\n        children: leaf[%05d-%05d]\n", s, 8*s, 8*s+7)
	}
	fmt.Fprintf(&b, "      - switch: root\n        children: spine[0000-%04d]\n", leaves/8-1)
	return b.Bytes()
}

// A topology.yaml of 131,072 hosts (1.35 MB with the names listed) took up to 0.4 s
// to decode and turn into a tree with no look at a context (curve --graph waited
// 0.36 s after Ctrl-C). ReadGraphFormat with a cancelled context, or one that ends at
// any of the looks the whole read makes, returns context.Canceled and no graph;
// live, the graph ReadGraphFormat reads without one. The looks come at least once
// every ctxEvery hosts and, while the file is decoded, at least once per KiB of it
// (each read of the decoder, 512 bytes): with the hosts' names listed on wide
// leaves, without the ContextReader around the decoder (a mutant) 57 looks come
// where 75 are wanted (-short): fails.
func TestReadTopologyYAMLStopsWhenCancelled(t *testing.T) {
	hosts := 32768
	if testing.Short() {
		hosts = 8192
	}
	for _, c := range []struct {
		name   string
		data   []byte
		perKiB int // looks wanted per KiB of the file
	}{
		{"hostlists", bigTopologyYAML(hosts, 32, false), 0},
		{"lists of names", bigTopologyYAML(hosts, 256, true), 1},
	} {
		want, err := ReadGraphFormat(bytes.NewReader(c.data), GraphReadOptions{Format: "slurm-topology-yaml"})
		if err != nil || want.N() != hosts {
			t.Fatalf("%s: %v", c.name, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if g, err := ReadGraphFormat(bytes.NewReader(c.data), GraphReadOptions{Format: "slurm-topology-yaml", Context: ctx}); !errors.Is(err, context.Canceled) || g != nil {
			t.Fatalf("%s: a cancelled context: graph %v, error %v; want none and context.Canceled", c.name, g != nil, err)
		}
		count := ctxtest.NewCounting()
		g, err := ReadGraphFormat(bytes.NewReader(c.data), GraphReadOptions{Format: "slurm-topology-yaml", Context: count})
		if err != nil {
			t.Fatal(err)
		}
		sameLinks(t, c.name+" with a context", g, want)
		looks := count.Looks()
		if min := int64(c.perKiB*len(c.data)/1024 + hosts/ctxEvery); looks < min {
			t.Fatalf("%s: %d looks for %d bytes and %d hosts; want at least %d", c.name, looks, len(c.data), hosts, min)
		}
		step := max(1, looks/40)
		for k := int64(0); k < looks; k += step {
			g, err := ReadGraphFormat(bytes.NewReader(c.data), GraphReadOptions{Format: "slurm-topology-yaml", Context: ctxtest.StopAfter(k)})
			if !errors.Is(err, context.Canceled) || g != nil {
				t.Fatalf("%s: ended after %d of %d looks: graph %v, error %v; want none and context.Canceled", c.name, k, looks, g != nil, err)
			}
		}
	}
}
