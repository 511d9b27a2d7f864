package slurm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// SacctFields are the sacct fields ReadSacct uses: the job id (JobIDRaw, else
// JobID; JobID also tells a heterogeneous job's components, 123+0 and 123+1), Submit, Start, End, the run time (ElapsedRaw, else Elapsed, else End -
// Start), the limit (TimelimitRaw in minutes, else Timelimit), the size (NNodes, else
// NCPUS), State, Partition (when present) and NodeList; others are ignored. Produce them with
//
//	sacct -X -P -a -S 2026-01-01 -E 2026-02-01 \
//	  -o JobIDRaw,JobID,Submit,Start,End,ElapsedRaw,TimelimitRaw,NNodes,NCPUS,State,Partition,NodeList
const SacctFields = "JobIDRaw,JobID,Submit,Start,End,ElapsedRaw,TimelimitRaw,NNodes,NCPUS,State,Partition,NodeList"

// ErrRange is wrapped by the errors of values beyond SacctOptions.MaxValue.
var ErrRange = errors.New("value out of range")

// SacctOptions are the settings of ReadSacct.
type SacctOptions struct {
	// SkipBad skips and counts (Sacct.Bad) a record with a missing or malformed
	// field instead of returning an error.
	SkipBad bool
	// MaxValue bounds every number of seconds (run times, limits); 0 is no bound
	// beyond int64's.
	MaxValue int64
	// Location is the time zone sacct printed its times in (sacct prints local
	// times, in the zone of its TZ, without saying which): nil is time.Local, the
	// zone of this process's TZ. A time that does not exist there (in a
	// daylight-saving gap) makes its record impossible; a time that exists twice
	// (the hour repeated when clocks go back) is read as the first. A time with
	// its UTC offset (SLURM_TIME_FORMAT="%Y-%m-%dT%H:%M:%S%z":
	// "2023-02-21T14:37:02+0100") is read as it says, whatever Location.
	Location *time.Location
	// MaxJobs bounds the records kept (0: DefaultMaxJobs); one more is an error,
	// so that a huge or endless input fails clearly instead of exhausting memory.
	MaxJobs int
	// MaxHosts is the number of hosts of the machine the history is read for
	// (0: not known). A NodeList is counted before a name of it is made, so that
	// what a record costs follows the machine, not the names it lists (eight
	// lines of n[0-4194303] took 35 s and 531 MB): one naming more than MaxHosts
	// hosts is not read. Its job is then larger than the machine when its size
	// (NNodes, else NCPUS) is too, and kept without a NodeList, for the replay to
	// refuse or drop (sim's DropLarger) by its size like any job larger than the
	// machine; otherwise the record is malformed (a *SacctLineError naming the
	// job, or skipped with SkipBad). Without a machine, a NodeList of more than
	// MaxHistoryHosts names is malformed.
	MaxHosts int
	// Hosts are the machine's host names, when its replay reads every NodeList
	// by name (sim's as-run and partitions, plan); nil: not checked. A NodeList
	// naming a host not in Hosts, of a job that fits the machine (MaxHosts), is a
	// malformed record (a *SacctLineError naming the job and the host, as the
	// as-run replay words it, "recorded node %q is not a host of HostsOf"; or
	// skipped with SkipBad), found at its line and not after the whole history
	// is read. Each distinct name of the history is looked up once.
	Hosts *hostlist.Table
	// HostsOf names the machine of Hosts in that message (its spec, or "the
	// network FILE"); "" is "the machine".
	HostsOf string
	// MarkHosts, with Hosts, keeps a record naming a host not in Hosts, with
	// the error it would have had in its job's NotHost, rather than refusing or
	// skipping it: the caller refuses or skips the jobs it replays (sim with a
	// window: a job outside it is not replayed and is not refused).
	MarkHosts bool
}

// NotHostError is a record's NodeList naming a host not in SacctOptions.Hosts
// (wrapped in the record's *SacctLineError, or its job's NotHost): a
// history naming retired or renamed nodes; sim's and plan's DropUnknownHosts
// drop such jobs instead.
type NotHostError struct {
	Job, Host string // the job id and the host, clipped
	HostsOf   string // the machine of Hosts (SacctOptions.HostsOf)
}

// Error names the job, the host and the machine it is not a host of.
func (e *NotHostError) Error() string {
	return fmt.Sprintf("job %s: recorded node %q is not a host of %s", e.Job, e.Host, e.HostsOf)
}

// MaxHistoryHosts bounds the distinct host names of a history's NodeLists
// (Sacct.Hosts), or SacctOptions.MaxHosts when that is larger: a record whose
// list, its names counted as new, would pass it is malformed. It bounds one
// NodeList's names too when the machine is not known. It is MaxConfNodes, five
// times the largest machine procalloc is built for, some 130 MB of names.
const MaxHistoryHosts = MaxConfNodes

// DefaultMaxJobs is the number of jobs ReadSacct keeps at most unless
// SacctOptions.MaxJobs says otherwise: more than the largest logs of the Parallel
// Workloads Archive (about a million jobs), a few hundred MB of records.
const DefaultMaxJobs = 2_000_000

// Job states Slurm's sacct prints (slurm.h's job_state_string and the flags it
// names); a record in any other state is impossible.
var sacctStates = map[string]bool{
	"PENDING": true, "RUNNING": true, "SUSPENDED": true, "COMPLETED": true, "CANCELLED": true, "FAILED": true,
	"TIMEOUT": true, "NODE_FAIL": true, "PREEMPTED": true, "BOOT_FAIL": true, "DEADLINE": true, "OUT_OF_MEMORY": true,
	"COMPLETING": true, "CONFIGURING": true, "RESIZING": true, "REQUEUED": true, "REQUEUE_FED": true,
	"REQUEUE_HOLD": true, "SPECIAL_EXIT": true, "STOPPED": true, "REVOKED": true, "RESV_DEL_HOLD": true,
	"SIGNALING": true, "STAGE_OUT": true, "LAUNCH_FAILED": true, "UPDATE_DB": true, "RECONFIG_FAIL": true,
	"POWER_UP_NODE": true,
}

// Reasons a record is impossible (counted in Sacct.Impossible and skipped): its
// times contradict each other, or it names a state Slurm does not have. Times
// read in the wrong zone across a daylight-saving switch show up here.
const (
	ImpossibleStartBeforeSubmit = "starts before it was submitted"
	ImpossibleEndBeforeStart    = "ends before it starts"
	ImpossibleElapsed           = "ElapsedRaw longer than End - Start"
	ImpossibleTime              = "a time that does not exist in the time zone (daylight-saving gap)"
	ImpossibleState             = "a state Slurm does not have"
)

// SacctJob is one job of sacct's output that ran to its end.
type SacctJob struct {
	ID            int   // the job id's leading number (1234 of 1234_7); 0 when it has none
	Line          int   // the record's line (1-based)
	Submit, Start int64 // Unix seconds (the times sacct prints, read in SacctOptions.Location)
	Runtime       int64 // seconds
	Limit         int64 // seconds; -1 unknown (UNLIMITED, Partition_Limit)
	Size          int   // NNodes, else NCPUS
	// NodeList is sacct's NodeList as a list of Sacct.Hosts (in the expression's
	// order); empty when the field is absent or empty, and for a job larger than
	// the machine (SacctOptions.MaxHosts), whose list is not read.
	NodeList hostlist.List
	// Components is the number of components of a heterogeneous job (JobID
	// 123+0, 123+1, ...) this job stands for, 1 for any other job (see ReadSacct).
	Components int
	// Partition is sacct's Partition, blanks trimmed: the partition the job ran in
	// (a comma-separated list for a job submitted to several that sacct recorded
	// so, and for a heterogeneous job whose components ran in different
	// partitions: each name once, in order); "" when the column is absent or
	// empty.
	Partition string
	// NotHost, with SacctOptions.MarkHosts, is the error of the record naming
	// a host not in SacctOptions.Hosts (of a heterogeneous job, its first such
	// component's); nil when every host is one.
	NotHost *SacctLineError
}

// Sacct is what ReadSacct read: the jobs in file order (of a requeued job its last
// run), what was skipped and why, the impossible records skipped (by reason, the
// Impossible* constants) and the malformed records skipped with SkipBad.
type Sacct struct {
	Jobs       []SacctJob     // in file order; of a requeued job its last run
	Skipped    map[string]int // records not replayed, by reason (job steps, pending, ...)
	Impossible map[string]int // records whose times or state contradict, by Impossible* reason
	Bad        int            // malformed records skipped (SkipBad)
	// HetJobs is the number of heterogeneous jobs whose components were joined
	// into one job each (SacctJob.Components); Joined the component records
	// joined into an earlier component's job (not in Jobs themselves).
	HetJobs, Joined int
	// Hosts numbers the host names of the jobs' node lists, each stored once.
	Hosts *hostlist.Table
	// Location is the zone the times were read in.
	Location *time.Location
}

// maxSacctLine is the longest line of sacct output: a job's NodeList is a
// compressed hostlist, far shorter even for a job on every node of a large machine.
const maxSacctLine = 1 << 20

// SacctLineError is a malformed record: its line, its text (clipped to 120 bytes) and
// what is wrong; the one line error of procalloc's text readers.
type SacctLineError = textin.LineError

// LooksLikeSacct reports whether the first non-blank line of data (the start of a
// file) is a '|'-separated header naming the job id.
func LooksLikeSacct(data []byte) bool {
	for _, l := range strings.Split(strings.TrimPrefix(string(data), textin.BOM), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !strings.Contains(l, "|") {
			return false
		}
		for _, f := range strings.Split(l, "|") {
			if f == "JobID" || f == "JobIDRaw" {
				return true
			}
		}
		return false
	}
	return false
}

// SacctFormHint says which sacct option made line, the first line of a file, other
// than the `sacct -P` output ReadSacct reads, and what to run instead; "" when it
// looks like none of them. sacct prints (src/common/print_fields.c, Slurm 22.05):
// without -p/-P a table of fixed-width columns (headers cut to the width,
// "TimelimitR", and values cut with '+'); with --delimiter=C and -P the fields
// separated by C; with -n no header line, so that the fields cannot be told apart.
func SacctFormHint(line string) string {
	t := strings.TrimSpace(line)
	names := func(sep string) int {
		n := 0
		for _, f := range strings.Split(t, sep) {
			switch strings.TrimSpace(f) {
			case "JobID", "JobIDRaw", "Submit", "Start", "End", "State", "NNodes", "NCPUS", "NodeList":
				n++
			}
		}
		return n
	}
	switch {
	case t == "":
		return ""
	case !strings.Contains(t, "|") && (names(" ") >= 2 || sacctTableRecordRe.MatchString(t)):
		return "this is sacct's table (fixed-width columns, long values cut): run sacct with -P (-o " + SacctFields + ")"
	case !strings.Contains(t, "|") && strings.HasPrefix(t, "JobID"):
		if i := strings.IndexFunc(t, func(c rune) bool {
			return !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
		}); i >= 0 {
			return fmt.Sprintf("the header's fields are separated by %q (sacct --delimiter): procalloc reads sacct -P's '|' (a NodeList holds ','); run sacct -P without --delimiter", t[i:i+1])
		}
	case strings.Contains(t, "|") && names("|") == 0 && sacctRecordRe.MatchString(t):
		return "a record where the header should be (sacct -n/--noheader): procalloc finds the fields by the header's names; run sacct -P without -n"
	}
	return ""
}

// sacctRecordRe matches a '|'-separated line holding a job id and a time as sacct
// prints them: a record.
var sacctRecordRe = regexp.MustCompile(`^\d+([_+.][^|]*)?\|(.*\|)?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|Unknown|None)(\||$)`)

// sacctTableRecordRe matches a record of sacct's table (no -P) without its header
// (-n): a job id, then a time among blank-separated columns.
var sacctTableRecordRe = regexp.MustCompile(`^\d+([_+.]\S*)?\s+(\S+\s+)*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\s|$)`)

// ReadSacct reads `sacct -P` output (see SacctFields). Procs is NNodes (whole-node
// allocation), else NCPUS. The limit is the estimate; UNLIMITED and Partition_Limit
// are unknown (-1). Skipped and counted in Sacct.Skipped: job steps (ids with a
// '.'), pending jobs, jobs cancelled before they started, jobs still running, and
// earlier runs of a requeued job (the same id again: its last record is kept). A
// record with a missing or malformed field is a *SacctLineError, or skipped and
// counted (Sacct.Bad) with SkipBad. Times are read in SacctOptions.Location.
// Impossible records are skipped and counted by reason in Sacct.Impossible: Start
// before Submit, End before Start, ElapsedRaw longer than End - Start (shorter is
// time spent suspended, which Slurm leaves out of ElapsedRaw: ElapsedRaw is the
// run time then), a time in a daylight-saving gap, a state Slurm does not have.
// More than SacctOptions.MaxJobs jobs is an error. Output of several clusters
// (sacct -L or -M a,b) is refused (ErrSeveralClusters): by a Cluster column naming
// more than one, or without it by a job id whose two records ran at the same time
// (they would be taken for a requeued job's runs).
//
// A heterogeneous job's components (JobID 123+0, 123+1, ...; sbatch's `:`
// syntax) are one job: Slurm schedules all of them at the same time or defers
// them all (doc/html/heterogeneous_jobs.shtml, "System Administrator
// Information"), so a replay must not start them apart. The job is at the place of
// its first component, with the het job's id (123), the earliest Submit and
// Start, the sum of the sizes, the node lists one after the other, the run time to
// the last component's end and the longest limit (unknown if one is unknown);
// Components counts them. Only the JobID field names components: with JobIDRaw
// alone (each component's own id) and in sacct --completion's output
// (jobcomp/filetxt, which prints no het fields) they are separate jobs.
func ReadSacct(r io.Reader, opt SacctOptions) (*Sacct, error) {
	limit := opt.MaxValue
	if limit <= 0 || limit > math.MaxInt64/4 {
		limit = math.MaxInt64 / 4 // sums of three stay in int64
	}
	loc := opt.Location
	if loc == nil {
		loc = time.Local
	}
	maxJobs := opt.MaxJobs
	if maxJobs <= 0 {
		maxJobs = DefaultMaxJobs
	}
	maxList, maxNames := opt.MaxHosts, max(MaxHistoryHosts, opt.MaxHosts)
	if maxList <= 0 {
		maxList = MaxHistoryHosts
	}
	t := &Sacct{Skipped: map[string]int{}, Impossible: map[string]int{}, Location: loc, Hosts: hostlist.NewTable()}
	// The history's names checked against opt.Hosts: those of ids below
	// checked, the ids not on the machine in unknown (ascending: ids are given
	// in order). A name a record refused here stays in the table (as a dropped
	// earlier run's names do), in unknown, so that a later record naming it is
	// refused too.
	checked, unknown := 0, []int32(nil)
	hostsOf := opt.HostsOf
	if hostsOf == "" {
		hostsOf = "the machine"
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxSacctLine)
	line := 0
	col := map[string]int{}
	var header []string
	type rec struct {
		job SacctJob
		id  string // "" once a later run of the job replaced it
		het int    // the heterogeneous job's id of a component (JobID 123+1: 123); -1 for other jobs
		end int64  // End, Unix seconds
	}
	// The clusters of a Cluster column, in order of appearance, and a line of each.
	var clusters []string
	clusterLine := map[string]int{}
	var recs []rec
	last := map[string]int{} // job id -> index in recs
	get := func(f []string, names ...string) (string, bool) {
		for _, n := range names {
			if i, ok := col[n]; ok {
				return f[i], true
			}
		}
		return "", false
	}
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, textin.BOM) // a file saved by Windows Notepad
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		f := strings.Split(text, "|")
		if header == nil {
			header = f
			for i, h := range f {
				col[strings.TrimSpace(h)] = i
			}
			var missing []string
			for _, need := range [][]string{{"JobIDRaw", "JobID"}, {"Submit"}, {"Start"}, {"End"}, {"NNodes", "NCPUS"}, {"State"}} {
				found := false
				for _, n := range need {
					_, ok := col[n]
					found = found || ok
				}
				if !found {
					missing = append(missing, strings.Join(need, " or "))
				}
			}
			if len(missing) > 0 {
				if hint := SacctFormHint(text); hint != "" {
					return nil, &SacctLineError{Line: line, Text: textin.Clip(text), Err: errors.New(hint)}
				}
				return nil, &SacctLineError{Line: line, Text: textin.Clip(text), Err: fmt.Errorf("sacct header lacks %s (run sacct -P -o %s)", strings.Join(missing, ", "), SacctFields)}
			}
			continue
		}
		// sacct -P ends a record with a '|' when told --parsable; both are accepted.
		if len(f) == len(header)+1 && f[len(f)-1] == "" {
			f = f[:len(f)-1]
		}
		bad := func(err error) error {
			if opt.SkipBad {
				t.Bad++
				return nil
			}
			return &SacctLineError{Line: line, Text: textin.Clip(text), Err: err}
		}
		if len(f) != len(header) {
			if err := bad(fmt.Errorf("%d fields, the header has %d", len(f), len(header))); err != nil {
				return nil, err
			}
			continue
		}
		id, _ := get(f, "JobIDRaw", "JobID")
		runKey := id // a job's runs share it: its id, of its cluster
		if c, ok := get(f, "Cluster"); ok {
			if c = strings.TrimSpace(c); c != "" {
				if _, seen := clusterLine[c]; !seen {
					clusterLine[c] = line
					clusters = append(clusters, c)
				}
			}
			runKey = c + "|" + id
		}
		state, _ := get(f, "State")
		state, _, _ = strings.Cut(strings.TrimSpace(state), " ") // "CANCELLED by 1234" -> CANCELLED
		submitS, _ := get(f, "Submit")
		startS, _ := get(f, "Start")
		endS, _ := get(f, "End")
		nodeList, _ := get(f, "NodeList")
		partition, _ := get(f, "Partition")
		// No nodes: slurmdbd's "None assigned"; sacct --completion (jobcomp/filetxt)
		// prints the file's "(null)" for a job cancelled while pending.
		noNodes := nodeList == "None assigned" || nodeList == "(null)"
		switch {
		case id == "":
			if err := bad(fmt.Errorf("empty job id")); err != nil {
				return nil, err
			}
			continue
		case state == "":
			if err := bad(fmt.Errorf("empty State")); err != nil {
				return nil, err
			}
			continue
		case !sacctStates[state]:
			t.Impossible[ImpossibleState]++
			continue
		case strings.Contains(id, "."):
			t.Skipped["job steps"]++
			continue
		case state == "PENDING" || (noTime(startS) || noNodes) && state != "CANCELLED":
			t.Skipped["pending (never started)"]++
			continue
		case noTime(startS) || noNodes:
			// sacct gives a job cancelled while pending Start = End = the cancel time.
			t.Skipped["cancelled before start"]++
			continue
		case state == "RUNNING" || noTime(endS):
			t.Skipped["still running"]++
			continue
		}
		submit, err1 := sacctTime(submitS, loc)
		start, err2 := sacctTime(startS, loc)
		end, err3 := sacctTime(endS, loc)
		if err := firstErr(err1, err2, err3); err != nil {
			if errors.Is(err, errNoSuchTime) {
				t.Impossible[ImpossibleTime]++
				continue
			}
			if err := bad(err); err != nil {
				return nil, err
			}
			continue
		}
		j := SacctJob{Line: line, Submit: submit.Unix(), Start: start.Unix(), Partition: strings.TrimSpace(partition)}
		// Unix seconds, not time.Time.Sub, which saturates at 292 years.
		run := end.Unix() - start.Unix()
		if j.Start < j.Submit {
			t.Impossible[ImpossibleStartBeforeSubmit]++
			continue
		}
		if run < 0 {
			t.Impossible[ImpossibleEndBeforeStart]++
			continue
		}
		wall := run
		if v, ok := get(f, "ElapsedRaw"); ok && v != "" {
			e, err := strconv.ParseInt(v, 10, 64)
			if err != nil || e < 0 {
				if err := bad(fmt.Errorf("ElapsedRaw %q is not a number of seconds", v)); err != nil {
					return nil, err
				}
				continue
			}
			if e > limit {
				if err := bad(fmt.Errorf("ElapsedRaw %d: %w (at most %d seconds)", e, ErrRange, limit)); err != nil {
					return nil, err
				}
				continue
			}
			if e > wall {
				t.Impossible[ImpossibleElapsed]++
				continue
			}
			run = e
		} else if v, ok := get(f, "Elapsed"); ok && v != "" {
			e, err := slurmDuration(v, limit)
			if err != nil {
				if err := bad(fmt.Errorf("field Elapsed %q: %w", v, err)); err != nil {
					return nil, err
				}
				continue
			}
			if e > wall {
				t.Impossible[ImpossibleElapsed]++
				continue
			}
			run = e
		}
		if run > limit {
			// End - Start without ElapsedRaw or Elapsed: bounded like them.
			if err := bad(fmt.Errorf("run time End - Start %d s: %w (at most %d seconds)", run, ErrRange, limit)); err != nil {
				return nil, err
			}
			continue
		}
		j.Runtime = run
		j.Limit = -1
		var err error
		if v, ok := get(f, "TimelimitRaw"); ok {
			if j.Limit, err = sacctLimit(v, true, limit); err != nil {
				if err := bad(fmt.Errorf("field TimelimitRaw %q: %w", v, err)); err != nil {
					return nil, err
				}
				continue
			}
		} else if v, ok := get(f, "Timelimit"); ok {
			if j.Limit, err = sacctLimit(v, false, limit); err != nil {
				if err := bad(fmt.Errorf("field Timelimit %q: %w", v, err)); err != nil {
					return nil, err
				}
				continue
			}
		}
		size, _ := get(f, "NNodes", "NCPUS")
		p, err := strconv.Atoi(size)
		if err != nil || p < 1 {
			if err := bad(fmt.Errorf("job size %q is not a positive number", size)); err != nil {
				return nil, err
			}
			continue
		}
		j.Size = p
		if v := nodeList; v != "" {
			// Counted first (Expand's errors), so that a record refused here adds
			// no name to the table; then read into it without making each name
			// (hostlist.Table.Parse: 3,000 jobs of 10^5-node machines took 34 s
			// through Expand).
			count, err := hostlist.Count(v)
			if err != nil {
				if err := bad(fmt.Errorf("NodeList: %w", err)); err != nil {
					return nil, err
				}
				continue
			}
			if _, nn := col["NNodes"]; nn && count != p {
				if err := bad(fmt.Errorf("NodeList %s names %d nodes, NNodes says %d", textin.Clip(v), count, p)); err != nil {
					return nil, err
				}
				continue
			}
			switch {
			case count <= maxList && t.Hosts.Len()+count > maxNames:
				// Before the names are added (counting the list's names all new),
				// so that the table stays within the bound, SkipBad or not.
				if err := bad(fmt.Errorf("job %s: NodeList of %d hosts, with the %d distinct hosts of the records before: more than %d (slurm.MaxHistoryHosts), more hosts than a machine has", textin.Clip(id), count, t.Hosts.Len(), maxNames)); err != nil {
					return nil, err
				}
				continue
			case count <= maxList:
				if j.NodeList, err = t.Hosts.Parse(v); err != nil { // unreachable: counted
					if err := bad(fmt.Errorf("NodeList: %w", err)); err != nil {
						return nil, err
					}
					continue
				}
				if opt.Hosts == nil || opt.MaxHosts > 0 && p > opt.MaxHosts {
					break // not checked; a job larger than the machine is refused by its size
				}
				for ; checked < t.Hosts.Len(); checked++ {
					if _, ok := opt.Hosts.ID(t.Hosts.Name(int32(checked))); !ok {
						unknown = append(unknown, int32(checked))
					}
				}
				if h, ok := firstOf(j.NodeList, unknown); ok {
					var err error = &NotHostError{Job: textin.Clip(id), Host: textin.Clip(h), HostsOf: hostsOf}
					if opt.MarkHosts {
						j.NotHost = &SacctLineError{Line: line, Text: textin.Clip(text), Err: err}
						break
					}
					if err := bad(err); err != nil {
						return nil, err
					}
					continue
				}
			case opt.MaxHosts <= 0:
				if err := bad(fmt.Errorf("job %s: NodeList names %d hosts, more than %d, the most a history read here may list in one job (slurm.MaxHistoryHosts; a typo?)", textin.Clip(id), count, maxList)); err != nil {
					return nil, err
				}
				continue
			case p <= maxList:
				if err := bad(fmt.Errorf("job %s: NodeList names %d hosts, more than the machine's %d, for a job of %d", textin.Clip(id), count, maxList, p)); err != nil {
					return nil, err
				}
				continue
			}
			// Else a job larger than the machine: kept without its NodeList,
			// refused or dropped by its size.
		}
		if digits := strings.FieldsFunc(id, func(r rune) bool { return r < '0' || r > '9' }); len(digits) > 0 {
			if n, err := strconv.Atoi(digits[0]); err == nil {
				j.ID = n // 1234 of 1234, 1234_7 or 1234+0
			}
		}
		het := -1
		if v, ok := col["JobID"]; ok {
			if lead, off, ok := strings.Cut(f[v], "+"); ok && allDigits(lead) && allDigits(off) {
				if n, err := strconv.Atoi(lead); err == nil {
					het = n
				}
			}
		}
		j.Components = 1
		if i, again := last[runKey]; again {
			if p := recs[i].job; j.Start < recs[i].end && p.Start < end.Unix() {
				// The runs overlap: no requeued job does that (a requeue ends a run
				// before the next one starts). Jobs of two clusters (sacct -L,
				// -M a,b) have their own ids, which repeat.
				// Not a *SacctLineError: no record is malformed, and SkipBad
				// cannot skip the file's other cluster.
				return nil, fmt.Errorf("line %d: job %s ran at the same time as job %s of line %d, which a requeued job's runs cannot: %w; add Cluster to sacct's -o to see them, and run sacct -M NAME for one cluster", line, textin.Clip(id), textin.Clip(id), p.Line, ErrSeveralClusters)
			}
			// A requeued job: sacct -D lists every run; the last one is replayed.
			t.Skipped["earlier runs of requeued jobs"]++
			recs[i].id = "" // dropped below
		}
		if len(recs) >= maxJobs {
			return nil, fmt.Errorf("line %d: more than %d jobs: %w (raise the cap: SacctOptions.MaxJobs, procalloc's --max-jobs)", line, maxJobs, ErrTooManyJobs)
		}
		last[runKey] = len(recs)
		recs = append(recs, rec{job: j, id: id, het: het, end: end.Unix()})
	}
	if err := sc.Err(); err != nil {
		return nil, textin.ScanErr(err, line+1, maxSacctLine)
	}
	if header == nil {
		return nil, fmt.Errorf("empty sacct output")
	}
	if len(clusters) > 1 {
		var named []string
		for _, c := range clusters {
			named = append(named, fmt.Sprintf("%s (line %d)", textin.Clip(c), clusterLine[c]))
		}
		return nil, fmt.Errorf("%w: %d clusters, %s, whose job ids repeat across clusters; replay one: run sacct -M NAME, or keep the lines of one Cluster", ErrSeveralClusters, len(clusters), strings.Join(named, ", "))
	}
	hetAt := map[int]int{} // het job id -> its job in t.Jobs
	for _, r := range recs {
		if r.id == "" {
			continue
		}
		if r.het < 0 {
			t.Jobs = append(t.Jobs, r.job)
			continue
		}
		i, seen := hetAt[r.het]
		if !seen {
			hetAt[r.het] = len(t.Jobs)
			r.job.ID = r.het
			t.Jobs = append(t.Jobs, r.job)
			continue
		}
		if t.Jobs[i].Components == 1 {
			t.HetJobs++
		}
		t.Joined++
		t.Jobs[i] = joinComponent(t.Jobs[i], r.job, t.Hosts)
	}
	return t, nil
}

// joinComponent is the job of a heterogeneous job's components a and c: they start
// together, at the earliest Start (Slurm starts them at one time), hold their nodes
// together to the last component's end, and have the longest limit.
func joinComponent(a, c SacctJob, hosts *hostlist.Table) SacctJob {
	start := min(a.Start, c.Start)
	end := max(a.Start+a.Runtime, c.Start+c.Runtime)
	switch {
	case a.Limit < 0 || c.Limit < 0:
		a.Limit = -1
	default:
		a.Limit = max(a.Limit, c.Limit)
	}
	a.Submit, a.Start, a.Runtime = min(a.Submit, c.Submit), start, end-start
	a.Size += c.Size
	if a.NodeList.Len() > 0 || c.NodeList.Len() > 0 {
		a.NodeList = hosts.List(append(a.NodeList.Names(), c.NodeList.Names()...))
	}
	a.Components += c.Components
	a.Partition = joinPartitions(a.Partition, c.Partition)
	if a.NotHost == nil {
		a.NotHost = c.NotHost
	}
	return a
}

// joinPartitions is the partition field of a heterogeneous job whose components
// ran in partitions a and c: a's names, then those of c that a lacks, comma
// separated.
func joinPartitions(a, c string) string {
	if a == c || c == "" {
		return a
	}
	if a == "" {
		return c
	}
	names := strings.Split(a, ",")
	for _, n := range strings.Split(c, ",") {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ",")
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// sacctLimit reads a time limit: minutes (TimelimitRaw) or [DD-[HH:]]MM:SS
// (Timelimit); UNLIMITED, Partition_Limit, INVALID and empty are unknown (-1).
func sacctLimit(v string, raw bool, limit int64) (int64, error) {
	switch v {
	case "UNLIMITED", "Partition_Limit", "", "INVALID":
		return -1, nil
	}
	if !raw {
		return slurmDuration(v, limit)
	}
	m, err := strconv.ParseInt(v, 10, 64)
	if err != nil || m < 0 {
		return -1, fmt.Errorf("want minutes, UNLIMITED or Partition_Limit")
	}
	if m > limit/60 {
		return -1, fmt.Errorf("%d minutes: %w (at most %d seconds)", m, ErrRange, limit)
	}
	return m * 60, nil
}

func noTime(s string) bool {
	return s == "" || s == "Unknown" || s == "None" || s == "N/A"
}

// ErrSeveralClusters is wrapped by the error of sacct output of several clusters
// (sacct -L, or -M with several names): each cluster numbers its jobs, so ids
// repeat, and one history is replayed on one machine.
var ErrSeveralClusters = errors.New("sacct output of several clusters")

// ErrTooManyJobs is wrapped by the error of an input with more jobs than the cap.
var ErrTooManyJobs = errors.New("too many jobs")

var errNoSuchTime = errors.New("no such time in the zone")

const sacctLayout = "2006-01-02T15:04:05"

// sacctLayoutOffset is sacct's time under SLURM_TIME_FORMAT="%Y-%m-%dT%H:%M:%S%z",
// which tools reading sacct set so that its times say their zone (Open OnDemand's
// Slurm adapter, the ceems exporter): "2023-02-21T14:37:02+0100".
const sacctLayoutOffset = "2006-01-02T15:04:05-0700"

// sacctTime reads a time sacct printed in zone loc, or with its UTC offset (then
// loc does not apply); a time that does not exist in loc (skipped when the clocks
// went forward) is errNoSuchTime: time.Date would silently move it by the gap.
func sacctTime(s string, loc *time.Location) (time.Time, error) {
	if len(s) == len(sacctLayoutOffset) && (s[19] == '+' || s[19] == '-') {
		if t, err := time.Parse(sacctLayoutOffset, s); err == nil && t.Format(sacctLayoutOffset) == s {
			return t, nil
		}
	}
	t, err := time.ParseInLocation(sacctLayout, s, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: want YYYY-MM-DDTHH:MM:SS, sacct's standard format (another comes from SLURM_TIME_FORMAT: run sacct with SLURM_TIME_FORMAT=standard)", s)
	}
	if t.Format(sacctLayout) != s {
		return time.Time{}, fmt.Errorf("time %s in %s: %w", s, loc, errNoSuchTime)
	}
	return t, nil
}

// slurmDuration reads Slurm's [DD-[HH:]]MM:SS durations.
func slurmDuration(s string, limit int64) (int64, error) {
	days := int64(0)
	if d, rest, ok := strings.Cut(s, "-"); ok {
		v, err := strconv.ParseInt(d, 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("bad days")
		}
		days, s = v, rest
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("want [DD-[HH:]]MM:SS")
	}
	var total int64
	for _, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("want [DD-[HH:]]MM:SS")
		}
		if v > limit || total > limit/60 {
			return 0, fmt.Errorf("%w (at most %d seconds)", ErrRange, limit)
		}
		total = total*60 + v
	}
	if days > limit/86400 || days*86400+total > limit {
		return 0, fmt.Errorf("%w (at most %d seconds)", ErrRange, limit)
	}
	return days*86400 + total, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// firstOf is the first name of l, in l's order, whose id is in ids (ascending),
// looked up run by run.
func firstOf(l hostlist.List, ids []int32) (string, bool) {
	if len(ids) == 0 {
		return "", false
	}
	for first, length := range l.Runs() {
		if i, _ := slices.BinarySearch(ids, first); i < len(ids) && ids[i] < first+length {
			return l.Table().Name(ids[i]), true
		}
	}
	return "", false
}
