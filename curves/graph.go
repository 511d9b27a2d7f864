package curves

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/topo"
	"gonum.org/v1/gonum/mat"
)

// MaxSpectralNodes is the largest machine Spectral accepts: it builds the dense
// Laplacian (n^2 floats) and takes its full eigendecomposition, O(n^3) time (measured
// on 2 cores: 0.25 s at 400 nodes, 1.1 s at 576, 17 s at 1024).
const MaxSpectralNodes = 1024

func init() {
	always := func(topo.Machine) error { return nil }
	mustRegister(Curve{
		Name:     "bfs",
		Summary:  "breadth-first order from a pseudo-peripheral node, neighbours by index; any machine",
		Applies:  always,
		Generate: func(m topo.Machine) (Order, error) { return BFSOrder(m), nil },
		GenerateContext: func(ctx context.Context, m topo.Machine) (Order, error) {
			return graphWalkContext(ctx, m, false)
		},
	})
	mustRegister(Curve{
		Name:     "cuthill-mckee",
		Summary:  "Cuthill-McKee: BFS from a pseudo-peripheral node, low-degree neighbours first (rcm reversed); any machine",
		Applies:  always,
		Generate: func(m topo.Machine) (Order, error) { return CuthillMcKee(m), nil },
		GenerateContext: func(ctx context.Context, m topo.Machine) (Order, error) {
			return graphWalkContext(ctx, m, true)
		},
	})
	mustRegister(Curve{
		Name:     "rcm",
		Summary:  "reverse Cuthill-McKee (bandwidth-reducing BFS, low-degree neighbours first, reversed); any machine",
		Applies:  always,
		Generate: func(m topo.Machine) (Order, error) { return ReverseCuthillMcKee(m), nil },
		GenerateContext: func(ctx context.Context, m topo.Machine) (Order, error) {
			o, err := graphWalkContext(ctx, m, true)
			slices.Reverse(o)
			return o, err
		},
	})
	mustRegister(Curve{
		Name:    "spectral",
		Summary: fmt.Sprintf("sorted Fiedler vector of the graph Laplacian; connected machines up to %d vertices (O(n^3))", MaxSpectralNodes),
		Applies: func(m topo.Machine) error {
			if nv := topo.Vertices(m); nv > MaxSpectralNodes {
				return fmt.Errorf("spectral ordering takes a dense O(n^3) eigendecomposition; %d vertices is above the limit of %d", nv, MaxSpectralNodes)
			}
			return nil
		},
		Generate: Spectral,
	})
}

// pseudoPeripheral returns a node of the component of start that is far from the rest
// (George-Liu style): repeatedly jump to the farthest node of a BFS (smallest degree,
// then smallest index, among the farthest) while the eccentricity grows.
func pseudoPeripheral(ctx context.Context, m topo.Machine, start int, level []int, queue []int, nb []int) int {
	cur := start
	best := -1
	for iter := 0; iter < 16 && ctx.Err() == nil; iter++ {
		far, ecc := bfsFarthest(m, cur, level, queue, nb)
		if ecc <= best {
			break
		}
		best = ecc
		cur = far
	}
	return cur
}

func degree(m topo.Machine, a int, nb []int) int { return len(m.Neighbors(a, nb[:0])) }

// bfsFarthest returns the farthest node from src (smallest degree, then index) and its
// distance; level is scratch (reset on return). On a machine with switches only hosts
// (vertices below m.N()) are candidates: the walk runs through switches but starts
// and ends at hosts.
func bfsFarthest(m topo.Machine, src int, level, queue, nb []int) (int, int) {
	n := m.N()
	queue = topo.BreadthFirst(m, src, level, queue[:0], nil)
	ecc := 0
	for _, a := range queue {
		if a < n {
			ecc = max(ecc, level[a])
		}
	}
	far, fd := -1, 0
	for _, a := range queue {
		if a < n && level[a] == ecc {
			d := degree(m, a, nb)
			if far < 0 || d < fd || (d == fd && a < far) {
				far, fd = a, d
			}
		}
	}
	for _, a := range queue {
		level[a] = -1
	}
	return far, ecc
}

// graphWalk orders every component by BFS from a pseudo-peripheral node, components by
// their smallest node; byDegree visits neighbours by (degree, index) instead of index.
// Switches (vertices N() and up) are walked through but get no rank.
func graphWalk(m topo.Machine, byDegree bool) Order {
	o, _ := graphWalkContext(context.Background(), m, byDegree)
	return o
}

// graphWalkContext is graphWalk stopped by ctx between its breadth-first searches
// (up to 16 to find a pseudo-peripheral node, each O(n)): on a 4-million-node mesh
// a search takes tens of milliseconds, the whole walk seconds under load.
func graphWalkContext(ctx context.Context, m topo.Machine, byDegree bool) (Order, error) {
	n := m.N()
	nv := topo.Vertices(m)
	level := make([]int, nv)
	walked := make([]int, nv) // the levels of the walk itself, kept across components
	for i := range level {
		level[i], walked[i] = -1, -1
	}
	o := make(Order, 0, nv)
	var nb, scratch []int
	var byDeg func(x, y int) int
	if byDegree {
		deg := make([]int, nv)
		for a := range deg {
			deg[a] = degree(m, a, nb)
		}
		byDeg = func(x, y int) int { return deg[x] - deg[y] }
	}
	for s := 0; s < n; s++ {
		if walked[s] >= 0 {
			continue
		}
		root := pseudoPeripheral(ctx, m, s, level, scratch, nb)
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		o = topo.BreadthFirst(m, root, walked, o, byDeg)
	}
	return slices.DeleteFunc(o, func(v int) bool { return v >= n }), nil // switches get no rank
}

// BFSOrder returns the breadth-first order of m: from a pseudo-peripheral node,
// neighbours in index order; disconnected components follow each other, by smallest
// node. Deterministic.
func BFSOrder(m topo.Machine) Order { return graphWalk(m, false) }

// CuthillMcKee returns the Cuthill-McKee order of m (Cuthill and McKee 1969):
// breadth-first from a pseudo-peripheral node, neighbours by increasing degree (ties
// by index). Deterministic.
func CuthillMcKee(m topo.Machine) Order { return graphWalk(m, true) }

// ReverseCuthillMcKee returns the reverse Cuthill-McKee order of m (Cuthill and McKee
// 1969; George 1971): breadth-first from a pseudo-peripheral node, neighbours by
// increasing degree (ties by index), then reversed. It keeps the bandwidth of the
// ordering small, so nearby ranks are nearby nodes. Deterministic.
func ReverseCuthillMcKee(m topo.Machine) Order {
	o := graphWalk(m, true)
	slices.Reverse(o)
	return o
}

// Spectral returns the spectral ordering of a connected machine: nodes sorted by their
// entry in the Fiedler vector (the eigenvector of the second-smallest eigenvalue of the
// Laplacian D - A, from gonum's mat.EigenSym), ties by node index. The eigenvector's
// sign is fixed so that its entry of largest magnitude (the smallest index among equal
// magnitudes) is positive, and entries are rounded to 1e-9 before sorting so that
// round-off does not decide ties. When the second eigenvalue is repeated (square
// meshes, tori, symmetric fabrics) any unit vector of its eigenspace is a Fiedler
// vector, and which basis LAPACK returns depends on round-off (a build with FMA, as
// on arm64 or GOAMD64=v3, returned another on mesh:16x16); the vector used is then
// the projection of the vertex indices (0, 1, ..., nv-1) onto the eigenspace, which
// does not depend on the basis. Refuses machines above MaxSpectralNodes nodes.
func Spectral(m topo.Machine) (Order, error) {
	n := m.N()
	nv := topo.Vertices(m) // the Laplacian includes switches; only hosts are ranked
	if nv > MaxSpectralNodes {
		return nil, fmt.Errorf("spectral ordering: %d vertices is above the limit of %d (dense O(n^3) eigendecomposition)", nv, MaxSpectralNodes)
	}
	if n <= 2 {
		return RowMajor(n), nil
	}
	lap := mat.NewSymDense(nv, nil)
	var nb []int
	for a := 0; a < nv; a++ {
		nb = m.Neighbors(a, nb[:0])
		lap.SetSym(a, a, float64(len(nb)))
		for _, b := range nb {
			if b > a {
				lap.SetSym(a, b, -1)
			}
		}
	}
	if !connected(m) {
		return nil, fmt.Errorf("spectral ordering needs a connected machine")
	}
	var es mat.EigenSym
	if !es.Factorize(lap, true) {
		return nil, fmt.Errorf("spectral ordering: eigendecomposition did not converge")
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	return fiedlerOrder(n, es.Values(nil), &vecs), nil
}

// fiedlerOrder ranks the n hosts (the first n vertices) by their entry of the
// Fiedler vector of the eigendecomposition vals (ascending), vecs (Spectral's order).
func fiedlerOrder(n int, vals []float64, vecs *mat.Dense) Order {
	fiedler := fiedlerVector(vals, vecs)
	f := make([]float64, n)
	bestAbs, bestI := -1.0, 0 // the sign is fixed on the hosts' entries
	for i := range f {
		f[i] = math.Round(fiedler[i]*1e9) / 1e9
		if a := math.Abs(f[i]); a > bestAbs {
			bestAbs, bestI = a, i
		}
	}
	if f[bestI] < 0 {
		for i := range f {
			f[i] = -f[i]
		}
	}
	o := RowMajor(n)
	slices.SortStableFunc(o, func(a, b int) int {
		switch {
		case f[a] < f[b]:
			return -1
		case f[a] > f[b]:
			return 1
		}
		return a - b
	})
	return o
}

// fiedlerVector is column 1 of vecs (the eigenvectors of the ascending eigenvalues
// vals) when the second eigenvalue is simple; when it is repeated (within 1e-9 of the
// largest eigenvalue, far above round-off and far below the gap between distinct
// eigenvalues of a machine of at most MaxSpectralNodes vertices), the unit projection
// of the vertex indices onto its eigenspace: sum over its columns u of u (u . idx),
// the same whatever orthonormal basis of the eigenspace vecs holds.
func fiedlerVector(vals []float64, vecs *mat.Dense) []float64 {
	nv := len(vals)
	tol := 1e-9 * math.Max(1, vals[nv-1])
	last := 1 // the eigenspace is columns 1..last
	for last+1 < nv && vals[last+1]-vals[1] <= tol {
		last++
	}
	w := make([]float64, nv)
	if last == 1 {
		for i := range w {
			w[i] = vecs.At(i, 1)
		}
		return w
	}
	for j := 1; j <= last; j++ {
		dot := 0.0
		for i := range nv {
			dot += vecs.At(i, j) * float64(i)
		}
		for i := range nv {
			w[i] += vecs.At(i, j) * dot
		}
	}
	norm := 0.0
	for _, x := range w {
		norm += x * x
	}
	if norm = math.Sqrt(norm); norm > 0 {
		for i := range w {
			w[i] /= norm
		}
	}
	return w
}

func connected(m topo.Machine) bool {
	level := make([]int, topo.Vertices(m))
	for i := range level {
		level[i] = -1
	}
	return len(topo.BreadthFirst(m, 0, level, nil, nil)) == len(level)
}
