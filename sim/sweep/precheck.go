package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// usesSeed reports whether some item of the sweep depends on its seed: the seed
// (sim --seed and --comm-seed) draws the replicas of --replicate, the random
// pattern's destinations (a pattern or --pattern random), the random task order
// and the flit engine's tie-breaking. Without any of them every seed replays the
// same: a sweep over seeds [1, 2, 3] ran each replay three times, and plot --x
// seed drew flat lines, without a word.
func (s *Spec) usesSeed() bool {
	sp := Params{Engine: sim.EngineFlit}.Spec("")
	applyFlags(&sp, s.Flags) // flags it refuses are Check's to name
	return sp.Scale.Replicate > 1 || sp.TaskOrder == sim.TaskOrderRandom || sp.Pattern == "random" ||
		slices.Contains(s.Patterns, "random") || slices.Contains(s.Engines, sim.EngineFlit)
}

// checkSeeds refuses more than one seed in a sweep none of whose items uses a
// seed (usesSeed): each seed's items would be the same replays, as with a value
// listed twice.
func (s *Spec) checkSeeds() error {
	if len(s.Seeds) < 2 || s.usesSeed() {
		return nil
	}
	return fmt.Errorf("sweep file: seeds: %d seeds, but no item uses its seed, so each seed's items are the same replays: "+
		"a seed draws the replicas of --replicate N (flags), the random pattern (patterns: [random]), "+
		"--task-order random and the flit engine's ties (engines: [flit]); list one seed, or add what the seeds should vary",
		len(s.Seeds))
}

// pairFailure is an allocator that cannot be built on a machine of the sweep.
type pairFailure struct {
	alloc, machine int // indices in Allocators and Machines
	err            error
}

// pairFailures builds each allocator on each machine of the sweep, so that an
// allocator that does not apply to a machine (a curve that needs a 2^k x 2^k
// mesh, MC1x1 on a fat tree, a misspelt argument) is known before any item runs.
// checked counts the machines built. Machines the flags replace (--graph) or
// name (--hostlist, --hosts) are left to the items, as are files an allocator
// reads and refuses (a ranking, a topology.conf), and machines of more than maxCheckNodes
// nodes: building every allocator on them here would take the time of the
// items' own builds again.
func (s *Spec) pairFailures() (fails []pairFailure, checked int) {
	opt, ok := pairOptions(s.Flags, s.Dir)
	if !ok {
		return nil, 0
	}
	for i, ms := range s.Machines {
		m := pairMachine(ms)
		if m == nil {
			continue
		}
		checked++
		for j, a := range s.Allocators {
			if err := pairError(m, a, opt); err != nil {
				fails = append(fails, pairFailure{j, i, err})
			}
		}
	}
	return fails, checked
}

// pairOptions are the allocators' options under the sweep's flags, with the
// items' own readers of the files a spec names (bf:RANKING, slurm:tree:FILE)
// relative to dir; false when the flags replace or name the machine (--graph,
// --hostlist, --hosts), whose pairs are left to the items.
func pairOptions(flags []string, dir string) (alloc.Options, bool) {
	sp := Params{Engine: sim.EngineFlit}.Spec("")
	applyFlags(&sp, flags)
	if sp.GraphFile != "" || sp.Hosts != nil || sp.HostsFile != "" || sp.Hostlist != "" {
		return alloc.Options{}, false
	}
	return (&sim.Files{Dir: dir}).Options(alloc.Options{Compat: sp.Compat, NoMemo: sp.NoMemo}), true
}

// pairMachine is machine spec ms built, or nil when it is not checked here: a
// spec Check refuses (it names it) or of more than maxCheckNodes nodes.
func pairMachine(ms string) topo.Machine {
	if topo.CheckMachineSpec(ms) != nil {
		return nil // Check names it
	}
	m, err := topo.ParseMachine(ms)
	if err != nil || m.N() > maxCheckNodes {
		return nil
	}
	return m
}

// pairError is why allocator spec a cannot be built on m, or nil. A file whose
// content is refused is the items' failure (FileError), and a spec Check refuses
// its own; as-run places jobs where the trace says.
func pairError(m topo.Machine, a string, opt alloc.Options) error {
	if alloc.CheckFamily(a) != nil || alloc.IsAsRun(a) {
		return nil
	}
	_, err := alloc.Parse(a, m, opt)
	if pe, fe := (*fs.PathError)(nil), (*alloc.FileError)(nil); err == nil || errors.As(err, &pe) || errors.As(err, &fe) {
		return nil
	}
	return err
}

// NotApplicable is why the item's allocator does not apply to its machine, the
// check Spec.Warnings makes before a sweep runs, or nil (also when the check is
// left to the item: see pairFailures). Such an item fails on every run: merge
// tells its failure apart from those a rerun may mend. dir is where relative
// file names are read (Spec.Dir).
func (p Params) NotApplicable(dir string) error {
	opt, ok := pairOptions(p.Flags, dir)
	if !ok {
		return nil
	}
	m := pairMachine(p.Machine)
	if m == nil {
		return nil
	}
	return pairError(m, p.Alloc, opt)
}

// checkPairs refuses an allocator that applies to none of the sweep's machines:
// every item of it would fail, one failed line per trace, machine, load factor,
// pattern and seed (in the nineteenth round's walk, bf:hilbert on mesh:10x10 and
// mesh:16x8 made 32 of 128 items fail, and a rerun retried them all).
func (s *Spec) checkPairs() error {
	fails, checked := s.pairFailures()
	if checked == 0 || checked < validMachines(s.Machines) {
		return nil // a machine not built (too large) may take the allocator
	}
	var errs []error
	for j, a := range s.Allocators {
		var first error
		n := 0
		for _, f := range fails {
			if f.alloc == j {
				if first == nil {
					first = fmt.Errorf("on %s: %w", textin.Clip(s.Machines[f.machine]), f.err)
				}
				n++
			}
		}
		if n == checked {
			errs = append(errs, fmt.Errorf("sweep file: allocators: entry %d %q applies to none of the machines, so every item of it would fail: %w", j+1, textin.Clip(a), first))
		}
	}
	return errors.Join(errs...)
}

// validMachines counts the machine specs CheckMachineSpec accepts (the others
// are errors of their own).
func validMachines(machines []string) int {
	n := 0
	for _, m := range machines {
		if topo.CheckMachineSpec(m) == nil {
			n++
		}
	}
	return n
}

// Warnings name, machine by machine, the allocators that do not apply to it
// but apply to another machine of the sweep: the items of those pairs will fail
// (recorded as failed, retried by a rerun, and merge exits 1), the others run.
// One line per machine, for the command to print before the run: a sweep over a
// mesh and a fat tree with eleven coordinate allocators said so in eleven lines.
func (s *Spec) Warnings() []string {
	fails, checked := s.pairFailures()
	allChecked := checked == validMachines(s.Machines)
	per := len(s.Traces) * len(s.Schedulers) * len(s.Contract) * len(s.Patterns) * len(s.Seeds) * max(1, len(s.Engines))
	failsOf := func(alloc int) int {
		n := 0
		for _, f := range fails {
			if f.alloc == alloc {
				n++
			}
		}
		return n
	}
	var out []string
	for i, m := range s.Machines {
		var names []string
		var first error
		for _, f := range fails {
			if f.machine != i || allChecked && failsOf(f.alloc) == checked {
				continue // checkPairs' error
			}
			names = append(names, textin.Clip(s.Allocators[f.alloc]))
			if first == nil {
				first = f.err
			}
		}
		if len(names) == 0 {
			continue
		}
		what := fmt.Sprintf("allocators: %q does", names[0])
		if len(names) > 1 {
			what = fmt.Sprintf("%d allocators (%s) do", len(names), strings.Join(names, ", "))
		}
		out = append(out, fmt.Sprintf("sweep file: %s not apply to machines: entry %d %q, so their %d items there will fail (a sweep file without the machine or them leaves them out): %v",
			what, i+1, textin.Clip(m), per*len(names), first))
	}
	return out
}

// maxCheckNodes bounds the machines checkPairs builds allocators on: up to
// 2^16 nodes a build takes milliseconds.
const maxCheckNodes = 1 << 16
