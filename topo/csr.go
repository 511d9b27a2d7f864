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
