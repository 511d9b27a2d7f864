package sim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Job is one job of a trace, in seconds.
type Job struct {
	ID       int   // SWF job number, or the 1-based line number's job count in a converted file
	Line     int   // line of the trace file it came from (0 when generated)
	Arrival  int64 // submit time
	Procs    int   // processors used
	Runtime  int64 // run time
	Estimate int64 // requested time; -1 when unknown
	// NodeList is where production ran the job (sacct's NodeList), for the as-run
	// allocator; empty for other traces. The jobs of one trace share its table of
	// host names (Trace.Hosts).
	NodeList hostlist.List
	// Started is when production started the job, in seconds from the trace's start
	// (only sacct traces record it; 0 otherwise); the as-run scheduler starts jobs then.
	Started int64
	// Partition is the Slurm partition the job ran in (sacct's Partition; a
	// comma-separated list when sacct recorded several, see slurm.SacctJob), ""
	// when the trace does not say (SWF's partition number is not read: it numbers
	// partitions of a machine the trace does not describe). A replay with
	// Config.Partitions keeps the job on that partition's nodes.
	Partition string
}

// Trace is a workload: jobs in file order plus what the header said.
type Trace struct {
	Jobs     []Job  // in file order
	Format   Format // FormatSWF, FormatConverted or FormatSacct
	MaxProcs int    // from the SWF header (MaxProcs, else MaxNodes); 0 when absent
	Bad      int    // malformed lines skipped (ReadOptions.SkipBad)
	Filtered int    // well-formed SWF records dropped by the conversion rules
	// UnixStart is the SWF header's UnixStartTime (arrivals count seconds from it),
	// 0 when absent; TimeZone its TimeZoneString (e.g. "US/Pacific"), "" when absent.
	UnixStart int64
	TimeZone  string // the SWF header's TimeZoneString, e.g. "US/Pacific"; "" when absent
	// Skipped counts sacct records that are not replayed, by reason (job steps,
	// pending, cancelled before start, still running, earlier runs of requeued jobs).
	Skipped map[string]int
	// Impossible counts sacct records skipped because they contradict themselves,
	// by reason (slurm.ImpossibleStartBeforeSubmit, ...).
	Impossible map[string]int
	// Hosts numbers the host names of the jobs' node lists (sacct traces; nil
	// otherwise).
	Hosts *hostlist.Table
	// HetJobs counts the heterogeneous jobs of an sacct trace whose components
	// (JobID 123+0, 123+1) are replayed as one job each (slurm.ReadSacct); Joined
	// the component records joined into an earlier component's job.
	HetJobs, Joined int
	// notHost, read with ReadOptions.MarkHosts, is the error of each job whose
	// record names a host not in ReadOptions.Hosts, by the job's Line
	// (notHosts refuses or skips those a replay keeps).
	notHost map[int]*ParseError
	// hostsRead, read with ReadOptions.MarkHosts, is the table of the
	// machine's names every checked NodeList was looked up in
	// (ReadOptions.Hosts): a job without a mark names none but them
	// (dropMarked); nil otherwise. hostsMax is ReadOptions.MaxHosts then: the
	// read does not check the NodeList of a job of more (slurm.SacctOptions).
	hostsRead *hostlist.Table
	hostsMax  int
}

// ReadOptions tune ReadTrace.
type ReadOptions struct {
	// Format is FormatSWF, FormatConverted, FormatSacct, or FormatDetect to detect
	// it: a '|'-separated header naming JobID or JobIDRaw is sacct -P; otherwise
	// the first record decides (4 fields: the converted format, 18: SWF), not
	// the ';' comment lines before it (a converted file may have some; they are
	// skipped); comments and no record, or a record of another length after
	// comments, are SWF.
	Format Format
	// SkipBad skips and counts malformed lines instead of failing on the first one.
	SkipBad bool
	// MaxJobs bounds the jobs read (0: DefaultMaxJobs); a trace with more is an
	// error wrapping slurm.ErrTooManyJobs, not an out-of-memory crash.
	MaxJobs int
	// Location is the time zone of an sacct trace's times (nil: time.Local, the
	// zone of TZ); SWF traces carry theirs in their header.
	Location *time.Location
	// MaxHosts is the number of hosts of the machine the trace is replayed on
	// (0: not known): an sacct NodeList naming more is counted, not read
	// (slurm.SacctOptions.MaxHosts), so that its cost follows the machine.
	MaxHosts int
	// Hosts are the machine's host names when the replay reads every NodeList by
	// name: an sacct NodeList naming another host is a malformed record at its
	// line (slurm.SacctOptions.Hosts); nil: not checked.
	Hosts *hostlist.Table
	// HostsOf is what the messages call the machine of Hosts ("mesh:4x4").
	HostsOf string
	// MarkHosts, with Hosts, keeps the records naming another host, marked,
	// rather than refusing or skipping them at their line
	// (slurm.SacctOptions.MarkHosts): Spec.Prepare refuses or skips those of
	// its window (a job outside it is not replayed and is not refused).
	MarkHosts bool
}

// DefaultMaxJobs is the number of jobs a trace may have unless
// ReadOptions.MaxJobs says otherwise (sim, compare and sweep: --max-jobs): more
// than the largest logs of the Parallel Workloads Archive (about a million jobs);
// reading that many takes about 500 MB.
const DefaultMaxJobs = slurm.DefaultMaxJobs

// ParseError is a malformed trace line (the one line error of procalloc's text
// readers: its line, its text clipped to 120 bytes, what is wrong).
type ParseError = textin.LineError

// ReadTraceFile reads a trace file (compressed or not; see ReadTrace).
func ReadTraceFile(path string, opt ReadOptions) (*Trace, error) {
	f, err := textin.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := ReadTrace(f, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ReadTrace reads a workload trace: SWF 2.2 (Feitelson's Standard Workload Format)
// or the 4-column converted format `arrival procs runtime estimate` that PReMAS
// reads (docs/sim.md). Gzip and bzip2 input is decompressed as it is read
// (textin.Decompress): a truncated or damaged file is said to be so, after its
// last whole line.
//
// SWF records are converted with the rules that produced the published converted
// files: records with allocated processors (field 5) <= 0 are dropped; run time is
// field 4, or field 6 when field 4 is -1; status (field 11) -1, 0 and 1 are kept, 5
// only when the run time is positive; values are rounded to the nearest integer. A
// record whose run time is still unknown (negative), or whose submit time is
// negative, is dropped too. Dropped records
// are counted in Trace.Filtered. Converted files are taken as they are.
func ReadTrace(r io.Reader, opt ReadOptions) (*Trace, error) {
	br := bufio.NewReaderSize(textin.Decompress(r), 1<<16)
	if start, _ := br.Peek(textin.StartLen); textin.CheckStart(string(start)) != nil {
		return nil, fmt.Errorf("line 1: %w", textin.CheckStart(string(start)))
	}
	switch opt.Format {
	case "", "swf", "converted":
		if opt.Format == "" && looksLikeSacct(br) {
			return readSacct(br, opt)
		}
	case "sacct":
		return readSacct(br, opt)
	default:
		return nil, fmt.Errorf("unknown trace format %q (want %s)", opt.Format, Choices(formats))
	}
	maxJobs := opt.MaxJobs
	if maxJobs <= 0 {
		maxJobs = DefaultMaxJobs
	}
	t := &Trace{Format: opt.Format}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), maxTraceLine)
	line := 0
	var fields []string
	semicolon := false // a ';' comment line was seen
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, textin.BOM) // as textin.Lines and the sacct reader skip it
		}
		s := strings.TrimSpace(text)
		if s == "" {
			continue
		}
		if s[0] == ';' {
			// A comment. The format is told from the first record, not from a
			// comment: a converted file may carry ';' lines too (a copied SWF
			// header, a note), and taking it for SWF refused its first record
			// ("4 fields, want 18"). Before the first record the header is read
			// in case the file is SWF, and forgotten if it is not.
			if t.Format == "" || t.Format == "swf" {
				t.header(s)
			}
			semicolon = true
			continue
		}
		if s[0] == '#' {
			// A '#' line is no comment in either format: SWF's comments start with
			// ';', and the converted files PReMAS read (and the archive's) have none.
			// It was read as a record, refused as "cannot tell the trace format"
			// or "2 fields, want 4", naming no cause.
			if opt.SkipBad {
				t.Bad++
				continue
			}
			return nil, &ParseError{Line: line, Text: textin.Clip(text), Err: errHashComment}
		}
		fields = appendFields(fields[:0], s)
		if t.Format == "" {
			if hint := slurm.SacctFormHint(s); hint != "" {
				// sacct output in a form other than -P's: not SWF or converted.
				return nil, &ParseError{Line: line, Text: textin.Clip(text), Err: errors.New(hint)}
			}
			switch {
			case len(fields) == 4:
				t.Format = "converted"
				// An SWF header's values (MaxProcs, UnixStartTime, TimeZoneString)
				// do not describe a converted file, as with --format converted.
				t.MaxProcs, t.UnixStart, t.TimeZone = 0, 0, ""
			case len(fields) >= 18 || semicolon:
				// After ';' comments a record of another length is a malformed
				// SWF record ("N fields, want 18 (SWF 2.2)").
				t.Format = "swf"
			default:
				return nil, &ParseError{Line: line, Text: textin.Clip(text), Err: fmt.Errorf("cannot tell the trace format from a record of %d fields (want 4 for the converted format or 18 for SWF)", len(fields))}
			}
		}
		var (
			j    Job
			keep bool
			err  error
		)
		if t.Format == "swf" {
			j, keep, err = parseSWF(fields)
		} else {
			j, err = parseConverted(fields)
			keep = true
		}
		if err != nil {
			if opt.SkipBad {
				t.Bad++
				continue
			}
			return nil, &ParseError{Line: line, Text: textin.Clip(text), Err: err}
		}
		if !keep {
			t.Filtered++
			continue
		}
		if len(t.Jobs) >= maxJobs {
			return nil, fmt.Errorf("line %d: more than %d jobs: %w (raise the cap: ReadOptions.MaxJobs, procalloc's --max-jobs)", line, maxJobs, slurm.ErrTooManyJobs)
		}
		j.Line = line
		if t.Format == "converted" {
			j.ID = len(t.Jobs) + 1
		}
		t.Jobs = append(t.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, textin.ScanErr(err, line+1, maxTraceLine)
	}
	if t.Format == "" && semicolon {
		t.Format = "swf" // comments and no record: an SWF header
	}
	if t.Format == "" {
		t.Format = opt.Format
	}
	return t, nil
}

// errHashComment refuses a trace line starting with #.
var errHashComment = errors.New("a '#' line is not a comment in a trace: comment lines start with ';' (SWF's, also read in the converted format); start the line with ';', or remove it")

// maxTraceLine is the longest line of a trace: an SWF record is 18 numbers, and the
// longest header comment of the Parallel Workloads Archive is far shorter.
const maxTraceLine = 1 << 20

func appendFields(dst []string, s string) []string {
	for {
		s = strings.TrimLeft(s, " \t\r")
		if s == "" {
			return dst
		}
		i := strings.IndexAny(s, " \t\r")
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i:]
	}
}

// header reads "; MaxProcs: N" (preferred) or "; MaxNodes: N".
func (t *Trace) header(s string) {
	key, val, ok := strings.Cut(strings.TrimSpace(s[1:]), ":")
	if !ok {
		return
	}
	f := strings.Fields(val)
	if len(f) == 0 {
		return
	}
	switch strings.TrimSpace(key) {
	case "UnixStartTime":
		if v, err := strconv.ParseInt(f[0], 10, 64); err == nil && v > 0 {
			t.UnixStart = v
		}
		return
	case "TimeZoneString":
		t.TimeZone = f[0]
		return
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 0 {
		return
	}
	switch strings.TrimSpace(key) {
	case "MaxProcs":
		t.MaxProcs = n
	case "MaxNodes":
		if t.MaxProcs == 0 {
			t.MaxProcs = n
		}
	}
}

var errRange = slurm.ErrRange // one error for every reader of numbers

// maxTraceValue bounds every number a trace gives (times in seconds, sizes), so that
// sums of a few of them (arrival + wait + run time, scaled) stay far from int64
// overflow: 2^31 x 2^20, about 71 million years of seconds.
const maxTraceValue = math.MaxInt32 * int64(1<<20)

func parseInt(s, what string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not an integer", what, s)
	}
	if v < -1 || v > maxTraceValue {
		return 0, fmt.Errorf("%s %d: %w", what, v, errRange)
	}
	return v, nil
}

func parseConverted(f []string) (Job, error) {
	if len(f) != 4 {
		return Job{}, fmt.Errorf("%d fields, want 4 (arrival procs runtime estimate)", len(f))
	}
	var v [4]int64
	for i, name := range []string{"arrival", "procs", "runtime", "estimate"} {
		x, err := parseInt(f[i], name)
		if err != nil {
			return Job{}, err
		}
		v[i] = x
	}
	switch {
	case v[0] < 0:
		return Job{}, fmt.Errorf("negative arrival %d", v[0])
	case v[1] < 1 || v[1] > math.MaxInt32:
		return Job{}, fmt.Errorf("procs %d: must be at least 1", v[1])
	case v[2] < 0:
		return Job{}, fmt.Errorf("negative runtime %d", v[2])
	}
	return Job{Arrival: v[0], Procs: int(v[1]), Runtime: v[2], Estimate: v[3]}, nil
}

// parseSWF converts one SWF record; keep is false for records the conversion drops.
func parseSWF(f []string) (j Job, keep bool, err error) {
	if len(f) != 18 {
		return Job{}, false, fmt.Errorf("%d fields, want 18 (SWF 2.2)", len(f))
	}
	var v [18]int64
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(x) || strings.ContainsAny(s, "_xX") {
			return Job{}, false, fmt.Errorf("field %d %q is not a number", i+1, s)
		}
		if math.Abs(x) > 1e15 {
			// 1e300 and 1e400 are numbers, just too large for any trace field.
			return Job{}, false, fmt.Errorf("field %d %s: %w (at most 1e15 in absolute value)", i+1, s, errRange)
		}
		v[i] = int64(math.Round(x))
	}
	id, submit, run, procs, cpu, req, status := v[0], v[1], v[3], v[4], v[5], v[8], v[10]
	if procs <= 0 {
		return Job{}, false, nil
	}
	if procs > math.MaxInt32 {
		return Job{}, false, fmt.Errorf("allocated processors %d: %w", procs, errRange)
	}
	if run == -1 {
		run = cpu
	}
	switch status {
	case -1, 0, 1:
	case 5:
		if run <= 0 {
			return Job{}, false, nil
		}
	default:
		return Job{}, false, nil
	}
	if run < 0 || submit < 0 {
		return Job{}, false, nil
	}
	if req < -1 {
		req = -1
	}
	return Job{ID: int(id), Arrival: submit, Procs: int(procs), Runtime: run, Estimate: req}, true, nil
}

// WriteConverted writes jobs in the 4-column converted format.
func WriteConverted(w io.Writer, jobs []Job) error {
	bw := bufio.NewWriter(w)
	for _, j := range jobs {
		fmt.Fprintf(bw, "%d\t%d\t%d\t%d\n", j.Arrival, j.Procs, j.Runtime, j.Estimate)
	}
	return bw.Flush()
}

// ErrEmptyWindow is returned by Window when no job arrives in the window.
var ErrEmptyWindow = errors.New("no job arrives in the window")

// Window returns the jobs that arrive at from <= arrival < to (seconds from the
// trace's start), in order; to <= 0 means no upper end. Bunde et al. 2004 §3.1 cut
// the SDSC Paragon log to its last three months of 1996 this way.
func Window(jobs []Job, from, to int64) ([]Job, error) {
	if to > 0 && to <= from {
		return nil, fmt.Errorf("window [%d, %d): the end must come after the start", from, to)
	}
	var out []Job
	for _, j := range jobs {
		if j.Arrival >= from && (to <= 0 || j.Arrival < to) {
			out = append(out, j)
		}
	}
	if len(out) == 0 {
		win := fmt.Sprintf("[%d s, %d s)", from, to)
		if to <= 0 {
			win = fmt.Sprintf("from %d s on", from)
		}
		if len(jobs) == 0 {
			return nil, fmt.Errorf("window %s of the trace's %d jobs: %w", win, len(jobs), ErrEmptyWindow)
		}
		// The times the trace's jobs do arrive at, which the window is to be cut
		// from (an SWF log's first job may come days after its start).
		first, last := jobs[0].Arrival, jobs[0].Arrival
		for _, j := range jobs {
			first, last = min(first, j.Arrival), max(last, j.Arrival)
		}
		return nil, fmt.Errorf("window %s of the trace's %d jobs: %w (they arrive from %d s to %d s)", win, len(jobs), ErrEmptyWindow, first, last)
	}
	return out, nil
}

// notHosts returns jobs (a window of tr's jobs) without those whose record
// names a host not on the machine (ReadOptions.MarkHosts) and how many it
// dropped, with skipBad; without, the error of the first such record in the
// file (a *ParseError naming its line, as the reader words it), nil when
// there is none.
func (tr *Trace) notHosts(jobs []Job, skipBad bool) ([]Job, int, error) {
	if len(tr.notHost) == 0 {
		return jobs, 0, nil
	}
	var first *ParseError
	out, dropped := jobs[:0:0], 0
	for _, j := range jobs {
		e, bad := tr.notHost[j.Line]
		switch {
		case !bad:
			out = append(out, j)
		case skipBad:
			dropped++
		case first == nil || e.Line < first.Line:
			first = e
		}
	}
	if first != nil {
		return nil, 0, first
	}
	if dropped == 0 {
		return jobs, 0, nil
	}
	return out, dropped, nil
}

// HostsDropped says which jobs DropUnknownHosts dropped: how many, the distinct
// hosts they name that the machine lacks, and the dropped job of the lowest
// record line with the first such host of its NodeList.
type HostsDropped struct {
	Jobs      int    `json:"jobs"`       // jobs dropped
	Hosts     int    `json:"hosts"`      // distinct host names they name that the machine lacks
	FirstJob  int    `json:"first_job"`  // the job id of the dropped job of the lowest line
	FirstLine int    `json:"first_line"` // its record's line
	FirstHost string `json:"first_host"` // its first host the machine lacks
	// Lacking names what lacks the hosts, in Note ("mesh:4x4", "slurm.conf"),
	// set by the caller.
	Lacking string `json:"lacking"`
}

// DropUnknownHosts returns jobs without those whose NodeList names a host known
// does not hold (retired or renamed nodes of a history), keeping their order,
// and says what it dropped. A job without a NodeList (an SWF job, one larger
// than the machine whose list was not read) is kept: it names no host. Each
// distinct name is looked up once.
func DropUnknownHosts(jobs []Job, known func(host string) bool) ([]Job, HostsDropped) {
	const (
		unchecked = iota
		good
		unknown
	)
	var d HostsDropped
	status := map[*hostlist.Table][]uint8{}
	out := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		t := j.NodeList.Table()
		if t == nil || j.NodeList.Len() == 0 {
			out = append(out, j)
			continue
		}
		st := status[t]
		if len(st) < t.Len() {
			st = append(st, make([]uint8, t.Len()-len(st))...)
			status[t] = st
		}
		first := ""
		for start, length := range j.NodeList.Runs() {
			for id := start; id < start+length; id++ {
				if st[id] == unchecked {
					st[id] = good
					if !known(t.Name(id)) {
						st[id] = unknown
						d.Hosts++
					}
				}
				if st[id] == unknown && first == "" {
					first = t.Name(id)
				}
			}
		}
		if first == "" {
			out = append(out, j)
			continue
		}
		if d.Jobs == 0 || j.Line < d.FirstLine {
			d.FirstJob, d.FirstLine, d.FirstHost = j.ID, j.Line, first
		}
		d.Jobs++
	}
	return out, d
}

// dropMarked is DropUnknownHosts (known: the machine's names) over jobs, a
// window of tr's, done on the read's marks when tr was read with
// ReadOptions.MarkHosts (tr.hostsRead): the read looked every checked
// NodeList's names up in the machine's, once each, and marked the records
// naming another (notHost), so a job without a mark is kept as it is and only
// the marked jobs are walked for the drop's counts, their names looked up in
// the table the read used. The jobs whose NodeList the read did not check
// (a size over ReadOptions.MaxHosts: an sacct history sized by NCPUS) are
// walked too. Without marks (a trace read otherwise, Spec.TraceData), every
// job is walked with known. Same jobs kept, same HostsDropped either way
// (TestDropMarkedIsDropUnknownHosts); BenchmarkDropUnknownHosts at 131,072
// hosts and 100,000 jobs: 61-90 ms -> 17-18 ms, beside a read of 0.7-1.2 s.
func (tr *Trace) dropMarked(jobs []Job, known func() func(host string) bool) ([]Job, HostsDropped) {
	if tr.hostsRead == nil {
		return DropUnknownHosts(jobs, known())
	}
	var walked []Job
	var walk []bool // of each job
	for i, j := range jobs {
		if tr.notHost[j.Line] != nil || tr.hostsMax > 0 && j.Procs > tr.hostsMax && j.NodeList.Len() > 0 {
			if walk == nil {
				walk = make([]bool, len(jobs))
			}
			walk[i], walked = true, append(walked, j)
		}
	}
	if len(walked) == 0 {
		return jobs, HostsDropped{}
	}
	keptOf, d := DropUnknownHosts(walked, func(h string) bool { _, ok := tr.hostsRead.ID(h); return ok })
	if d.Jobs == 0 {
		return jobs, d
	}
	// The jobs kept, in order: those not walked, and the walked ones
	// DropUnknownHosts kept (keptOf, in the same order).
	kept := make([]Job, 0, len(jobs)-d.Jobs)
	for i, j := range jobs {
		if !walk[i] {
			kept = append(kept, j)
		} else if len(keptOf) > 0 && keptOf[0].Line == j.Line {
			kept, keptOf = append(kept, j), keptOf[1:]
		}
	}
	return kept, d
}

// Note is the note of a drop: "dropped N jobs naming M hosts LACKING lacks
// (first: job J line L host H)", each count singular for 1.
func (d HostsDropped) Note() string {
	return fmt.Sprintf("dropped %s naming %s %s lacks (first: job %d line %d host %s)", textin.CountNoun(d.Jobs, "job"), textin.CountNoun(d.Hosts, "host"), d.Lacking, d.FirstJob, d.FirstLine, d.FirstHost)
}

// DropLarger returns the jobs of at most n processors and how many it dropped
// (Bunde et al. 2004 §4 removed three 320-node jobs for the 16x16 mesh).
func DropLarger(jobs []Job, n int) ([]Job, int) {
	out := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		if j.Procs <= n {
			out = append(out, j)
		}
	}
	return out, len(jobs) - len(out)
}
