package slurm

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/topo"
)

// A written block topology.conf reads back as blocks that are the ordering's
// consecutive runs (the reader numbers hosts in order of appearance: the ordering),
// two hops inside a block and four between blocks, with BlockSizes doubling from the
// base size up to the machine.
func TestWriteBlockRoundTrip(t *testing.T) {
	for _, c := range []struct {
		spec, curve string
		size        int
		sizes       string
	}{{"mesh:4x4", "hilbert", 4, "4,8,16"}, {"mesh:8x8", "hilbert", 8, "8,16,32,64"}, {"mesh:6x4", "snake", 6, "6,12,24"}, {"mesh:4x2", "snake", 8, "8"}} {
		m, _ := topo.ParseSpec(c.spec)
		o, err := curves.Generate(c.curve, m)
		if err != nil {
			t.Fatal(err)
		}
		hosts := make([]string, m.N())
		for i := range hosts {
			hosts[i] = fmt.Sprintf("nid%03d", i)
		}
		var buf bytes.Buffer
		if err := WriteBlock(&buf, o, hosts, c.size); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "\nBlockSizes="+c.sizes+"\n") {
			t.Fatalf("%s: %s", c.spec, buf.String())
		}
		g, err := ReadTopologyConf(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.spec, err, buf.String())
		}
		names := curves.NodeNames(g)
		want := make([]string, len(o))
		for r, v := range o {
			want[r] = hosts[v]
		}
		if !slices.Equal(names, want) {
			t.Fatalf("%s: hosts back %v, want the ordering %v", c.spec, names, want)
		}
		for a := range g.N() {
			for b := range g.N() {
				d := 4
				if a == b {
					d = 0
				} else if a/c.size == b/c.size {
					d = 2
				}
				if m.N() == c.size && a != b {
					d = 2 // one block: no block-root switch
				}
				if g.Dist(a, b) != d {
					t.Fatalf("%s: Dist(%s,%s) = %d, want %d", c.spec, names[a], names[b], g.Dist(a, b), d)
				}
			}
		}
	}
	if err := WriteBlock(&bytes.Buffer{}, curves.RowMajor(10), nil, 4); err == nil || !strings.Contains(err.Error(), "block size 4") {
		t.Fatalf("10 nodes in blocks of 4: %v", err)
	}
}

// CompactBox against brute force: a box of k nodes inside the torus exists exactly
// when one is found, and none found has a smaller sum of sides.
func TestCompactBox(t *testing.T) {
	for _, dims := range [][3]int{{4, 2, 2}, {8, 8, 8}, {5, 3, 1}, {1, 1, 1}, {6, 4, 2}} {
		for k := 1; k <= dims[0]*dims[1]*dims[2]+1; k++ {
			best := 0
			for x := 1; x <= dims[0]; x++ {
				for y := 1; y <= dims[1]; y++ {
					for z := 1; z <= dims[2]; z++ {
						if x*y*z == k && (best == 0 || x+y+z < best) {
							best = x + y + z
						}
					}
				}
			}
			b, ok := CompactBox(dims, k)
			if ok != (best > 0) || ok && (b.Size() != k || b.X+b.Y+b.Z != best || b.X > dims[0] || b.Y > dims[1] || b.Z > dims[2]) {
				t.Fatalf("%v k=%d: %v %v, brute force sum %d", dims, k, b, ok, best)
			}
		}
	}
	if ps, err := ParsePlacements("8,2x2x1,2", [3]int{4, 2, 2}); err != nil || fmt.Sprint(ps) != "[2x1x1 2x2x1 2x2x2]" {
		t.Fatalf("ParsePlacements: %v %v", ps, err)
	}
	for _, bad := range []string{"5", "4,2x2x1", "5x1x1", "x", "0", "2x2", "2x2x1x1", "", "2x1x1\n4", "+2x1x1", "02x1x1", "2x 1x1"} {
		if _, err := ParsePlacements(bad, [3]int{4, 2, 2}); err == nil {
			t.Errorf("ParsePlacements(%q) accepted", bad)
		}
	}
}

// The torus3d file is in Slurm 26.05's schema (toruses, placements) and reads back
// as the torus; its placements pass the reader's checks.
func TestTorus3DSchema(t *testing.T) {
	m, _ := topo.ParseSpec("torus:4x2x2")
	hosts := slurmtest.NodeNames(16)
	var buf bytes.Buffer
	if err := WriteTorus3D(&buf, m, hosts, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"    toruses:\n      - name: torus\n", "        placements:\n", "          - dims: {x: 2, y: 2, z: 1}\n", "          - dims: {x: 4, y: 2, z: 2}\n"} {
		if !strings.Contains(buf.String(), s) {
			t.Fatalf("no %q in\n%s", s, buf.String())
		}
	}
	g, err := ReadTopologyYAML(bytes.NewReader(buf.Bytes()), "")
	if err != nil || g.N() != 16 || g.Dist(0, 3) != 1 {
		t.Fatalf("read back: %v", err)
	}
	for _, c := range []struct{ src, want string }{
		{"- topology: t\n  torus3d:\n    toruses:\n      - name: a\n        dims: {x: 2, y: 1, z: 1}\n        nodes: n[1-2]\n        placements:\n          - dims: {x: 3, y: 1, z: 1}\n", "placement dims x = \"3\""},
		{"- topology: t\n  torus3d:\n    toruses:\n      - name: a\n        dims: {x: 2, y: 1, z: 1}\n        nodes: n[1-2]\n        placements:\n          - anchor_seed: {x: 0, y: 0, z: 0}\n", "a placement needs dims"},
		{"- topology: t\n  torus3d:\n    toruses:\n      - name: a\n        dims: {x: 2, y: 1, z: 1}\n        nodes: n[1-2]\n        placements:\n          - dims: {x: 1, y: 1, z: 1}\n            size: 4\n", "unknown key \"size\" in a placement"},
		{"- topology: t\n  torus3d:\n    toruses: []\n    name: x\n", "toruses and other keys"},
	} {
		if _, err := ReadTopologyYAML(strings.NewReader(c.src), ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}
