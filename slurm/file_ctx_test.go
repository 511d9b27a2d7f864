package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// The topology.conf of sim's slurm:tree:FILE and slurm:block:FILE
// (ReadTopologyFile: 1.2 s for the 7.9 MB tree of a 131,072-host fat tree) and
// curve --slurm-conf's merge (MergeWeights: a second for 131,072 nodes of
// distinct weights) looked at no context. Each with a cancelled context, or one
// that ends at any of the looks a whole call makes, returns an error wrapping
// context.Canceled and nothing else; live, what it gave before. A fat tree of
// 4,096 hosts in -short, 32,768 otherwise.
func TestTopologyFileAndMergeWeightsStopWhenCancelled(t *testing.T) {
	spec := "fattree:16,16:16,16:32" // 8,192 hosts
	if testing.Short() {
		spec = "fattree:8,8:8,8:64" // 4,096 hosts
	}
	m, err := topo.ParseMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	n := m.N()
	o := curves.Order(make([]int, n))
	for i := range o {
		o[i] = n - 1 - i
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%06d", i+1)
	}
	dir := t.TempDir()
	var tree, block bytes.Buffer
	if _, err := WriteTopology(&tree, m, o, names); err != nil {
		t.Fatal(err)
	}
	if err := WriteBlock(&block, o, names, 64); err != nil {
		t.Fatal(err)
	}
	conf := []byte(fmt.Sprintf("ClusterName=c\nNodeName=n[%06d-%06d] CPUs=8\nPartitionName=p Nodes=ALL\n", 1, n))
	readFile := func(name string) func(ctx context.Context) {
		return func(ctx context.Context) {
			f, err := os.Open(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := textin.ReadAll(textin.ContextReader(ctx, f), topo.MaxGraphBytes, "the file"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name   string
		call   func(ctx context.Context) (any, error)
		before func(ctx context.Context) // what looked before the change
	}{
		{"topology/tree file", topologyFile(t, dir, "tree.conf", tree.Bytes()), readFile("tree.conf")},
		{"topology/block file", topologyFile(t, dir, "block.conf", block.Bytes()), readFile("block.conf")},
		{"MergeWeights", func(ctx context.Context) (any, error) {
			out, _, err := MergeWeights(ctx, conf, o, names)
			return out, err
		}, func(ctx context.Context) {
			c, err := ReadConf(conf)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.NodesContext(ctx); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		want, err := c.call(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		count := ctxtest.NewCounting()
		got, err := c.call(count)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: with a live context: %v, or not what a background context gives", c.name, err)
		}
		looks := count.Looks()
		// Beyond the looks of the part that looked before (reading the file;
		// expanding the NodeName lines), more than one per ctxEvery hosts: the
		// parse, the edit (and a look before it).
		before := ctxtest.NewCounting()
		c.before(before)
		if min := before.Looks() + int64(n/ctxEvery) + 1; looks < min {
			t.Fatalf("%s: %d looks for %d hosts, want at least %d (%d before)", c.name, looks, n, min, before.Looks())
		}
		for k, stop := range ctxtest.Stops(looks, 40) {
			if got, err := c.call(stop); !errors.Is(err, context.Canceled) || !reflect.ValueOf(got).IsNil() {
				t.Fatalf("%s: ended after %d of %d looks: %v; want nothing and context.Canceled", c.name, k, looks, err)
			}
		}
	}
}

// topologyFile writes data to dir/name and returns ReadTopologyFile of it.
func topologyFile(t *testing.T, dir, name string, data []byte) func(ctx context.Context) (any, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context) (any, error) {
		top, err := ReadTopologyFile(ctx, path)
		if top != nil {
			// what was read, not how its Include lines would be followed again
			// (the includer holds a function, equal to nothing)
			top.conf = &Conf{Lines: top.conf.Lines, Included: top.conf.Included}
		}
		return top, err
	}
}
