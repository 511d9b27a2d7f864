package curves

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// Curve is a named ordering generator. The built-in curves register themselves in this
// package; a package that computes orderings another way (for example optimal orderings
// from an integer program) can add its own with Register, or hand its result over as a
// ranking file (see Resolve), since everything downstream needs only an Order.
type Curve struct {
	Name    string // as --curve and allocator specs name it, e.g. "hilbert"
	Summary string // one line, for listings
	// Applies returns nil when the curve can order m, else an error saying why not.
	Applies func(m topo.Machine) error
	// Generate returns the ordering of m; it is only called when Applies(m) is nil.
	Generate func(m topo.Machine) (Order, error)
	// GenerateContext, when set, is Generate stopped by ctx (returning its error);
	// GenerateContext (the function) calls it instead of leaving Generate running
	// in a goroutine when ctx ends.
	GenerateContext func(ctx context.Context, m topo.Machine) (Order, error)
}

var registry = map[string]*Curve{}

// Register adds a curve to the registry. Names must be unique, non-empty and free of
// path separators and commas (they are used in comma-separated lists on the command
// line and must not be mistaken for ranking files).
func Register(c Curve) error {
	switch {
	case c.Name == "" || strings.ContainsAny(c.Name, ",/\\ \t"):
		return fmt.Errorf("curves: invalid curve name %q", c.Name)
	case c.Applies == nil || c.Generate == nil || c.Summary == "":
		return fmt.Errorf("curves: curve %q needs a Summary, Applies and Generate", c.Name)
	}
	if _, dup := registry[c.Name]; dup {
		return fmt.Errorf("curves: curve %q registered twice", c.Name)
	}
	registry[c.Name] = &c
	return nil
}

func mustRegister(c Curve) {
	if err := Register(c); err != nil {
		panic(err)
	}
}

// Names returns the names of all registered curves, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Applicable returns the names of the curves that can order m, sorted.
func Applicable(m topo.Machine) []string {
	var names []string
	for _, n := range Names() {
		if registry[n].Applies(m) == nil {
			names = append(names, n)
		}
	}
	return names
}

// Summary returns the one-line description of a curve ("" for an unknown name).
func Summary(name string) string {
	if c, ok := registry[name]; ok {
		return c.Summary
	}
	return ""
}

// Why returns nil when the named curve applies to m, else the reason it does not (an
// unknown name is an error listing the valid names).
func Why(name string, m topo.Machine) error {
	c, ok := registry[name]
	if !ok {
		return fmt.Errorf("unknown curve %q%s; valid curves: %s", name, textin.DidYouMean(name, Names()), strings.Join(Names(), ", "))
	}
	if err := c.Applies(m); err != nil {
		return fmt.Errorf("curve %q does not apply to %s: %w", name, m.Spec(), err)
	}
	return nil
}

// Generate returns the named curve's ordering of m. An unknown name is an error listing
// the valid names; a machine the curve does not apply to is an error saying why. The
// result is checked to be a permutation of 0..m.N()-1.
func Generate(name string, m topo.Machine) (Order, error) {
	if err := Why(name, m); err != nil {
		return nil, err
	}
	o, err := registry[name].Generate(m)
	if err != nil {
		return nil, fmt.Errorf("curve %q on %s: %w", name, m.Spec(), err)
	}
	if err := o.Validate(m.N()); err != nil {
		return nil, fmt.Errorf("curve %q on %s: internal error: %w", name, m.Spec(), err)
	}
	return o, nil
}

// NodeNames returns the node names of m: a graph's names, nil (node indices) otherwise.
func NodeNames(m topo.Machine) []string {
	g, ok := m.(*topo.Graph)
	if !ok {
		return nil
	}
	names := make([]string, g.N())
	for i := range names {
		names[i] = g.Name(i)
	}
	return names
}

// gridOf returns m as a grid or an error naming the requirement.
func gridOf(m topo.Machine) (*topo.Grid, error) {
	g, ok := m.(*topo.Grid)
	if !ok {
		return nil, fmt.Errorf("needs a mesh or torus, not %s", m.Spec())
	}
	return g, nil
}

// UnknownCurveError is a name that gives no ordering of a machine: neither a
// built-in curve (Names) that applies to it (Why) nor an existing ranking file. It
// is a mistake in the name, not a failure to read a file.
type UnknownCurveError struct {
	Name   string // the name as given
	Reason string // the whole message: why the curve does not apply, or the curves there are
}

// Error returns Reason.
func (e *UnknownCurveError) Error() string { return e.Reason }

// Resolve returns the ordering that name stands for on m, wherever a curve or a
// ranking file may be named (--curve, --span-curve, an allocator's CURVE): a
// built-in curve that applies to m, generated within ctx (GenerateContext), or else
// the ranking file at path name (RankingFileFor).
func Resolve(ctx context.Context, name string, m topo.Machine, hosts []string) (Order, error) {
	if Summary(name) != "" {
		if err := Why(name, m); err != nil {
			return nil, &UnknownCurveError{Name: name, Reason: err.Error()}
		}
		return GenerateContext(ctx, name, m)
	}
	return RankingFileFor(ctx, name, m, hosts)
}

// RankingFileFor reads the ranking file that a name which is not a built-in curve
// stands for (alloc.Options.Ranking), host names matched against hosts (nil:
// NodeNames(m)); a file that does not exist is an *UnknownCurveError. It looks at
// ctx at each read of the file and of its content while it is parsed (64 KiB at a
// time): a cancelled ctx returns an error wrapping its cause (errors.Is).
func RankingFileFor(ctx context.Context, path string, m topo.Machine, hosts []string) (Order, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &UnknownCurveError{Name: path, Reason: fmt.Sprintf("unknown curve %q (and no such ranking file)%s; valid curves: %s", path, textin.DidYouMean(path, Names()), strings.Join(Names(), ", "))}
		}
		return nil, err
	}
	if hosts == nil {
		hosts = NodeNames(m)
	}
	return readRankingFile(ctx, path, m.N(), m.Spec(), hosts)
}
