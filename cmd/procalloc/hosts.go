package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/sim/sweep"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// hostSource is where the host names come from: --hosts FILE or --hostlist EXPR,
// for curve and plan (sim, compare and sweep items map them onto sim.Spec, which
// reads them alike: curves.ReadHostNames, curves.ExpandHostNames). The errors of
// --hostlist (malformed, a name twice, a count that is not the machine's) are
// usage errors, exit 2, on every command (specError too): they are the flag
// value's, where those of --hosts FILE are its file's (exit 1).
type hostSource struct{ file, expr string }

// declareHostFlags declares --hosts and --hostlist on fs; use says what the names
// are for (completing the flags' help).
func declareHostFlags(fs *flag.FlagSet, use string) *hostSource {
	h := &hostSource{}
	fs.StringVar(&h.file, "hosts", "", sweep.HostsUsage(use))
	fs.StringVar(&h.expr, "hostlist", "", sweep.HostlistUsage)
	return h
}

// check refuses both flags at once.
func (h hostSource) check() error {
	if h.file != "" && h.expr != "" {
		return usagef("--hosts and --hostlist both name the hosts: give one")
	}
	return nil
}

func (h hostSource) given() bool { return h.file != "" || h.expr != "" }

func (h hostSource) flag() string {
	if h.expr != "" {
		return "--hostlist"
	}
	return "--hosts"
}

func (h hostSource) String() string {
	if h.expr != "" {
		return "--hostlist " + textin.Clip(h.expr) // a flag's value may be a megabyte
	}
	return "--hosts " + h.file
}

// quoted is the flag and its value for the message of err: the flag alone when err is
// a hostlist syntax error, which quotes the expression itself (clipped around the
// fault); it was quoted twice, the flag's copy whole.
func (h hostSource) quoted(err error) string {
	if h.expr != "" && errors.Is(err, hostlist.ErrSyntax) {
		return "--hostlist"
	}
	return h.String()
}

// names returns the host names in node-index order, distinct (a name given twice is
// an error naming it), more than n refused from their count before they are made
// (curves.ExpandHostNames, ReadHostNames); fewer are read's to refuse.
// It looks at ctx while it expands or reads them: interrupted, it returns ctx's
// cause after the flag and its value (not a usage error).
func (h hostSource) names(ctx context.Context, e *env, n int) ([]string, error) {
	var names []string
	if h.expr != "" {
		if strings.ContainsAny(h.expr, " \t\n") {
			return nil, usagef("--hostlist %q: one hostlist expression, without spaces (a file of names goes to --hosts)", textin.Clip(h.expr))
		}
		var err error
		if names, err = curves.ExpandHostNames(ctx, h.expr, n); err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", h, err)
		} else if err != nil {
			return nil, usagef("%s: %v", h.quoted(err), err)
		}
	} else {
		f, err := openInput(e, h.file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if names, err = curves.ReadHostNames(ctx, f, n); err != nil {
			return nil, fmt.Errorf("%s: %w", h, err)
		}
	}
	return names, nil
}

// read is names for a machine of n nodes: one name per node.
func (h hostSource) read(ctx context.Context, e *env, n int) ([]string, error) {
	names, err := h.names(ctx, e, n)
	if err != nil {
		return nil, err
	}
	if len(names) != n {
		err := fmt.Errorf("%s: %d host names for a machine of %d nodes", h, len(names), n)
		if h.expr != "" { // the flag's value is wrong, not a file
			return nil, usageError{err.Error()}
		}
		return nil, err
	}
	return names, nil
}

// ranksPerHost is --ranks-per-host K, for the launchers' files that curve and order
// write (-o with --format hosts or rankfile): declared once here, as --graph is by
// declareGraphFlags, so that both commands take and check it alike.
type ranksPerHost struct {
	fs *flag.FlagSet
	k  int
}

// declareRanksPerHost declares --ranks-per-host on fs.
func declareRanksPerHost(fs *flag.FlagSet) *ranksPerHost {
	r := &ranksPerHost{fs: fs}
	fs.IntVar(&r.k, "ranks-per-host", 1, "with --format hosts (hostfile) or rankfile: `K` consecutive MPI ranks on each host in curve order (each host's line K times; mpirun --map-by seq, mpiexec -f)")
	return r
}

// check refuses --ranks-per-host beside a format other than hosts and rankfile
// (formatOK false: the format did not parse) and a K below 1: usage errors.
func (r *ranksPerHost) check(f curves.Format, formatOK bool) error {
	if !isFlagGiven(r.fs, "ranks-per-host") {
		return nil
	}
	if !formatOK || f != curves.FormatHosts && f != curves.FormatRankfile {
		return usagef("--ranks-per-host goes with --format hosts (hostfile) or rankfile")
	}
	if r.k < 1 {
		return usagef("--ranks-per-host %d: want 1 or more", r.k)
	}
	return nil
}

// writer writes ranking o in format f: curves.WriteRanking, or with K > 1
// curves.WriteRanksPerHost (whose K = 1 file is WriteRanking's).
func (r *ranksPerHost) writer(f curves.Format, o curves.Order, meta curves.RankingMeta, names []string) func(io.Writer) error {
	if r.k > 1 {
		return func(w io.Writer) error { return curves.WriteRanksPerHost(w, f, o, names, r.k) }
	}
	return func(w io.Writer) error { return curves.WriteRanking(w, f, o, meta, names) }
}
