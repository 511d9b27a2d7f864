package topo

// CSR is an adjacency in compressed rows: the neighbours of vertex v are
// Adj[Off[v]:Off[v+1]], so Off has one entry more than there are vertices. It is the
// form the hop distances search in: the hop index's quotient graph, slurm's switch
// links (slurm.Tree.Distances) and netsim's GraphRouter keep their links this way.
type CSR struct {
	Off, Adj []int32 // row offsets (vertices+1 of them, Off[0] = 0) and the neighbours, row by row
}

// Vertices is the number of vertices, len(Off)-1.
func (c CSR) Vertices() int { return len(c.Off) - 1 }

// HopRow is the one breadth-first search of hop distances over a CSR adjacency: it
// sets dist[v] (len(dist) == c.Vertices()) to the hop distance from src, -1 where src
// cannot reach v, and returns queue, reused when large enough, holding the vertices
// reached in visiting order (src first; neighbours in the order Adj lists them). Every
// vertex may be passed through: callers whose routes may not cross some vertices
// (hosts that do not forward) build their CSR without those links. Repeated searches
// that pass dist and the returned queue back allocate nothing. The distance type is
// the caller's (int32 for the hop index and netsim's tables, int for slurm's
// switches_dist rows).
func HopRow[D int | int32](c CSR, src int32, dist []D, queue []int32) []int32 {
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue = append(queue[:0], src)
	for head := 0; head < len(queue); head++ {
		a := queue[head]
		d := dist[a] + 1
		for _, b := range c.Adj[c.Off[a]:c.Off[a+1]] {
			if dist[b] < 0 {
				dist[b] = d
				queue = append(queue, b)
			}
		}
	}
	return queue
}

// HopRows64 is up to 64 breadth-first searches over c at once, from srcs[b] as bit
// b of a word: found(v, bits, d) is called once for each vertex v and hop distance
// d with the bits of the searches that reach v first at d (d = 0 at the sources),
// in no fixed order of vertices within a d. seen, front and next hold a word per
// vertex (scratch, cleared here); seen holds, at the end, the searches that reached
// each vertex. It returns the passes it made over the links of the vertices just
// reached (one a hop, and a last that reaches nothing): a pass serves 64 searches,
// so a table of many sources costs about sources/64 x (eccentricity+1) passes
// instead of a search each.
func HopRows64(c CSR, srcs []int32, seen, front, next []uint64, found func(v int32, bits uint64, d int)) int {
	clear(seen)
	clear(front)
	clear(next)
	active := make([]int32, 0, len(srcs))
	for b, s := range srcs {
		if seen[s] == 0 {
			active = append(active, s)
		}
		seen[s] |= 1 << b
		front[s] |= 1 << b
	}
	for _, s := range active {
		found(s, seen[s], 0)
	}
	var reached []int32
	d := 1
	for ; len(active) > 0; d++ {
		reached = reached[:0]
		for _, v := range active {
			f := front[v]
			front[v] = 0
			for _, u := range c.Adj[c.Off[v]:c.Off[v+1]] {
				if f&^seen[u]&^next[u] != 0 {
					if next[u] == 0 {
						reached = append(reached, u)
					}
					next[u] |= f &^ seen[u]
				}
			}
		}
		active = active[:0]
		for _, u := range reached {
			nw := next[u]
			next[u] = 0
			seen[u] |= nw
			front[u] = nw
			active = append(active, u)
			found(u, nw, d)
		}
	}
	return d - 1
}
