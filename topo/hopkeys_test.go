package topo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestHopKeysDist: Off + D + Off, with D from the anchors (0 on one anchor, 2 between
// twins) and Rows (other keys), is Dist on every pair of hosts, and on dragonflies
// Near says what Rows says, from the key table
// and from the 64-source breadth-first rows (the hop index built with the table,
// labels or rows tier), on fat trees, dragonflies, a dragonfly and a fat tree read
// from files and irregular networks (hosts on two switches or on hosts, host links,
// two components).
func TestHopKeysDist(t *testing.T) {
	graphs := map[string]*Graph{}
	for _, spec := range []string{"fattree:4,4:4,4:4", "fattree:3,2:2,2:3",
		"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5",
		"dragonfly:hosts_per_router=1,routers_per_group=4,intergroup_links=2,num_groups=9"} {
		m, err := ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		graphs[spec] = m.(*Graph)
		g, err := ReadGraph(strings.NewReader(edgeListOf(m.(*Graph))))
		if err != nil {
			t.Fatal(err)
		}
		graphs[spec+" from a file"] = g
	}
	for i, text := range irregularGraphs {
		g, err := ReadGraph(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		graphs[fmt.Sprintf("irregular %d", i)] = g
	}
	for name, g := range graphs {
		for _, tier := range []string{"", "labels", "rows"} {
			hk := newHopKeys(g, mustHopIndex(t, g, tier))
			if hk.h.key != nil && tier != "" {
				t.Fatalf("%s: tier %q has a key table", name, tier)
			}
			srcs := make([]int32, hk.NumKeys)
			for i := range srcs {
				srcs[i] = int32(len(srcs) - 1 - i) // any order
			}
			// Near's short rows, on a dragonfly, as full rows.
			nearRows := make([][]int32, hk.NumKeys)
			short, err := hk.Near(context.Background(), srcs, func(i int, keys, dist []int32, far int32) {
				row := make([]int32, hk.NumKeys)
				for y := range row {
					row[y] = far
				}
				for j, y := range keys {
					row[y] = dist[j]
				}
				nearRows[srcs[i]] = row
			})
			if err != nil {
				t.Fatal(err)
			}
			if df := strings.HasPrefix(name, "dragonfly"); df != short {
				t.Fatalf("%s (%s): Near's short form %v", name, tier, short)
			}
			rows := make([][]int32, hk.NumKeys)
			if err := hk.Rows(context.Background(), srcs, func(i int, row []int32) {
				rows[srcs[i]] = append([]int32(nil), row...)
			}); err != nil {
				t.Fatal(err)
			}
			// KeyDist: the rows' values wherever there is a key table.
			for x := range int32(hk.NumKeys) {
				for y := range int32(hk.NumKeys) {
					d, ok := hk.KeyDist(x, y)
					if ok != (hk.h.key != nil) {
						t.Fatalf("%s (%s): KeyDist reports a table %v", name, tier, ok)
					}
					if ok && d != rows[x][y] {
						t.Fatalf("%s (%s): KeyDist(%d, %d) = %d, Rows %d", name, tier, x, y, d, rows[x][y])
					}
				}
			}
			for u := range g.N() {
				if hk.AnchorKey[hk.Anchor[u]] != hk.Key[u] || (hk.Off[u] == 1) != (len(g.adj[u]) == 1 && hk.h.anchor[u] != int32(u)) {
					t.Fatalf("%s: host %d: anchor %d of key %d, key %d, off %d", name, u, hk.Anchor[u], hk.AnchorKey[hk.Anchor[u]], hk.Key[u], hk.Off[u])
				}
				for v := range g.N() {
					if u == v {
						continue
					}
					var d int
					switch {
					case hk.Anchor[u] == hk.Anchor[v]:
						d = 0
					case hk.Key[u] == hk.Key[v]:
						d = 2
					default:
						d = int(rows[hk.Key[u]][hk.Key[v]])
						if short && int(nearRows[hk.Key[u]][hk.Key[v]]) != d {
							t.Fatalf("%s (%s): keys %d, %d: Near says %d, Rows %d", name, tier, hk.Key[u], hk.Key[v], nearRows[hk.Key[u]][hk.Key[v]], d)
						}
					}
					want := g.Dist(u, v)
					if d < 0 {
						if want != -1 {
							t.Fatalf("%s (%s): hosts %d, %d: keys unreachable, Dist %d", name, tier, u, v, want)
						}
						continue
					}
					if got := int(hk.Off[u]) + int(hk.Off[v]) + d; got != want {
						t.Fatalf("%s (%s): hosts %d, %d: Off+D+Off = %d, Dist %d", name, tier, u, v, got, want)
					}
				}
			}
		}
	}
}

// TestHopKeysRowsCancelled: Rows and Near under an ended context return its cause,
// Rows from the table and from the breadth-first rows.
func TestHopKeysRowsCancelled(t *testing.T) {
	m, err := ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5")
	if err != nil {
		t.Fatal(err)
	}
	g := m.(*Graph)
	cause := errors.New("stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if _, err := g.HopKeys(ctx); !errors.Is(err, cause) {
		t.Fatalf("HopKeys under an ended context: %v", err)
	}
	for _, tier := range []string{"", "rows"} {
		hk := newHopKeys(g, mustHopIndex(t, g, tier))
		calls := 0
		err := hk.Rows(ctx, []int32{0, 1, 2}, func(int, []int32) { calls++ })
		if !errors.Is(err, cause) || calls != 0 {
			t.Fatalf("tier %q: Rows under an ended context: %v after %d rows", tier, err, calls)
		}
		short, err := hk.Near(ctx, []int32{0, 1, 2}, func(int, []int32, []int32, int32) { calls++ })
		if !short || !errors.Is(err, cause) || calls != 0 {
			t.Fatalf("tier %q: Near under an ended context: %v, %v after %d rows", tier, short, err, calls)
		}
	}
}
