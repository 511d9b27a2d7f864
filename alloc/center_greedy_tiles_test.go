package alloc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// Shells read by tiles (greedyShellTiles3) against shells read whole, center by
// center, on 3D grids whose faces span several tiles (tile sides 1, 2 and 3 on
// every shell, and the defaults; rings shorter than a ball, partly wrapped grids):
// for every free center of a sample and several k, the same score, the same nodes
// taken in the same order, the same radius read and bound given up on (what the
// memo keeps), for stops around the score; and on a share of them the plain
// definition's score and nodes.
func TestGreedyTilesMatchWhole(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(18, 18, 18), topo.Torus(20, 13, 17), topo.Mesh(17, 15, 16), topo.Torus(9, 9, 9),
		mustGrid(t, []int{16, 19, 13}, []bool{true, false, true}), topo.Torus(7, 12, 5)}
	rounds, sample := 4, 40
	if testing.Short() {
		rounds, sample = 2, 15
	}
	rng := rand.New(rand.NewPCG(13, 6))
	centers, gaveUps, plain, tilesRead, defaultTiles := 0, 0, 0, 0, 0
	for gi, g := range grids {
		for r := range rounds {
			free := randomFreeSet(rng, g)
			tiled, whole := greedyPair(t, g, free)
			// small tiles on every shell, or the defaults (from radius 8 on)
			if tiled.tileSide = []int{1, 2, 3, 0}[(gi+r)%4]; tiled.tileSide > 0 {
				tiled.tileFrom = 1
			}
			whole.tilesOff = true
			nf := len(tiled.fl)
			if nf < 2 {
				continue
			}
			for _, k := range lockstepSizes(rng, nf) {
				for range sample {
					c := tiled.fl[rng.IntN(nf)]
					lower, L, m, _ := tiled.shellScore(c, k, math.MaxInt)
					label := fmt.Sprintf("%s round %d, tile side %d, k=%d, center %d", g.Spec(), r, tiled.tileSide, k, c)
					gaveUps += collectLockstep(t, label, "tiles", "whole", tiled, whole, c, L, m, lower, centers%5 == 0, func() string {
						tilesRead += len(tiled.tiles.tiles)
						if tiled.tileSide == 0 {
							defaultTiles += len(tiled.tiles.tiles)
						}
						return ""
					})
					if centers%5 == 0 {
						plain++
					}
					centers++
				}
			}
		}
	}
	t.Logf("%d centers, %d give-ups, %d against the plain collector, %d tiles made (%d with the defaults)", centers, gaveUps, plain, tilesRead, defaultTiles)
	if centers < 500 || gaveUps < 200 || plain < 100 || defaultTiles == 0 {
		t.Fatalf("only %d centers, %d give-ups, %d plain checks, %d tiles with the defaults", centers, gaveUps, plain, defaultTiles)
	}
}

// Whole decisions with shells read by tiles against shells read whole, in
// lockstep on random allocations and partial releases on 3D tori and meshes, with
// everything else on (the memo, the trees of runs, the probe; ties counted on every
// other grid, the orbit check of an empty torus where they are not): the same
// nodes, tie counts and tie statistics.
func TestGreedyTilesDecisionsMatch(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(12, 12, 12), topo.Mesh(11, 13, 10), topo.Torus(16, 9, 14), topo.Torus(10, 10, 10)}
	rng := rand.New(rand.NewPCG(6, 13))
	decisions := greedyDecisionsLockstep(t, grids, rng, "shells by tiles", func(gi int, a *mc1x1) func() string {
		a.tileSide, a.tileFrom = 1+gi%3, 1
		return nil
	}, func(a *mc1x1) { a.tilesOff = true })
	t.Logf("%d decisions in lockstep", decisions)
}
