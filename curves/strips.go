package curves

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/procalloc/procalloc/topo"
)

// stripWidths backs StripWidths; only this package changes it.
var stripWidths = []int{2, 3, 4}

// StripWidths returns the strip widths registered as curves "strips2", "strips3", ...
// (Strips takes any width).
// Each call returns a new slice: changing it changes nothing in the package.
func StripWidths() []int { return slices.Clone(stripWidths) }

func init() {
	for _, s := range stripWidths {
		mustRegister(Curve{
			Name: fmt.Sprintf("strips%d", s),
			Summary: fmt.Sprintf("strips %d nodes wide along x, each a zigzag (x back and forth inside the strip, one row at a time) "+
				"walked up, the next strip down; any mesh or torus", s),
			Applies: func(m topo.Machine) error { _, err := gridOf(m); return err },
			Generate: func(m topo.Machine) (Order, error) {
				g, _ := gridOf(m)
				return Strips(g, s)
			},
		})
	}
}

// Strips returns the strip ordering of a grid of any dimension: the x axis (axis 0) is
// cut into strips of width s (the last one narrower when s does not divide X); the
// strips are taken in order of x, and each strip is walked through all its rows (the
// coordinates y, z, ... in the continuous order of SnakeReflected on the grid without
// x), forwards in even strips and backwards in odd ones, the s nodes of a row visited
// back and forth (x up in one row, down in the next). Inside a strip every step is
// one hop; the step from one strip to the next is one hop when the strip has an odd
// number of rows and at most s hops otherwise.
//
// Why: for weights that reach a few ranks (K = 2..4), a comb of narrow strips keeps
// every window of K+1 consecutive ranks inside a small square, which the long rows of
// the snakes do not and the Hilbert-type curves only do on average: on mesh:32x32
// with exp:2:3 the 2-wide strips score F = 2574 against 2640.25 for the best of the
// other curves (hindex) (project issue 20, where the family was found by hand). The
// strip width trades the length of the windows' squares against the strip changes.
func Strips(g *topo.Grid, s int) (Order, error) {
	if s < 1 {
		return nil, fmt.Errorf("strip width %d must be positive", s)
	}
	dims := g.Dims()
	n := g.N()
	x := dims[0]
	rows := []int{0} // base node index of every row (x = 0), in continuous order
	if len(dims) > 1 {
		sub := topo.Mesh(dims[1:]...)
		rows = rows[:0]
		c := make([]int, len(dims)-1)
		for _, v := range SnakeReflected(sub) {
			c = sub.Coord(v, c)
			b, stride := 0, x
			for j, cv := range c {
				b += cv * stride
				stride *= dims[j+1]
			}
			rows = append(rows, b)
		}
	}
	o := make(Order, 0, n)
	for strip, lo := 0, 0; lo < x; strip, lo = strip+1, lo+s {
		hi := min(lo+s, x) - 1
		for q := range rows {
			r := q
			if strip%2 == 1 {
				r = len(rows) - 1 - q
			}
			b := rows[r]
			if q%2 == 0 {
				for i := lo; i <= hi; i++ {
					o = append(o, b+i)
				}
			} else {
				for i := hi; i >= lo; i-- {
					o = append(o, b+i)
				}
			}
		}
	}
	return o, nil
}

// spectralSeconds estimates how long Spectral takes on m (its dense eigendecomposition
// is O(n^3) in the vertices): 17 s at 1,024 vertices on the project's 2-core machine,
// scaled by the cube of the size. Used to skip it when a deadline is nearer.
func spectralSeconds(m topo.Machine) float64 {
	r := float64(topo.Vertices(m)) / 1024
	return 17 * r * r * r
}

// spectralSkipped is GenerateContext's answer when the spectral ordering is not
// started because less than twice its estimate is left before ctx's deadline. It
// is context.DeadlineExceeded to errors.Is, but says in the user's words what was
// skipped and why (order's notes print it), not "context deadline exceeded".
type spectralSkipped struct {
	spec           string
	estimate, left float64 // seconds: spectralSeconds, and the time left at the check
}

func (e spectralSkipped) Error() string {
	return fmt.Sprintf("curve spectral on %s: skipped, expected to take %.1f s on an idle machine and only %.1f s left (it is started with twice its estimate left)",
		e.spec, e.estimate, e.left)
}

// Is makes spectralSkipped context.DeadlineExceeded to errors.Is.
func (e spectralSkipped) Is(target error) bool { return target == context.DeadlineExceeded }

// GenerateContext is Generate, stopped by ctx: it returns context.Cause(ctx) as soon as ctx
// ends, and refuses up front (with context.DeadlineExceeded) a curve that is not
// expected to finish well before ctx's deadline (the spectral ordering when less
// than twice its estimate is left: 17 s at 1,024 vertices on an idle 2-core
// machine, scaled by the cube of the size). On machines of 65,536 nodes or more
// (asyncCurveNodes), a curve with its own GenerateContext (the breadth-first ones)
// stops between its searches; any other, and spectral always, is generated in a
// goroutine that is abandoned when ctx ends: it finishes in the background and its
// result is dropped.
func GenerateContext(ctx context.Context, name string, m topo.Machine) (Order, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	// Small machines are ordered in milliseconds; large ones (the breadth-first
	// curves' repeated searches took 2.4 s on mesh:2000x2000 under load, the
	// truncated curves more) in a goroutine the caller leaves when ctx ends.
	if name != "spectral" && m.N() < asyncCurveNodes {
		return Generate(name, m)
	}
	if err := Why(name, m); err != nil {
		return nil, err
	}
	if gc := registry[name].GenerateContext; gc != nil {
		o, err := gc(ctx, m)
		if err != nil {
			return nil, fmt.Errorf("curve %s on %s: %w", name, m.Spec(), err)
		}
		if err := o.Validate(m.N()); err != nil {
			return nil, fmt.Errorf("curve %q on %s: internal error: %w", name, m.Spec(), err)
		}
		return o, nil
	}
	if name == "spectral" {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl).Seconds() < 2*spectralSeconds(m) {
			return nil, spectralSkipped{spec: m.Spec(), estimate: spectralSeconds(m), left: time.Until(dl).Seconds()}
		}
	}
	type result struct {
		o   Order
		err error
	}
	done := make(chan result, 1)
	go func() {
		o, err := Generate(name, m)
		done <- result{o, err}
	}()
	select {
	case r := <-done:
		return r.o, r.err
	case <-ctx.Done():
		// The goroutine finishes on its own and its result is dropped.
		return nil, fmt.Errorf("curve %s on %s: %w", name, m.Spec(), context.Cause(ctx))
	}
}

// asyncCurveNodes is the machine size from which GenerateContext leaves a curve's
// generation when ctx ends rather than waiting for it.
const asyncCurveNodes = 1 << 16
