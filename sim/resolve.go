package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// Warning is something a replay's input files hold that is accepted but worth
// saying (what Slurm accepts in a topology file but logs), named by the Spec field
// that names the file ("GraphFile"; "Alloc" for a topology file of a slurm:tree or
// slurm:block allocator) and the file's path.
type Warning struct {
	Field, File, Text string // the Spec field naming the file, the file's path and the warning itself
}

// String returns "FILE: TEXT".
func (w Warning) String() string { return w.File + ": " + w.Text }

// FileError is a file a Spec field names that cannot be read, or whose content
// is wrong: a failure of the run (not a mistake in the spec, FieldError).
type FileError struct {
	Field string // the Spec field, e.g. "GraphFile"
	Path  string // the file (Hostlist: the expression; SpanCurve: "")
	Err   error  // the read or parse error
}

// Error returns "FIELD PATH: ERR" (without PATH when it is "").
func (e *FileError) Error() string {
	if e.Path == "" {
		return e.Field + ": " + e.Err.Error()
	}
	return e.Field + " " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *FileError) Unwrap() error { return e.Err }

// open opens the file path, or Stdin for "-" when the spec has one.
func (s *Spec) open(path string) (io.ReadCloser, error) {
	return textin.OpenInput(s.Path(path), s.Stdin)
}

// validateFiles adds the errors of the fields that name files (GraphFile and its
// options, HostsFile, Hostlist, SpanCurve) that can be seen without reading them.
func (s *Spec) validateFiles(add func(*FieldError)) {
	if s.GraphFile != "" && (s.MachineSpec != "" || s.Machine != nil) {
		add(fieldErr("GraphFile", "", "give either {MachineSpec} or {GraphFile}, not both"))
	}
	if s.GraphFile == "" {
		for _, f := range []struct{ field, v string }{{"GraphFormat", s.GraphFormat}, {"NodeNameMap", s.NodeNameMap}, {"Topology", s.Topology}} {
			if f.v != "" {
				add(fieldErr(f.field, "", "goes with {GraphFile}, not {MachineSpec}"))
			}
		}
	}
	if s.GraphFormat != "" && !slices.Contains(slurm.GraphFormats(), s.GraphFormat) {
		add(fieldErr("GraphFormat", strconv.Quote(s.GraphFormat), "want one of %s", strings.Join(slurm.GraphFormats(), ", ")))
	}
	if s.HostsFile != "" && s.Hostlist != "" {
		add(fieldErr("HostsFile", "", "{HostsFile} and {Hostlist} both name the hosts: give one"))
	} else if s.Hosts != nil && (s.HostsFile != "" || s.Hostlist != "") {
		add(fieldErr("Hosts", "", "given, and {HostsFile} or {Hostlist} names them again: give one"))
	}
	if strings.ContainsAny(s.Hostlist, " \t\n") {
		add(fieldErr("Hostlist", strconv.Quote(s.Hostlist), "one hostlist expression, without spaces (a file of names goes to {HostsFile})"))
	}
	if s.SpanCurve != "" && s.SpanOrder != nil {
		add(fieldErr("SpanCurve", strconv.Quote(s.SpanCurve), "names an ordering and {SpanOrder} is one: give one"))
	}
}

// Resolve builds the spec's machine and reads the files it names for its machine,
// its host names and its span ordering into the fields a replay runs with:
// MachineSpec or GraphFile (with GraphFormat, NodeNameMap and Topology) into
// Machine, HostsFile or Hostlist into Hosts, SpanCurve into SpanOrder and SpanName.
// It clears the names it read, so that a resolved spec (prepared several times,
// say at several load factors) reads them once. It returns what the files hold
// that is accepted but worth saying (a topology file's warnings). Errors in the
// fields are *FieldError values; files that cannot be read or are wrong,
// *FileError values or the file system's errors. Prepare resolves the spec.
func (s *Spec) Resolve() ([]Warning, error) {
	return s.ResolveContext(context.Background())
}

// ResolveContext is Resolve stopped by ctx while it reads a GraphFile (a
// topology.conf of 10^5 hosts takes a second or more): a cancelled ctx returns its
// cause and leaves the spec as it was.
func (s *Spec) ResolveContext(ctx context.Context) ([]Warning, error) {
	var errs []error
	s.validateFiles(func(e *FieldError) { errs = append(errs, e) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var warnings []Warning
	switch {
	case s.GraphFile != "":
		g, ws, err := s.readGraph(ctx)
		if err != nil {
			return nil, err
		}
		warnings = ws
		s.Machine, s.GraphFile, s.GraphFormat, s.NodeNameMap, s.Topology = g, "", "", "", ""
	case s.Machine == nil:
		if s.MachineSpec == "" {
			return nil, fieldErr("Machine", "", "required: a machine, or a MachineSpec such as mesh:16x16, or a GraphFile")
		}
		m, err := topo.ParseMachineContext(ctx, s.MachineSpec, math.MaxInt)
		if err != nil && ctx.Err() != nil {
			return nil, context.Cause(ctx) // as for a GraphFile: the spec is not at fault
		}
		if err != nil {
			return nil, fieldErr("MachineSpec", "", "%v", err)
		}
		s.Machine = m
	}
	s.MachineSpec = ""
	m := s.Machine
	if m.N() > MaxNodes {
		return nil, fieldErr("Machine", m.Spec(), "has %d nodes; a replay handles at most %d (the allocators keep several words per node)", m.N(), MaxNodes)
	}
	if s.HostsFile != "" || s.Hostlist != "" {
		hosts, err := s.readHosts(ctx, m.N())
		if err != nil && ctx.Err() != nil {
			return nil, context.Cause(ctx) // as for a GraphFile: the names are not at fault
		}
		if err != nil {
			return nil, err
		}
		if len(hosts) != m.N() {
			field, path := "HostsFile", s.Path(s.HostsFile)
			if s.Hostlist != "" {
				field, path = "Hostlist", s.Hostlist
			}
			return nil, &FileError{Field: field, Path: path, Err: fmt.Errorf("%d host names for a machine of %d nodes", len(hosts), m.N())}
		}
		s.Hosts, s.HostsFile, s.Hostlist = hosts, "", ""
	}
	if s.SpanCurve != "" {
		o, err := s.spanOrder(m)
		if err != nil {
			return nil, err
		}
		s.SpanOrder, s.SpanName, s.SpanCurve = o, s.SpanCurve, ""
	}
	return warnings, nil
}

// readGraph reads GraphFile (slurm.GraphFile), with its warnings.
func (s *Spec) readGraph(ctx context.Context) (*topo.Graph, []Warning, error) {
	g, texts, err := slurm.GraphFile{Path: s.Path(s.GraphFile), Format: s.GraphFormat, NodeNameMap: s.Path(s.NodeNameMap), Topology: s.Topology, Stdin: s.Stdin}.ReadContext(ctx)
	if ge := (*slurm.GraphFileError)(nil); errors.As(err, &ge) {
		field := "GraphFile"
		if ge.NameMap {
			field = "NodeNameMap"
		}
		return nil, nil, &FileError{Field: field, Path: ge.Path, Err: ge.Err}
	}
	if err != nil {
		return nil, nil, err
	}
	ws := make([]Warning, len(texts))
	for i, w := range texts {
		ws[i] = Warning{Field: "GraphFile", File: s.Path(s.GraphFile), Text: w}
	}
	return g, ws, nil
}

// readHosts reads HostsFile or expands Hostlist: distinct names in node-index
// order, more than n (the machine's nodes) refused from their count before they
// are made (fewer are refused by the caller).
func (s *Spec) readHosts(ctx context.Context, n int) ([]string, error) {
	if s.Hostlist != "" {
		names, err := curves.ExpandHostNames(ctx, s.Hostlist, n)
		if err != nil {
			return nil, &FileError{Field: "Hostlist", Path: s.Hostlist, Err: err}
		}
		return names, nil
	}
	r, err := s.open(s.HostsFile)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	names, err := curves.ReadHostNames(ctx, r, n)
	if err != nil {
		return nil, &FileError{Field: "HostsFile", Path: s.Path(s.HostsFile), Err: err}
	}
	return names, nil
}

// spanOrder resolves SpanCurve on m (curves.Resolve: a built-in curve that applies
// to m, or a ranking file, host names matched against Hosts).
func (s *Spec) spanOrder(m topo.Machine) (curves.Order, error) {
	name := s.SpanCurve
	if curves.Summary(name) == "" {
		name = s.Path(name) // a ranking file
	}
	o, err := curves.Resolve(context.Background(), name, m, s.Hosts)
	if ue := (*curves.UnknownCurveError)(nil); errors.As(err, &ue) {
		return nil, fieldErr("SpanCurve", "", "%v", err)
	}
	if err != nil {
		return nil, &FileError{Field: "SpanCurve", Err: err}
	}
	return o, nil
}

// Path is the path the spec reads a file name of its fields from: the name taken
// from Dir when it is relative ("" and "-", standard input, are left as they are).
func (s *Spec) Path(name string) string {
	return inDir(s.Dir, name)
}

// inDir is name taken from dir when name is relative and dir is set.
func inDir(dir, name string) string {
	if dir == "" || name == "" || name == "-" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}
