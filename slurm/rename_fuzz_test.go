package slurm

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// FuzzRenameTopologyYAMLNodes: procalloc plan's deployment rewrites the user's
// topology.yaml in place (RenameTopologyYAMLNodes). For any file
// ParseTopologyYAMLAll accepts:
//   - a rename that keeps the names (the list as written, or its names
//     expanded and compressed again) gives a file that reads back as the
//     original does, every topology's switches, blocks, rings and torus alike;
//   - renaming every node n to "z"+n and then back gives the same bytes as
//     compressing each list in place (the edits land where the lists are, and a
//     second rename finds them again);
//   - an error (the rename itself never fails here) names a line.
func FuzzRenameTopologyYAMLNodes(f *testing.F) {
	f.Add(readFile(f, "../topo/testdata/topology.yaml"))
	f.Add("- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n      - switch: leaf1\n        nodes: &left n[1-4]\n      - switch: leaf2\n        nodes: [n5, \"n[6-8]\"]\n      - {switch: spine, children: \"leaf[1-2]\"}\n- topology: racks\n  block:\n    block_sizes: [4]\n    blocks:\n      - {block: b1, nodes: *left}\n      - block: b2\n        nodes: 'n[5-8]'\n")
	f.Add("- topology: r\n  cluster_default: true\n  ring:\n    rings:\n      - ring: r0\n        nodes: n[3,1,2]\n      - {ring: r1, nodes: [n4, n1]}\n")
	f.Add("- topology: t\n  torus3d:\n    toruses:\n      - name: t\n        dims: {x: 2, y: 2, z: 1}\n        regions:\n          - {dims: {x: 2, y: 2, z: 1}, nodes: \"n[4,3,2,1]\"}\n")
	f.Add("- topology: r\n  ring:\n    rings:\n      - ring: a\n        nodes: n1,\n          n2\n")
	f.Fuzz(func(t *testing.T, src string) {
		ctx := context.Background()
		before, err := ParseTopologyYAMLAll(ctx, strings.NewReader(src))
		if err != nil {
			return
		}
		names := func(list string) ([]string, error) { return hostlist.Expand(list) }
		// compress is hostlist.Compress; a list of names it cannot write (its
		// own property, FuzzExpand's) ends the run.
		cannot := false
		compress := func(ns []string) (string, error) {
			s, err := hostlist.Compress(ns)
			if err != nil {
				cannot = true
			}
			return s, err
		}
		same := func(out []byte, how string) {
			t.Helper()
			after, err := ParseTopologyYAMLAll(ctx, strings.NewReader(string(out)))
			if err != nil {
				t.Fatalf("%s: the renamed file does not read: %v\n%s", how, err, out)
			}
			if len(after.Topologies) != len(before.Topologies) {
				t.Fatalf("%s: %d topologies, were %d", how, len(after.Topologies), len(before.Topologies))
			}
			for i, b := range before.Topologies {
				a := after.Topologies[i]
				if a.Name != b.Name || a.ClusterDefault != b.ClusterDefault || (a.Topology == nil) != (b.Topology == nil) {
					t.Fatalf("%s: topology %d is %q (default %v), was %q (default %v)", how, i, a.Name, a.ClusterDefault, b.Name, b.ClusterDefault)
				}
				if b.Topology == nil {
					continue
				}
				if !reflect.DeepEqual(a.Tree, b.Tree) || !reflect.DeepEqual(a.Blocks, b.Blocks) || !reflect.DeepEqual(a.Torus, b.Torus) || !reflect.DeepEqual(a.Rings, b.Rings) {
					t.Fatalf("%s: topology %q reads back otherwise\n%s", how, b.Name, out)
				}
			}
		}
		rename := func(how string, fn func(list string, ordered bool) (string, error)) []byte {
			t.Helper()
			out, err := RenameTopologyYAMLNodes(ctx, []byte(src), fn)
			if err != nil {
				if !cannot && !strings.Contains(err.Error(), "line ") {
					t.Fatalf("%s: error names no line: %v", how, err)
				}
				return nil
			}
			return out
		}
		asIs := rename("as written", func(list string, _ bool) (string, error) { return list, nil })
		if asIs == nil {
			return // a list that cannot be replaced in place; every rename refuses it
		}
		same(asIs, "as written")
		canon := rename("compressed", func(list string, _ bool) (string, error) {
			ns, err := names(list)
			if err != nil {
				return "", err
			}
			return compress(ns)
		})
		if cannot {
			return
		}
		if canon == nil {
			t.Fatal("the lists as written replace in place, compressed they do not")
		}
		same(canon, "compressed")
		prefixed := rename("prefixed", func(list string, _ bool) (string, error) {
			ns, err := names(list)
			if err != nil {
				return "", err
			}
			for i := range ns {
				ns[i] = "z" + ns[i]
			}
			return compress(ns)
		})
		if cannot {
			return
		}
		if prefixed == nil {
			t.Fatal("the lists as written replace in place, prefixed they do not")
		}
		back, err := RenameTopologyYAMLNodes(ctx, prefixed, func(list string, _ bool) (string, error) {
			ns, err := names(list)
			if err != nil {
				return "", err
			}
			for i, n := range ns {
				if !strings.HasPrefix(n, "z") {
					t.Fatalf("prefixed: node %q of list %q lacks its z", n, list)
				}
				ns[i] = n[1:]
			}
			return compress(ns)
		})
		if cannot {
			return
		}
		if err != nil {
			t.Fatalf("prefixed file, renamed back: %v\n%s", err, prefixed)
		}
		if string(back) != string(canon) {
			t.Fatalf("renamed and back:\n%s\nwant (compressed in place):\n%s", back, canon)
		}
	})
}
