package curves

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Ranking formats that resource managers and MPI launchers read. Each holds host
// names, so writing them needs the nodes' names (--hosts FILE, or a graph's names;
// without names a node is named by its index).
const (
	// FormatHostlist: the hosts in curve order as one Slurm hostlist expression.
	// scontrol show hostnames keeps the order; a --nodelist does not (Slurm sorts
	// it, and srun -w lays tasks in name order: measured on Slurm 22.05).
	FormatHostlist Format = "hostlist"
	// FormatRankfile: Open MPI rankfile, "rank R=HOST slot=S*", rank R on the host of
	// curve rank R, free to run on every core of it (RankfileWholeHost).
	FormatRankfile Format = "rankfile"
	// FormatMPICHRankOrder: an MPICH_RANK_ORDER file (Cray MPICH custom rank
	// placement, MPICH_RANK_REORDER_METHOD=3): the MPI rank to place on each node
	// slot, nodes in index order, comma-separated, 16 to a line (ranges a-b are read).
	FormatMPICHRankOrder Format = "mpich-rank-order"
	// FormatJGF: Flux's JSON Graph Format resource graph, a cluster vertex and one node
	// vertex per host whose "id" is the host's curve rank, so that fluxion's low-id
	// match policies (low, lonode, lonodex; not its default, first, which takes high
	// ids) select free nodes in curve order. Read back, also from a Flux R's
	// "scheduling" key, nodes rank by their id as fluxion's reader defaults it
	// (writeJGF, readJGF).
	FormatJGF Format = "jgf"
)

// schedulerFormats backs SchedulerFormats; only this package changes it.
var schedulerFormats = []Format{FormatHostlist, FormatRankfile, FormatMPICHRankOrder, FormatJGF}

// RankfileWholeHost is the slot list the rankfile writer gives every rank: in Open MPI
// 4.1's slot-list grammar "S" starts a socket list and "*" there means the whole
// machine (opal_hwloc_base_cpu_list_parse takes hwloc's root cpuset), so a rank may
// run on every core of its host, as an unbound rank does. A rankfile always binds,
// and mpirun's --bind-to does not change it: the "slot=0" written before bound every
// rank, and all the threads of a hybrid MPI+OpenMP rank, to logical core 0; "0:*"
// binds to the first socket only, and a core range past the host's last core
// ("slot=0-3" on 2 cores) makes mpirun exit 1 without a message. Checked with Open
// MPI 4.1.4 (TestOpenMPIRankfileDoesNotPinRanks in cmd/procalloc).
const RankfileWholeHost = "S*"

// SchedulerFormats returns the formats above and those other packages add with
// RegisterFormat (package slurm's slurm-weight).
// Each call returns a new slice: changing it changes nothing in the package.
func SchedulerFormats() []Format { return slices.Clone(schedulerFormats) }

// A Codec writes and reads a ranking format that names hosts, defined in another
// package: package slurm owns Slurm's files, and it sits above curves, so it adds its
// formats here rather than curves importing it (as image formats register with
// package image).
type Codec struct {
	// Write writes o, hosts naming the nodes in node-index order (nil: indices).
	Write func(w io.Writer, o Order, hosts []string) error
	// Read reads an ordering of n nodes back (see OrderFromHostRanks).
	Read func(r io.Reader, n int, hosts []string) (Order, error)
	// Detect says whether data is in the format (for DetectFormat).
	Detect func(data []byte) bool
}

var codecs = map[Format]Codec{}

// RegisterFormat adds format f, written and read by c, to Formats and
// SchedulerFormats; WriteRanking, ReadRanking and DetectFormat then handle it. It is
// meant for package initialisation; a name registered twice or taken by a built-in
// format is an error.
func RegisterFormat(f Format, c Codec) error {
	if _, dup := codecs[f]; dup || slices.Contains(formats, f) || f == "" {
		return fmt.Errorf("curves: format %q registered twice", f)
	}
	if c.Write == nil || c.Read == nil || c.Detect == nil {
		return fmt.Errorf("curves: format %q needs Write, Read and Detect", f)
	}
	codecs[f] = c
	formats = append(formats, f)
	schedulerFormats = append(schedulerFormats, f)
	return nil
}

// HostRank is one entry of a ranking file that names hosts: Host has rank Rank,
// read on line Line (for errors).
type HostRank struct {
	Rank int    // 0-based rank
	Host string // host name, as in the machine's node names
	Line int    // 1-based line of the file
}

// OrderFromHostRanks turns the entries of a ranking file that names hosts into the
// ordering of an n-node machine whose nodes are named hosts (nil: node indices): a
// wrong count, an unknown host, a host or rank given twice and a rank out of range
// are errors naming the line.
func OrderFromHostRanks(es []HostRank, n int, hosts []string) (Order, error) {
	if len(es) != n {
		return nil, fmt.Errorf("%d hosts for a machine of %d nodes", len(es), n)
	}
	index := map[string]int{}
	for i := range n {
		index[hostName(hosts, i)] = i
	}
	o := make(Order, n)
	for i := range o {
		o[i] = -1
	}
	seen := map[string]int{}
	for _, e := range es {
		v, ok := index[e.Host]
		if !ok {
			return nil, fmt.Errorf("line %d: host %q is not a node of the machine", e.Line, e.Host)
		}
		if first, dup := seen[e.Host]; dup {
			return nil, fmt.Errorf("line %d: host %q again (first on line %d)", e.Line, e.Host, first)
		}
		seen[e.Host] = e.Line
		if e.Rank < 0 || e.Rank >= n {
			return nil, fmt.Errorf("line %d: rank %d out of range 0..%d", e.Line, e.Rank, n-1)
		}
		if o[e.Rank] >= 0 {
			return nil, fmt.Errorf("line %d: rank %d given twice", e.Line, e.Rank)
		}
		o[e.Rank] = v
	}
	return o, o.Validate(n)
}

// HostName is the name of node v: hosts[v], or v's index when hosts is nil.
func HostName(hosts []string, v int) string { return hostName(hosts, v) }

func hostName(hosts []string, v int) string {
	if hosts != nil {
		return hosts[v]
	}
	return strconv.Itoa(v)
}

// ErrNoHostNames is returned by WriteRanking for a format that names hosts
// (SchedulerFormats) without host names: a resource manager would read node
// indices as host names ("NodeName=0"), and no host is called that.
var ErrNoHostNames = errors.New("the format names hosts, and no host names were given")

// writeSchedulerFormat writes o in one of SchedulerFormats.
func writeSchedulerFormat(w io.Writer, f Format, o Order, hosts []string) error {
	if hosts == nil {
		return fmt.Errorf("%s: %w", f, ErrNoHostNames)
	}
	if len(hosts) != len(o) {
		return fmt.Errorf("%d host names for %d nodes", len(hosts), len(o))
	}
	if c, ok := codecs[f]; ok {
		return c.Write(w, o, hosts)
	}
	bw := bufio.NewWriter(w)
	switch f {
	case FormatHostlist:
		names := make([]string, len(o))
		for r, v := range o {
			names[r] = hostName(hosts, v)
		}
		expr, err := hostlist.Compress(names)
		if err != nil {
			return err
		}
		fmt.Fprintln(bw, expr)
	case FormatRankfile:
		return writeRankfile(w, o, hosts, 1)
	case FormatMPICHRankOrder:
		// Plain comma-separated ranks, 16 to a line: the form of LUMI's documentation
		// of Cray MPICH and of grid_order's output. The reader also takes ranges
		// (a-b), which the writer once used; no documentation found says Cray MPICH
		// reads them.
		for i, r := range o.Ranks() {
			switch {
			case i == 0:
			case i%16 == 0:
				bw.WriteString("\n")
			default:
				bw.WriteByte(',')
			}
			bw.WriteString(strconv.Itoa(r))
		}
		bw.WriteByte('\n')
	case FormatJGF:
		return writeJGF(w, o, hosts)
	default:
		return fmt.Errorf("unknown ranking format %q", f)
	}
	return bw.Flush()
}

// writeRankfile writes the Open MPI rankfile of o with k consecutive ranks on each
// host: ranks k*r .. k*r+k-1 on the host of curve rank r.
func writeRankfile(w io.Writer, o Order, hosts []string, k int) error {
	// Checked before writing: Open MPI refuses the whole file for one name.
	for _, v := range o {
		if p := OpenMPIHostProblem(hostName(hosts, v), true); p != "" {
			return fmt.Errorf("rankfile: host %q: %s", hostName(hosts, v), p)
		}
	}
	bw := bufio.NewWriter(w)
	for r, v := range o {
		for j := range k {
			fmt.Fprintf(bw, "rank %d=%s slot=%s\n", k*r+j, hostName(hosts, v), RankfileWholeHost)
		}
	}
	return bw.Flush()
}

// WriteRanksPerHost writes o as a launcher's file with k consecutive MPI ranks on each
// host in curve order: FormatHosts (one line a rank, each host's name k times in a
// row: mpirun --hostfile F --map-by seq, mpiexec -f F) or FormatRankfile. k = 1 is
// WriteRanking's file. Such a file names hosts more than once, so ReadRanking does not
// read it back.
func WriteRanksPerHost(w io.Writer, f Format, o Order, hosts []string, k int) error {
	if k < 1 {
		return fmt.Errorf("%d ranks per host: want 1 or more", k)
	}
	if f != FormatHosts && f != FormatRankfile {
		return fmt.Errorf("ranks per host: format %s has one entry a host (hosts and rankfile take several)", f)
	}
	if hosts == nil && f == FormatRankfile {
		return fmt.Errorf("%s: %w", f, ErrNoHostNames)
	}
	if hosts != nil && len(hosts) != len(o) {
		return fmt.Errorf("%d host names for %d nodes", len(hosts), len(o))
	}
	if f == FormatRankfile {
		return writeRankfile(w, o, hosts, k)
	}
	bw := bufio.NewWriter(w)
	for _, v := range o {
		for range k {
			bw.WriteString(hostName(hosts, v))
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// readSchedulerFormat reads o back from one of SchedulerFormats.
func readSchedulerFormat(r io.Reader, f Format, n int, hosts []string) (Order, error) {
	if c, ok := codecs[f]; ok {
		return c.Read(r, n, hosts)
	}
	data, err := io.ReadAll(r) // capped by ReadRanking
	if err != nil {
		return nil, err
	}
	type entry struct {
		rank int
		host string
		line int
	}
	var es []entry
	lines := strings.Split(string(data), "\n")
	dataLines := func(yield func(int, string) bool) {
		for i, l := range lines {
			if l = strings.TrimSpace(textin.StripComment(l)); l != "" {
				if !yield(i+1, l) {
					return
				}
			}
		}
	}
	switch f {
	case FormatHostlist:
		var expr strings.Builder
		first := 0
		for ln, l := range dataLines {
			if first == 0 {
				first = ln
			}
			if expr.Len() > 0 {
				expr.WriteByte(',')
			}
			expr.WriteString(l)
		}
		// Counted first: a count that is not the machine's is refused as
		// OrderFromHostRanks refuses it, before a name is made.
		if c, err := hostlist.Count(expr.String()); err == nil && c != n {
			return nil, fmt.Errorf("%d hosts for a machine of %d nodes", c, n)
		}
		names, err := hostlist.Expand(expr.String())
		if err != nil {
			return nil, err
		}
		for i, h := range names {
			es = append(es, entry{i, h, first})
		}
	case FormatRankfile:
		for ln, l := range dataLines {
			var rank int
			var rest string
			if _, err := fmt.Sscanf(l, "rank %d=%s", &rank, &rest); err != nil {
				return nil, fmt.Errorf("line %d: want \"rank R=HOST slot=S\": %w", ln, err)
			}
			es = append(es, entry{rank, rest, ln})
		}
	case FormatMPICHRankOrder:
		i := 0
		for ln, l := range dataLines {
			for _, part := range strings.Split(l, ",") {
				if part = strings.TrimSpace(part); part == "" {
					continue
				}
				lo, hi, isRange := strings.Cut(part, "-")
				a, err1 := strconv.Atoi(lo)
				b := a
				var err2 error
				if isRange {
					b, err2 = strconv.Atoi(hi)
				}
				if err1 != nil || err2 != nil || b < a || a < 0 || b-a > n {
					return nil, fmt.Errorf("line %d: %q is not a rank or a range a-b", ln, part)
				}
				for v := a; v <= b; v++ {
					es = append(es, entry{v, strconv.Itoa(i), ln}) // node i gets rank v
					i++
				}
			}
		}
		hosts = nil // nodes by index
	case FormatJGF:
		hr, err := readJGF(data)
		if err != nil {
			return nil, err
		}
		return OrderFromHostRanks(hr, n, hosts)
	default:
		return nil, fmt.Errorf("unknown ranking format %q", f)
	}
	hr := make([]HostRank, len(es))
	for i, e := range es {
		hr[i] = HostRank{e.rank, e.host, e.line}
	}
	return OrderFromHostRanks(hr, n, hosts)
}

// detectSchedulerFormat recognises the scheduler formats by their content ("" when
// none matches).
func detectSchedulerFormat(data []byte) Format {
	for _, f := range schedulerFormats {
		if c, ok := codecs[f]; ok && c.Detect(data) {
			return f
		}
	}
	t := strings.TrimSpace(string(data))
	if strings.HasPrefix(t, "{") {
		if isJGFDocument(data) {
			return FormatJGF
		}
		return ""
	}
	for _, l := range strings.Split(t, "\n") {
		l = strings.TrimSpace(textin.StripComment(l))
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "rank ") && strings.Contains(l, "="):
			return FormatRankfile
		case strings.Trim(l, "0123456789,-") == "" && strings.ContainsAny(l, ",-"):
			return FormatMPICHRankOrder
		case strings.ContainsAny(l, "[,"):
			return FormatHostlist
		}
		return ""
	}
	return ""
}
