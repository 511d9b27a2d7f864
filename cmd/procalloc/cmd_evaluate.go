package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

// curveEvaluation is the JSON of "procalloc evaluate" for one ordering.
type curveEvaluation struct {
	Curve     string  `json:"curve,omitempty"`
	Ranking   string  `json:"ranking,omitempty"`
	Machine   string  `json:"machine"`
	Weights   string  `json:"weights"`
	Ring      bool    `json:"ring"`
	N         int     `json:"n"`
	K         int     `json:"k"`
	Objective float64 `json:"objective"`
	curves.Steps
}

func init() {
	register(&command{
		name:    "evaluate",
		summary: "score orderings: objective F = sum of w(rank difference) x hop distance, and step statistics",
		usage:   "evaluate (--machine SPEC | --graph FILE) (--ranking FILE | --curve NAME[,NAME...]) [--weights SPEC] [--ring] [--json]",
		details: `Computes the ordering objective of Leung et al. 2002 §2.2 for a ranking file or one or
more built-in curves: F = sum over node pairs of w(t) x hop distance, t the pairs' rank
difference (with --ring, the distance around the ring, min(t, n-t)); pairs with t > K
contribute nothing. Also reports the steps between consecutive nodes: max_step,
mean_step and jumps (steps longer than one hop, or two through a shared switch on a
switched network; with --ring the step from the last
node back to the first counts too).

--curve takes a comma-separated list (or "all" for every curve that applies); several
orderings give a comparison table (JSON: an array). --ranking FILE reads a ranking file
(format from --ranking-format, else the extension .pairs/.ranks/.order/.json/.hosts,
else the content; one number per line needs --ranking-format ranks or order on
standard input).

Weights:
` + curveIndent(weightsHelp) + `
F is a float64: with dyadic weights (1, 0.5, ...) it is exact up to 2^52 times the
finest weight, and a warning says when it passes that (list:1152921504606846976,1).

JSON fields: curve or ranking, machine, weights, ring, n, k, objective, max_step,
mean_step, jumps.

Ctrl-C writes the orderings scored so far (with several curves) and exits with status 130.`,
		example: `procalloc evaluate --machine mesh:16x16 --curve hilbert,snake,gilbert --weights exp:2:8
procalloc evaluate --machine torus:8x8 --curve all --ring --json
procalloc curve --machine mesh:16x16 --curve hilbert | procalloc evaluate --machine mesh:16x16 --ranking - --weights list:1,0.5,0.25
procalloc curve --machine mesh:16x16 --curve hilbert --format order | procalloc evaluate --machine mesh:16x16 --ranking - --ranking-format order
procalloc evaluate --graph topo/testdata/fattree.ibnetdiscover --curve rcm,name-order --weights list:1,0.5
procalloc evaluate --graph topo/testdata/fattree.ibnetdiscover --graph-format ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --curve rcm --weights list:1 -o rcm.eval
procalloc evaluate --graph topo/testdata/topology.yaml --topology fabric --curve bfs --weights list:1`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "machine `SPEC`, e.g. mesh:16x16")
			gf := declareGraphFlags(fs)
			ranking := fs.String("ranking", "", "ranking `FILE` to score ('-' for stdin; format from --ranking-format, else the extension, else the content)")
			rankingFormat := fs.String("ranking-format", "", rankingFormatUsage())
			curveList := fs.String("curve", "", "curve `NAMES`, comma-separated, or all")
			weights := fs.String("weights", "exp:2:8", "weight `SPEC`: list:W1,W2,... or exp:B:K")
			ring := fs.Bool("ring", false, "measure rank differences around the ring (min(t, n-t))")
			asJSON := fs.Bool("json", false, "print JSON (an object for one ordering, an array for several)")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				m, err := loadMachine(ctx, e, *machine, gf)
				if err != nil {
					return err
				}
				w, err := curves.ParseWeights(*weights)
				if err != nil {
					return usagef("--weights: %v", err)
				}
				if (*ranking == "") == (*curveList == "") {
					return usagef("give exactly one of --ranking FILE and --curve NAMES")
				}
				rf, err := parseRankingFormat(*rankingFormat)
				if err != nil {
					return err
				}
				if rf != "" && *ranking == "" {
					return usagef("--ranking-format goes with --ranking FILE")
				}
				var evals []curveEvaluation
				several := false      // JSON: an array (several orderings asked for) or an object
				var interrupted error // the interrupt that stopped a list of curves after some were scored
				roundedSaid := false
				score := func(o curves.Order) (curveEvaluation, error) {
					f, err := curves.ObjectiveContext(ctx, m, o, w, *ring)
					if err != nil {
						return curveEvaluation{}, err
					}
					// Dyadic weights on hop distances make F a multiple of their unit,
					// summed exactly up to 2^52 units; past that float64 rounds it.
					if u := qap.DyadicUnit(w); u > 0 && f > math.Ldexp(u, 52) && !roundedSaid {
						roundedSaid = true
						e.warnf("F = %g with weights %s passes 2^52 times their unit %g, where float64 rounds it: its last digits are not exact (scale the weights down)", f, w, u)
					}
					steps, err := curves.StepStatsContext(ctx, m, o, *ring)
					if err != nil {
						return curveEvaluation{}, err
					}
					return curveEvaluation{Machine: m.Spec(), Weights: w.String(), Ring: *ring, N: m.N(), K: w.K(),
						Objective: f, Steps: steps}, nil
				}
				if *ranking != "" {
					o, err := readRankingInput(e, *ranking, rf, m, nil)
					if err != nil {
						return err
					}
					stop := newProgress(e, "evaluate "+*ranking, 0).ticking("scoring")
					ev, err := score(o)
					stop()
					if err != nil {
						return err
					}
					ev.Ranking = *ranking
					evals = append(evals, ev)
				} else {
					var names []string
					if *curveList == "all" {
						names = curves.Applicable(m)
					} else if names, err = nameList("--curve", *curveList, "curve"); err != nil {
						return err
					}
					several = len(names) > 1
					prog := newProgress(e, "evaluate", int64(len(names)))
					for i, name := range names {
						err := context.Cause(ctx)
						var o curves.Order
						var ev curveEvaluation
						if err == nil {
							stop := prog.tickingAt(int64(i), name)
							if o, err = curveResolve(ctx, e, name, "", m, nil); err == nil {
								if ev, err = score(o); err != nil {
									err = fmt.Errorf("%s: %w", name, err)
								}
							}
							stop()
						}
						if err != nil {
							prog.Done()
							if ctx.Err() != nil && len(evals) > 0 {
								// Interrupted: the orderings scored so far are written (exit 130).
								interrupted = err
								break
							}
							return err
						}
						ev.Curve = name
						evals = append(evals, ev)
					}
					prog.Done()
				}
				err = writeFileAtomic(e, *out, func(wr io.Writer) error {
					if *asJSON {
						if !several {
							return writeJSON(wr, evals[0])
						}
						return writeJSON(wr, evals)
					}
					return printCurveEvaluations(wr, m, evals)
				})
				if err == nil && interrupted != nil {
					return fmt.Errorf("the orderings scored so far were written; stopped: %w", interrupted)
				}
				return err
			}
		},
	})
}

func printCurveEvaluations(w io.Writer, m topo.Machine, evals []curveEvaluation) error {
	e0 := evals[0]
	ringNote := ""
	if e0.Ring {
		ringNote = ", ring"
	}
	fmt.Fprintf(w, "machine %s (%d nodes), weights %s (K = %d%s)\n", m.Spec(), e0.N, e0.Weights, e0.K, ringNote)
	t := newTable(w, "ordering", "objective", "max_step", "mean_step", "jumps")
	for _, ev := range evals {
		name := ev.Curve
		if name == "" {
			name = ev.Ranking
		}
		t.row(name, strconv.FormatFloat(ev.Objective, 'g', 10, 64), strconv.Itoa(ev.Max), fmt.Sprintf("%.4f", ev.Mean), strconv.Itoa(ev.Jumps))
	}
	return t.flush()
}

// rankingFormatUsage is the help of --ranking-format, the format of a ranking file
// read (evaluate --ranking, curve --curve FILE).
func rankingFormatUsage() string {
	return "`FORMAT` of the ranking read: " + formatList(curves.Formats()) + " (default: from the file's extension, else from its content, which cannot tell ranks from order)"
}

// parseRankingFormat reads --ranking-format ("": none given).
func parseRankingFormat(s string) (curves.Format, error) {
	if s == "" {
		return "", nil
	}
	f, err := curves.ParseFormat(s)
	if err != nil {
		return "", usagef("--ranking-format: %v", err)
	}
	return f, nil
}

// readRankingInput reads the ranking file path of machine m, or standard input for
// "-", in format f (""; from the file's extension, else from the content), host
// names matched against hosts (nil: m's own).
func readRankingInput(e *env, path string, f curves.Format, m topo.Machine, hosts []string) (curves.Order, error) {
	r, err := openInput(e, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if path != "-" && f == "" {
		f, _ = curves.ReadFormatFromPath(path) // .json: procalloc's JSON or Flux's JGF
	}
	name := inputName(path)
	if hosts == nil {
		hosts = curves.NodeNames(m)
	}
	o, err := curves.ReadRankingFrom(r, name, f, m, hosts)
	if errors.Is(err, curves.ErrRanksOrOrder) {
		hint := "give --ranking-format ranks or order"
		if path != "-" {
			hint += ", or name the file .ranks or .order"
		}
		err = fmt.Errorf("%w; %s", err, hint)
	}
	return o, err
}
