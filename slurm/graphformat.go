package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// graphFormats backs GraphFormats; only this package changes it.
var graphFormats = append(topo.GraphFormats(), "slurm-topology", "slurm-topology-yaml")

// GraphFormats returns the --graph-format names ReadGraphFormat accepts: topo's
// (edges, ibnetdiscover, subnet-lst, opareport) and Slurm's topology.conf and
// topology.yaml.
// Each call returns a new slice: changing it changes nothing in the package.
func GraphFormats() []string { return slices.Clone(graphFormats) }

// GraphReadOptions are the settings of ReadGraphFormat.
type GraphReadOptions struct {
	Format      string           // one of GraphFormats, or "" to detect it
	NodeNameMap topo.NodeNameMap // ibnetdiscover, subnet-lst, opareport: GUID -> name
	Topology    string           // topology.yaml: which topology ("" = cluster_default)
	// Warn receives what Slurm accepts but logs in a topology file
	// (Topology.Warnings) and what the ibnetdiscover reader decided (dual-rail
	// hosts, aggregation nodes); nil drops it.
	Warn func(string)
	// Context, when set, stops the reading of a network (looked at every few
	// thousand names, lines, hosts or links; topo.GraphReadOptions.Context for the
	// formats of package topo): ReadGraphFormat returns its cause. A
	// topology.yaml's YAML is parsed in one piece.
	Context context.Context
	// Include, when set, reads the files of a topology.conf's Include lines
	// (ParseTopologyConfIncluding), a relative name in Path's directory; nil: an
	// Include line is an error.
	Include func(name string) ([]byte, error)
	// Path is the file's name ("-": standard input, which has no directory).
	Path string
}

// ReadGraphFormat reads a network in any of GraphFormats; with an empty Format it is
// detected from the content (DetectGraphFormat) and an undecidable file is an error.
// topo.ReadGraphFormat reads the file and the generic formats; Slurm's two are added
// here (topo knows nothing of Slurm), each parsed once (ParseTopologyConf,
// ParseTopologyYAML) into the Topology whose Graph is returned.
func ReadGraphFormat(r io.Reader, opt GraphReadOptions) (*topo.Graph, error) {
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	graph := func(t *Topology, err error) (*topo.Graph, error) {
		if err != nil {
			return nil, err
		}
		if opt.Warn != nil {
			for _, w := range t.Warnings {
				opt.Warn(w)
			}
		}
		return t.graph(ctx)
	}
	return topo.ReadGraphFormat(r, topo.GraphReadOptions{
		Context:     ctx,
		Format:      opt.Format,
		NodeNameMap: opt.NodeNameMap,
		Warn:        opt.Warn,
		Detect:      DetectGraphFormat,
		Extra: map[string]func([]byte) (*topo.Graph, error){
			"slurm-topology": func(data []byte) (*topo.Graph, error) {
				return graph(parseTopologyConf(ctx, data, topologyIncluder(opt.Path, "", opt.Include)))
			},
			"slurm-topology-yaml": func(data []byte) (*topo.Graph, error) {
				return graph(parseTopologyYAML(ctx, bytes.NewReader(data), opt.Topology))
			},
		},
	})
}

// GraphFile is a network file and how to read it: what --graph FILE and its
// options (--graph-format, --node-name-map, --topology) name.
type GraphFile struct {
	Path        string // the network file; "-" reads Stdin
	Format      string // one of GraphFormats, or "" to detect it
	NodeNameMap string // a node-name-map file naming the GUIDs (ibnetdiscover, subnet-lst, opareport)
	Topology    string // topology.yaml: which topology ("" = cluster_default)
	// Stdin is what a path "-" reads (once); nil: "-" is a file's name.
	Stdin io.Reader
}

// GraphFileError is a file of a GraphFile whose content is wrong: the network file
// or (NameMap) its node-name-map.
type GraphFileError struct {
	NameMap bool   // the error is of the node-name-map file, not the network file
	Path    string // the file whose content is wrong
	Err     error  // what is wrong, with the line when known
}

// Error returns "PATH: ERR".
func (e *GraphFileError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *GraphFileError) Unwrap() error { return e.Err }

func (f GraphFile) open(path string) (io.ReadCloser, error) { return textin.OpenInput(path, f.Stdin) }

// Read reads the network (ReadGraphFormat) and returns it with what Slurm accepts
// but logs in it (a topology file's Warnings). A file that cannot be opened is the
// file system's error; one whose content is wrong a *GraphFileError.
func (f GraphFile) Read() (*topo.Graph, []string, error) {
	return f.ReadContext(context.Background())
}

// ReadContext is Read stopped by ctx (GraphReadOptions.Context): a cancelled ctx
// returns its cause, not a *GraphFileError.
func (f GraphFile) ReadContext(ctx context.Context) (*topo.Graph, []string, error) {
	opt := GraphReadOptions{Format: f.Format, Topology: f.Topology, Context: ctx, Path: f.Path, Include: ReadIncluded}
	if f.Format != "" && !slices.Contains(graphFormats, f.Format) {
		return nil, nil, fmt.Errorf("graph format %q: want one of %s", f.Format, strings.Join(graphFormats, ", "))
	}
	if f.NodeNameMap != "" {
		r, err := f.open(f.NodeNameMap)
		if err != nil {
			return nil, nil, err
		}
		defer r.Close()
		if opt.NodeNameMap, err = topo.ReadNodeNameMap(r); err != nil {
			return nil, nil, &GraphFileError{NameMap: true, Path: f.NodeNameMap, Err: err}
		}
	}
	r, err := f.open(f.Path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var ws []string
	opt.Warn = func(w string) { ws = append(ws, w) }
	g, err := ReadGraphFormat(textin.ContextReader(ctx, r), opt)
	if ctx.Err() != nil {
		return nil, nil, context.Cause(ctx)
	}
	if err != nil {
		return nil, nil, &GraphFileError{Path: f.Path, Err: err}
	}
	if opt.NodeNameMap != nil && !opt.NodeNameMap.NamesAny(g) {
		why := fmt.Sprintf("none of the %d names it maps is a node of this fabric", len(opt.NodeNameMap))
		if len(opt.NodeNameMap) == 0 {
			why = "it maps no GUID"
		}
		ws = append(ws, fmt.Sprintf("the node-name-map %s names no node (%s): hosts keep the first word of their NodeDescription, switches S-<guid>", f.NodeNameMap, why))
	}
	return g, ws, nil
}

// ReadIncluded reads a file an Include line names (at most MaxConfFileBytes): the
// open function of ReadConfIncluding for files on disk.
func ReadIncluded(name string) ([]byte, error) {
	f, err := textin.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return textin.ReadAll(f, MaxConfFileBytes, "the file")
}

// ReadTopology reads a topology.conf or a topology.yaml, told apart by content
// (DetectGraphFormat), into a Topology; name selects a topology.yaml's topology ("":
// cluster_default). It is what the slurm:tree and slurm:block emulators read. An
// Include line of a topology.conf is an error (ReadTopologyFile follows them).
func ReadTopology(r io.Reader, name string) (*Topology, error) {
	return readTopology(context.Background(), r, name, nil)
}

// readTopology is ReadTopology looking at ctx while it parses (parseTopologyConf,
// parseTopologyYAML: a cancelled ctx returns its cause); r is read as it is.
func readTopology(ctx context.Context, r io.Reader, name string, inc *includer) (*Topology, error) {
	data, err := textin.ReadAll(r, topo.MaxGraphBytes, "the file")
	if err != nil {
		return nil, err
	}
	if err := checkSlurmFileStart(data); err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	f, err := DetectGraphFormat(data)
	if err != nil && !bytes.Contains(data, []byte("=")) {
		return nil, err
	}
	if f == "slurm-topology-yaml" {
		return parseTopologyYAML(ctx, bytes.NewReader(data), name)
	}
	if name != "" {
		return nil, fmt.Errorf("a topology name (%s) selects a topology of a topology.yaml; this is a topology.conf", name)
	}
	return parseTopologyConf(ctx, data, inc)
}

// ReadTopologyFile is ReadTopology of the file at path (a topology.conf or a
// topology.yaml's cluster_default topology), its errors naming the file, a
// topology.conf's Include lines followed (ParseTopologyConfIncluding): what the
// slurm:tree:FILE and slurm:block:FILE allocator specs read. It looks at ctx while
// it reads and parses (every few thousand lines or names): a cancelled ctx returns
// its cause after the file's name.
func ReadTopologyFile(ctx context.Context, path string) (*Topology, error) {
	return ReadTopologyFileNamed(ctx, path, "")
}

// ReadTopologyFileNamed is ReadTopologyFile selecting a topology.yaml's topology
// by name ("": the cluster_default one, else the only one); a name with a
// topology.conf is an error.
func ReadTopologyFileNamed(ctx context.Context, path, name string) (*Topology, error) {
	f, err := textin.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := readTopology(ctx, textin.ContextReader(ctx, f), name, topologyIncluder(path, "", ReadIncluded))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// DetectGraphFormat names the format of a network file from its first meaningful
// line: a SwitchName=/BlockName=/RingName= or Include line (topology.conf), "- topology:" (topology.yaml),
// else what topo.DetectGraphFormat says (ibnetdiscover, subnet-lst, opareport, an
// edge list). Anything else is an error asking for --graph-format.
func DetectGraphFormat(data []byte) (string, error) {
	t := topo.FirstMeaningfulLine(data)
	low := strings.ToLower(t)
	switch {
	case strings.HasPrefix(low, "switchname="), strings.HasPrefix(low, "blockname="), strings.HasPrefix(low, "blocksizes="), strings.HasPrefix(low, "blocklevels="), strings.HasPrefix(low, "ringname="):
		return "slurm-topology", nil
	case len(low) > 7 && strings.HasPrefix(low, "include") && isConfSpace(low[7]):
		// A topology.conf whose first line is an Include line (an edge list of
		// hosts "include" and FILE before).
		return "slurm-topology", nil
	case strings.HasPrefix(t, "- topology:"), strings.HasPrefix(t, "-") && strings.Contains(t, "topology:"):
		return "slurm-topology-yaml", nil
	}
	f, err := topo.DetectGraphFormat(data)
	var u *topo.UndetectedFormatError
	if errors.As(err, &u) {
		return "", &topo.UndetectedFormatError{Line: u.Line, Formats: GraphFormats()}
	}
	return f, err
}
