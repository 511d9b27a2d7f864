package alloc

// Shells read by tiles (greedyCollectShells on 3D grids). A run takes its m nodes
// as one compact patch of shell L (and a little of L+1), but reading a shell keyed
// every free node of it (six faces of (2R+1)^2 nodes) and pushed them all into the
// heap of candidates. Here a shell is cut into tiles, boxes of at most
// greedyTileSide coordinates along each of a face's two free axes, and a tile
// enters a second heap with a lower bound of its nodes' keys instead of its nodes:
// the least total along each axis over the tile's coordinates (the key's sum is a
// sum over axes of per-coordinate totals), and the least L1 distance to the
// center over them, with position 0. A tile's nodes are keyed and pushed only when
// its bound comes up to the heap of candidates' current top. So the node taken is
// the same: a candidate is taken only when every tile not read has a bound above
// its key, and every candidate of the tile has a key at least the bound.
//
// The bound stays a bound as nodes are taken, less the nodes taken, as the
// candidates' keys do: a node taken lies outside every tile not read (tiles
// partition the shells, and only nodes of tiles read are taken), so it adds at
// least 1 to each axis's least over the tile's box in sum (its L1 distance to the
// box). A stale bound at the top is computed again, as a stale key is.

// greedyTileSide is the largest side of a tile along a face's free axes.
const greedyTileSide = 8

// greedyTileFrom is the least radius of a shell read by tiles: a smaller shell's
// faces (at most 15 wide) make at most two parts per axis, and reading it whole
// was 3-6 % faster on issue 32's workload on torus:16x16x16 (three alternated
// pairs; the same on 25x25x25 and 32x32x32; docs/center-speed.md).
const greedyTileFrom = 8

// greedyTile is a box of one shell's nodes: along each axis j the coordinates
// start[j], start[j]+1, ..., n[j] of them (mod the side on a ring axis).
type greedyTile struct {
	start, n [3]int32
	l1       int32 // the least L1 distance to the center over the box
}

// greedyTileEntry is a tile in the heap of tiles by the bound last computed.
type greedyTileEntry struct {
	key  int64
	tile int32
}

type greedyTiles struct {
	tiles []greedyTile
	heap  []greedyTileEntry // a binary heap by key
}

func (gt *greedyTiles) reset() {
	gt.tiles, gt.heap = gt.tiles[:0], gt.heap[:0]
}

// push adds tile t with bound key.
func (gt *greedyTiles) push(key int64, t int32) {
	hp := append(gt.heap, greedyTileEntry{key, t})
	for h := len(hp) - 1; h > 0; {
		p := (h - 1) / 2
		if hp[p].key <= key {
			break
		}
		hp[h], hp[p] = hp[p], hp[h]
		h = p
	}
	gt.heap = hp
}

// down restores the heap below its top, whose key grew.
func (gt *greedyTiles) down() {
	hp := gt.heap
	n := len(hp)
	h := 0
	e := hp[0]
	for {
		c := 2*h + 1
		if c >= n {
			break
		}
		if c+1 < n && hp[c+1].key < hp[c].key {
			c++
		}
		if hp[c].key >= e.key {
			break
		}
		hp[h] = hp[c]
		h = c
	}
	hp[h] = e
}

// pop removes the top.
func (gt *greedyTiles) pop() {
	last := len(gt.heap) - 1
	gt.heap[0] = gt.heap[last]
	gt.heap = gt.heap[:last]
	if last > 0 {
		gt.down()
	}
}

// greedyTileMin is the least of key[o+u] over the n coordinates u = start, start+1,
// ... (mod side); generic over the axis totals (int) and the L1 distances (int32),
// each instantiation its own code (different shapes), so neither pays for the other.
func greedyTileMin[T int | int32](key []T, o int, start, n int32, side int) T {
	u := int(start)
	m := key[o+u]
	for range n - 1 {
		if u++; u == side {
			u = 0
		}
		m = min(m, key[o+u])
	}
	return m
}

// greedyTileBound is tile t's bound on its nodes' keys with n nodes taken.
func (a *mc1x1) greedyTileBound(t *greedyTile, axisKey []int, off []int, n int) int64 {
	x := a.x
	kb := a.keyBits
	sum := greedyTileMin(axisKey, off[0], t.start[0], t.n[0], x.dims[0]) +
		greedyTileMin(axisKey, off[1], t.start[1], t.n[1], x.dims[1]) +
		greedyTileMin(axisKey, off[2], t.start[2], t.n[2], x.dims[2])
	return int64(sum-n)<<kb.sumShift | int64(t.l1)<<kb.posBits
}

// greedyShellTiles3 cuts the shell greedyShellKeys3 reads (the free nodes at
// L-infinity distance r from cc, split by the first axis at distance r) into
// tiles and puts each, with its bound, in the heap of tiles; n nodes are taken.
func (a *mc1x1) greedyShellTiles3(cc []int32, r int, axisKey []int, cdist []int32, off []int, n int) {
	x := a.x
	kb := a.keyBits
	gt := &a.tiles
	side := greedyTileSide
	if a.tileSide > 0 {
		side = a.tileSide
	}
	// along each axis the coordinates within r-1, within r, exactly r, as runs
	// (start, count); exactly r: up to two runs of one
	type run struct{ start, n int32 }
	within := func(j, rad int) run {
		side, c := x.dims[j], int(cc[j])
		if rad < 0 {
			return run{0, 0}
		}
		if !x.wrap[j] {
			lo, hi := max(0, c-rad), min(side-1, c+rad)
			return run{int32(lo), int32(hi - lo + 1)}
		}
		if 2*rad+1 >= side {
			return run{0, int32(side)}
		}
		return run{int32((c - rad + side) % side), int32(2*rad + 1)}
	}
	var lm1, l0 [3]run
	var at [3][2]int32
	var nat [3]int
	for j := range 3 {
		lm1[j], l0[j] = within(j, r-1), within(j, r)
		ats := axisAt(a.tileAt[:0], int(cc[j]), r, x.dims[j], x.wrap[j])
		a.tileAt = ats
		nat[j] = len(ats)
		copy(at[j][:], ats)
	}
	for j := range 3 {
		for _, u := range at[j][:nat[j]] {
			var ax [3]run
			for i := range 3 {
				switch {
				case i < j:
					ax[i] = lm1[i]
				case i == j:
					ax[i] = run{u, 1}
				default:
					ax[i] = l0[i]
				}
			}
			if ax[0].n == 0 || ax[1].n == 0 || ax[2].n == 0 {
				continue
			}
			// the two free axes cut into parts of at most greedyTileSide
			var fa [2]int
			k := 0
			for i := range 3 {
				if i != j {
					fa[k] = i
					k++
				}
			}
			// the parts' least totals and L1 distances along each free axis, once
			// per face (a tile's least over its box is a sum over axes)
			var np [2]int
			mins := a.tileMins[:0]
			for h, i := range fa {
				np[h] = (int(ax[i].n) + side - 1) / side
				for q := range np[h] {
					s0, e0 := part(int(ax[i].n), np[h], q)
					st, cnt := wrapAdd(ax[i].start, s0, x.dims[i]), int32(e0-s0)
					mins = append(mins, int(st), int(cnt),
						greedyTileMin(axisKey, off[i], st, cnt, x.dims[i]),
						int(greedyTileMin(cdist, off[i], st, cnt, x.dims[i])))
				}
			}
			a.tileMins = mins
			kj, dj := axisKey[off[j]+int(u)]-n, int(cdist[off[j]+int(u)])
			for q0 := range np[0] {
				m0 := mins[4*q0 : 4*q0+4]
				for q1 := range np[1] {
					m1 := mins[4*(np[0]+q1) : 4*(np[0]+q1)+4]
					var t greedyTile
					t.start[j], t.n[j] = u, 1
					t.start[fa[0]], t.n[fa[0]] = int32(m0[0]), int32(m0[1])
					t.start[fa[1]], t.n[fa[1]] = int32(m1[0]), int32(m1[1])
					t.l1 = int32(dj + m0[3] + m1[3])
					gt.tiles = append(gt.tiles, t)
					gt.push(int64(kj+m0[2]+m1[2])<<kb.sumShift|int64(t.l1)<<kb.posBits, int32(len(gt.tiles)-1))
				}
			}
		}
	}
}

// part is the q-th of p nearly equal parts of 0..n-1: [s, e).
func part(n, p, q int) (int, int) {
	return q * n / p, (q + 1) * n / p
}

// wrapAdd is start + s mod side.
func wrapAdd(start int32, s, side int) int32 {
	u := int(start) + s
	if u >= side {
		u -= side
	}
	return int32(u)
}

// greedyTileNext takes the top of the tiles' heap, whose bound is at most the
// top candidate's current key (n nodes taken): if the bound grew since it was
// kept, the tile goes back with its bound again, as a stale key; otherwise its
// free nodes are keyed and appended to xy and keys (greedyTileKeys), for the
// caller to push.
func (a *mc1x1) greedyTileNext(axisKey []int, cdist []int32, off []int, n int, xy []int32, keys []int64) ([]int32, []int64) {
	gt := &a.tiles
	e := gt.heap[0]
	t := &gt.tiles[e.tile]
	if k := a.greedyTileBound(t, axisKey, off, n); k != e.key {
		gt.heap[0].key = k
		gt.down()
		return xy, keys
	}
	gt.pop()
	return a.greedyTileKeys(t, axisKey, cdist, off, n, xy, keys)
}

// greedyTileKeys appends tile t's free nodes to the candidates' coordinates xy and
// keys, as greedyShellKeys3 keys them (n nodes taken).
func (a *mc1x1) greedyTileKeys(t *greedyTile, axisKey []int, cdist []int32, off []int, n int, xy []int32, keys []int64) ([]int32, []int64) {
	x := a.x
	kb := a.keyBits
	st, pos := a.st, a.pos
	X, Y, Z := x.dims[0], x.dims[1], x.dims[2]
	XY := X * Y
	o1, o2 := off[1], off[2]
	sumShift, posBits := kb.sumShift, kb.posBits
	u := int(t.start[0])
	for range t.n[0] {
		k0, d0 := axisKey[u]-n, cdist[u]
		w := int(t.start[1])
		for range t.n[1] {
			k1, d1 := k0+axisKey[o1+w], d0+cdist[o1+w]
			uw := u + w*X
			z := int(t.start[2])
			for range t.n[2] {
				if v := uw + z*XY; st.IsFree(v) {
					xy = append(xy, int32(u), int32(w), int32(z))
					keys = append(keys, int64(k1+axisKey[o2+z])<<sumShift|int64(d1+cdist[o2+z])<<posBits|int64(pos[v]))
				}
				if z++; z == Z {
					z = 0
				}
			}
			if w++; w == Y {
				w = 0
			}
		}
		if u++; u == X {
			u = 0
		}
	}
	return xy, keys
}
