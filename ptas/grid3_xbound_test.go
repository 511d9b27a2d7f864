package ptas

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGrid3XBoundBelowXTotal checks score's bound along x (xBound) against the
// plain definition on thousands of random free sets of small 3D boxes, every MM
// center of each (ties by index included: equal distances are the rule there):
// the bound never exceeds the exact x total of the k nearest by (distance,
// index); with a room below it the bound reports false with a value above the
// room and still at most the total; and the points closer than thr it keeps per
// plane (innerX, which the exact x pass reads) are the plane's counts.
func TestGrid3XBoundBelowXTotal(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 17))
	sets := 3000
	if testing.Short() {
		sets = 1000
	}
	centers, tight, dropped := 0, 0, 0
	for c := range sets {
		W, H, L := 1+r.IntN(7), 1+r.IntN(7), 1+r.IntN(7)
		busy := r.Float64() * 0.95
		pts := randomFree3(r, W, H, L, busy)
		if len(pts) < 3 {
			continue
		}
		k := 2 + r.IntN(len(pts)-2)
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		thr := 0
		dist := make([]int, len(pts))
		for u := 0; u < len(g.centers); u += 3 {
			cx, cy, cz := int(g.centers[u]), int(g.centers[u+1]), int(g.centers[u+2])
			g.setRow(cx, cy, true)
			thr = g.walk(cx, cy, cz, thr)
			for i := range pts {
				dist[i] = abs(px[i]-cx) + abs(py[i]-cy) + abs(pz[i]-cz)
			}
			sel := nearestByIndex(dist, k)
			var xt int64
			for i, a := range sel {
				for _, b := range sel[i+1:] {
					xt += int64(abs(px[a] - px[b]))
				}
			}
			T := int64(k - g.sumIn)
			lb, ok := g.xBound(cx, cy, cz, thr, T, math.MaxInt64)
			if !ok || lb > xt || lb < 0 {
				t.Fatalf("set %d (k = %d), center (%d,%d,%d), thr %d: xBound %d (%v) against the x total %d", c, k, cx, cy, cz, thr, lb, ok, xt)
			}
			if lb == xt {
				tight++
			}
			for x := max(cx-thr, 0); x <= min(cx+thr, g.W-1); x++ {
				want := 0
				for i := range pts {
					if px[i] == x && dist[i] < thr {
						want++
					}
				}
				if int(g.innerX[x]) != want {
					t.Fatalf("set %d, center (%d,%d,%d), thr %d: plane %d holds %d points closer than thr, xBound kept %d", c, cx, cy, cz, thr, x, want, g.innerX[x])
				}
			}
			if lb > 0 {
				got, ok := g.xBound(cx, cy, cz, thr, T, lb-1)
				if ok || got <= lb-1 || got > xt {
					t.Fatalf("set %d, center (%d,%d,%d): xBound with room %d gave %d (%v), x total %d", c, cx, cy, cz, lb-1, got, ok, xt)
				}
				dropped++
			}
			centers++
		}
	}
	t.Logf("%d centers of %d free sets: bound equal to the x total at %d, dropped below it at %d", centers, sets, tight, dropped)
}

// TestGrid3InnerBoundTerms checks the value of the bounds along y and x
// (yBound, xBound: innerBound, which carries one running value switched once
// instead of the two ends of each term) against the plain sum, plane by plane,
// of min(f(cb), f(min(cb + T, k))), f(L) = L (k - L), cb the points closer than
// thr before the gap counted directly: equal at every MM center of random free
// sets, and with a room below the sum, equal to the plain running sum at the
// first plane where it exceeds the room.
func TestGrid3InnerBoundTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 18))
	sets := 2000
	if testing.Short() {
		sets = 600
	}
	centers := 0
	for c := range sets {
		W, H, L := 1+r.IntN(7), 1+r.IntN(7), 1+r.IntN(7)
		pts := randomFree3(r, W, H, L, r.Float64()*0.95)
		if len(pts) < 3 {
			continue
		}
		k := 2 + r.IntN(len(pts)-2)
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		kk := int64(k)
		thr := 0
		for u := 0; u < len(g.centers); u += 3 {
			cx, cy, cz := int(g.centers[u]), int(g.centers[u+1]), int(g.centers[u+2])
			g.setRow(cx, cy, true)
			thr = g.walk(cx, cy, cz, thr)
			T := kk - int64(g.sumIn)
			for _, axis := range []struct {
				name  string
				coord []int
				c, n  int
				bound func(room int64) (int64, bool)
			}{
				{"y", py, cy, g.H, func(room int64) (int64, bool) { return g.yBound(cx, cy, cz, thr, T, room) }},
				{"x", px, cx, g.W, func(room int64) (int64, bool) { return g.xBound(cx, cy, cz, thr, T, room) }},
			} {
				// The plain terms, plane by plane, and the running sums.
				var sums []int64
				var cb, lb int64
				for p := max(axis.c-thr, 0); p <= min(axis.c+thr, axis.n-1); p++ {
					h := min(cb+T, kk)
					lb += min(cb*(kk-cb), h*(kk-h))
					sums = append(sums, lb)
					for i := range pts {
						if axis.coord[i] == p && abs(px[i]-cx)+abs(py[i]-cy)+abs(pz[i]-cz) < thr {
							cb++
						}
					}
				}
				got, ok := axis.bound(math.MaxInt64)
				if !ok || got != lb {
					t.Fatalf("set %d (k = %d), center (%d,%d,%d), thr %d: %sBound %d (%v), plain sum %d", c, k, cx, cy, cz, thr, axis.name, got, ok, lb)
				}
				if lb == 0 {
					continue
				}
				room := lb / 2
				want := int64(-1)
				for _, s := range sums {
					if s > room {
						want = s
						break
					}
				}
				if got, ok := axis.bound(room); ok || got != want {
					t.Fatalf("set %d (k = %d), center (%d,%d,%d), thr %d: %sBound with room %d gave %d (%v), the plain running sum first above it %d", c, k, cx, cy, cz, thr, axis.name, room, got, ok, want)
				}
			}
			centers++
		}
	}
	t.Logf("%d centers of %d free sets", centers, sets)
}

// TestGrid3ZBoundTerms checks the bound along z (zBound, with the row's tables
// and without) against its plain sum plane by plane: per gap, the points L
// before it lie between l = max(cb, k - U + co) and h = min(cb + T, co), cb and
// co the points closer than thr and within thr before the gap counted directly,
// U those within thr, and the term is min(f(l), f(h)), f(L) = L (k - L); equal at
// every MM center of random free sets, with the points closer than thr it keeps
// per plane (innerZ) the planes' counts.
func TestGrid3ZBoundTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 19))
	sets := 2000
	if testing.Short() {
		sets = 600
	}
	centers := 0
	for c := range sets {
		W, H, L := 1+r.IntN(7), 1+r.IntN(7), 1+r.IntN(9)
		pts := randomFree3(r, W, H, L, r.Float64()*0.95)
		if len(pts) < 3 {
			continue
		}
		k := 2 + r.IntN(len(pts)-2)
		g, px, py, pz, _ := grid3ScanT(t, pts, k, c)
		kk := int64(k)
		dist := make([]int, len(pts))
		for _, tables := range []bool{true, false} {
			thr := 0
			for u := 0; u < len(g.centers); u += 3 {
				cx, cy, cz := int(g.centers[u]), int(g.centers[u+1]), int(g.centers[u+2])
				g.setRow(cx, cy, tables)
				thr = g.walk(cx, cy, cz, thr)
				for i := range pts {
					dist[i] = abs(px[i]-cx) + abs(py[i]-cy) + abs(pz[i]-cz)
				}
				T, U := kk-int64(g.sumIn), int64(g.sumOut)
				var cb, co, lb int64
				for z := max(cz-thr, 0); z <= min(cz+thr, g.L-1); z++ {
					l, h := max(cb, kk-U+co), min(cb+T, co)
					lb += min(l*(kk-l), h*(kk-h))
					var in, within int64
					for i := range pts {
						if pz[i] == z && dist[i] < thr {
							in++
						}
						if pz[i] == z && dist[i] <= thr {
							within++
						}
					}
					cb += in
					co += within
				}
				if got := g.zBound(cz, thr); got != lb {
					t.Fatalf("set %d (k = %d, tables %v), center (%d,%d,%d), thr %d: zBound %d, plain sum %d", c, k, tables, cx, cy, cz, thr, got, lb)
				}
				for z := max(cz-thr, 0); z <= min(cz+thr, g.L-1); z++ {
					want := 0
					for i := range pts {
						if pz[i] == z && dist[i] < thr {
							want++
						}
					}
					if int(g.innerZ[z]) != want {
						t.Fatalf("set %d (tables %v), center (%d,%d,%d), thr %d: plane %d holds %d points closer than thr, zBound kept %d", c, tables, cx, cy, cz, thr, z, want, g.innerZ[z])
					}
				}
				centers++
			}
		}
	}
	t.Logf("%d centers of %d free sets, with the row's tables and without", centers, sets)
}
