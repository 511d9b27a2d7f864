package alloc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// Compat selects whose conventions an allocator follows where published simulators
// differ from procalloc's defaults (docs/sim.md).
type Compat string

const (
	CompatDefault Compat = ""       // procalloc's documented conventions
	CompatPReMAS  Compat = "premas" // exactly the PReMAS simulator (the published tables)
	CompatSST     Compat = "sst"    // SST's scheduler element
)

// String returns the mode's name as summaries report it: "default" for
// CompatDefault. sim.ParseCompat reads it back.
func (c Compat) String() string {
	if c == CompatDefault {
		return "default"
	}
	return string(c)
}

// FileError is an error reading a file an allocator spec names (a ranking file, a
// topology.conf), returned by the readers of Options: a failure of that file's
// content or of reading it, not a mistake in the spec, which the callers tell
// apart (sim exits 1 for it, 2 for a bad spec). Its message is Err's, which names
// the file.
type FileError struct {
	Path string // the file as the spec names it
	Err  error  // the read or parse error, which names Path itself
}

// Error returns Err's message.
func (e *FileError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *FileError) Unwrap() error { return e.Err }

// Options are settings shared by all allocators.
type Options struct {
	// Compat: under CompatPReMAS, mm, genalg and mminc break ties among equal
	// candidates by PReMAS's working-array rules (ptas.TiesPReMAS) instead of by
	// node index. No other allocator reads it (the other center-based ones
	// follow PReMAS's free-list order in every mode). The zero value is
	// CompatDefault.
	Compat Compat
	// Ranking returns the ordering named by a CURVE argument that is not a built-in
	// curve (curves.Names), such as a ranking file the caller has read: the library
	// never guesses from the file system. nil: built-in curves only.
	Ranking func(name string, m topo.Machine) (curves.Order, error)
	// NoMemo makes the allocators that remember their decisions (MM, Gen-Alg,
	// MM+Inc, MC1x1 and its variants: the same request on the same free nodes gets
	// the same answer) search every decision anew. The answers are the same; for
	// timing the search itself.
	NoMemo bool
	// SlurmTree reads the topology file named in a slurm:tree spec: a
	// topology.conf, or a topology.yaml's topology name ("": its
	// cluster_default one; sim.Files.SlurmTree); nil: slurm:tree is refused.
	SlurmTree func(path, name string) (*slurm.Tree, error)
	// SlurmBlocks reads the topology file named in a slurm:block spec, as
	// SlurmTree; nil: slurm:block is refused.
	SlurmBlocks func(path, name string) (*slurm.Blocks, error)
	// SlurmRings reads the topology file named in a slurm:ring spec, as
	// SlurmTree; nil: slurm:ring is refused.
	SlurmRings func(path, name string) (*slurm.Rings, error)
	// Context, when set, stops the building of a curve allocator's ordering
	// (curves.GenerateContext: bf:rcm's on a 131,072-host fat tree takes a tenth
	// of a second or more): Parse then returns its cause, after the spec. nil:
	// context.Background().
	Context context.Context
	// Names are the machine's host names in node-index order, for the allocators
	// that meet names: Slurm's emulators (the node names of its topology.conf, its
	// name order) and as-run (recorded node lists). nil: a graph's own node names,
	// node indices elsewhere (curves.NodeNames). They must be distinct, one per node.
	Names []string
}

// nodeNames returns opt.Names checked against m, else curves.NodeNames(m).
func (opt Options) nodeNames(m topo.Machine) ([]string, error) {
	if opt.Names == nil {
		return curves.NodeNames(m), nil
	}
	if len(opt.Names) != m.N() {
		return nil, fmt.Errorf("%d host names for the %d nodes of %s", len(opt.Names), m.N(), m.Spec())
	}
	seen := make(map[string]int, len(opt.Names))
	for i, name := range opt.Names {
		if j, dup := seen[name]; dup {
			return nil, fmt.Errorf("host %q is named twice (nodes %d and %d)", textin.Clip(name), j, i)
		}
		seen[name] = i
	}
	return opt.Names, nil
}

// resolveCurve returns the ordering of m named by a CURVE argument: a built-in curve,
// or else what opt.Ranking returns for it.
func resolveCurve(name string, m topo.Machine, opt Options) (curves.Order, error) {
	if curves.Summary(name) != "" {
		if opt.Context != nil {
			return curves.GenerateContext(opt.Context, name, m)
		}
		return curves.Generate(name, m)
	}
	if opt.Ranking == nil {
		return nil, fmt.Errorf("%q is not a curve%s (valid: %s)", textin.Clip(name), textin.DidYouMean(name, curves.Names()), strings.Join(curves.Names(), ", "))
	}
	return opt.Ranking(name, m)
}

// MapSpecFiles returns the allocator spec with each file name in it replaced by
// f(name): a ranking file given as CURVE (freelist, ff, bf, sos, paging) or ORDER
// (slurm), and the topology file of slurm:tree and slurm:block. Built-in curve
// names and a spec of no such family are left as they are. A caller that reads
// relative names from another directory (a sweep file's) rewrites a spec with it
// to print the command that replays it; it splits specs as the constructors do.
func MapSpecFiles(spec string, f func(name string) string) string {
	name, arg, ok := strings.Cut(spec, ":")
	if !ok {
		return spec
	}
	curve := func(c string) string {
		if c == "" || curves.Summary(c) != "" {
			return c
		}
		return f(c)
	}
	switch name {
	case "freelist", "ff", "bf", "sos":
		c, suffix := curveArg(arg)
		return name + ":" + curve(c) + suffix
	case "paging":
		if c, s, ok := cutLast(arg, ":"); ok {
			return name + ":" + curve(c) + ":" + s
		}
	case "slurm":
		mode, file, topology, hasTopology, order, hasOrder := slurmArg(arg)
		switch {
		case mode == "consec" && hasOrder:
			return name + ":" + mode + ":" + curve(order)
		case (mode == "tree" || mode == "block" || mode == "ring") && (file != "" || hasOrder || hasTopology):
			if file != "" {
				file = f(file)
			}
			if hasTopology {
				file += ":" + topology
			}
			if hasOrder {
				file += ":" + curve(order)
			}
			return name + ":" + mode + ":" + file
		}
	}
	return spec
}

// constructor builds an allocator from the argument after the spec's first ':' (""
// when there is none).
type constructor func(arg string, m topo.Machine, opt Options) (Allocator, error)

type family struct {
	name    string
	summary string
	build   constructor
}

var families = map[string]family{}

// register adds an allocator family ("bf", "mc1x1", ...); each allocator file registers
// its own from init.
func register(name, summary string, build constructor) {
	if _, dup := families[name]; dup {
		panic("alloc: family registered twice: " + name)
	}
	families[name] = family{name, summary, build}
}

// Names returns the registered allocator family names, sorted.
func Names() []string {
	names := make([]string, 0, len(families))
	for n := range families {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// CheckFamily refuses a spec whose family (the name before the first ':') is not
// one of Names, as Parse does, without building anything: the checks of a
// replay's spec and of a sweep file use it.
func CheckFamily(spec string) error {
	name, _, _ := strings.Cut(spec, ":")
	if _, ok := families[name]; !ok {
		return fmt.Errorf("unknown allocator %q%s; valid: %s", textin.Clip(spec), textin.DidYouMean(name, Names()), strings.Join(Names(), ", "))
	}
	return nil
}

// Summary returns a one-line description of the family.
func Summary(name string) string { return families[name].summary }

// ContinuesSpec reports whether piece, one of the pieces of a comma-separated list
// of allocator or machine specs, continues the spec before it: commas also separate
// the numbers inside a spec (mc1x1:tb=3,9,3,2; fattree:4,4:4,4:16), and no spec
// starts like a number (a digit, a sign or a point). The command line's --alloc
// lists and a sweep file's machines and allocators lists follow this one rule.
func ContinuesSpec(piece string) bool {
	return piece != "" && strings.IndexByte("0123456789+-.", piece[0]) >= 0
}

// Parse builds the allocator named by spec on machine m: "NAME" or "NAME:ARG", for
// example "bf:hilbert", "ff:hilbert:ring", "paging:hilbert:1", "mc1x1",
// "mc1x1:tb=3,9,3,2", "slurm:tree:topology.conf". ARG is CURVE[:ring] for ff, bf and
// sos, consec[:CURVE] or tree:FILE[:CURVE] for slurm, CURVE for freelist,
// CURVE:s for paging, tb=SR,AF,WF,BF for the MC1x1 families, and empty otherwise;
// CURVE is a built-in curve or a name opt.Ranking resolves (a ranking file).
func Parse(spec string, m topo.Machine, opt Options) (Allocator, error) {
	if err := CheckFamily(spec); err != nil {
		return nil, err
	}
	name, arg, _ := strings.Cut(spec, ":")
	f := families[name]
	if g, isGraph := m.(*topo.Graph); isGraph {
		switch name {
		case "genalg":
			if arg != "" {
				return nil, fmt.Errorf("allocator %q: genalg takes no argument", textin.Clip(spec))
			}
			// Gen-Alg scores a center's k nearest hosts by their pairwise hop
			// distances, which a network in several parts leaves undefined.
			if err := g.CheckConnected(); err != nil {
				return nil, fmt.Errorf("allocator %q scores hosts by their hop distances and needs a connected network: %s: %w", textin.Clip(spec), m.Spec(), err)
			}
			return newGraphGenAlg(g), nil
		case "freelist", "ff", "bf", "sos", "as-run", "slurm":
		default:
			return nil, fmt.Errorf("allocator %q places jobs by node coordinates and needs a mesh or torus; %s is a network without coordinates (use genalg, or a curve allocator such as bf:rcm or bf:RANKING-FILE)", textin.Clip(spec), m.Spec())
		}
	}
	a, err := f.build(arg, m, opt)
	if err != nil {
		return nil, fmt.Errorf("allocator %q: %w", textin.Clip(spec), err)
	}
	return a, nil
}
