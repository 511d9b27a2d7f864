package slurm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// SacctFields are the sacct fields ReadSacct uses: the job id (JobIDRaw, else
// JobID), Submit, Start, End, the run time (ElapsedRaw, else Elapsed, else End -
// Start), the limit (TimelimitRaw in minutes, else Timelimit), the size (NNodes, else
// NCPUS), State and NodeList; others (Partition, ...) are ignored. Produce them with
//
//	sacct -X -P -a -S 2026-01-01 -E 2026-02-01 \
//	  -o JobIDRaw,Submit,Start,End,ElapsedRaw,TimelimitRaw,NNodes,NCPUS,State,Partition,NodeList
const SacctFields = "JobIDRaw,Submit,Start,End,ElapsedRaw,TimelimitRaw,NNodes,NCPUS,State,Partition,NodeList"

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
}

// SacctJob is one job of sacct's output that ran to its end.
type SacctJob struct {
	ID            int      // the job id's leading number (1234 of 1234_7); 0 when it has none
	Line          int      // the record's line (1-based)
	Submit, Start int64    // Unix seconds, the times sacct prints read as UTC
	Runtime       int64    // seconds
	Limit         int64    // seconds; -1 unknown (UNLIMITED, Partition_Limit)
	Size          int      // NNodes, else NCPUS
	NodeList      []string // NodeList expanded; nil when the field is absent or empty
}

// Sacct is what ReadSacct read: the jobs in file order (of a requeued job its last
// run), what was skipped and why, and the malformed records skipped with SkipBad.
type Sacct struct {
	Jobs    []SacctJob
	Skipped map[string]int
	Bad     int
}

// SacctLineError is a malformed record: its line, its text (clipped to 120 bytes) and
// what is wrong.
type SacctLineError struct {
	Line int
	Text string
	Err  error
}

func (e *SacctLineError) Error() string {
	return fmt.Sprintf("line %d: %v: %q", e.Line, e.Err, e.Text)
}
func (e *SacctLineError) Unwrap() error { return e.Err }

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// LooksLikeSacct reports whether the first non-blank line of data (the start of a
// file) is a '|'-separated header naming the job id.
func LooksLikeSacct(data []byte) bool {
	for _, l := range strings.Split(string(data), "\n") {
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

// ReadSacct reads `sacct -P` output (see SacctFields). Procs is NNodes (whole-node
// allocation), else NCPUS. The limit is the estimate; UNLIMITED and Partition_Limit
// are unknown (-1). Skipped and counted in Sacct.Skipped: job steps (ids with a
// '.'), pending jobs, jobs cancelled before they started, jobs still running, and
// earlier runs of a requeued job (the same id again: its last record is kept). A
// record with a missing or malformed field is a *SacctLineError, or skipped and
// counted (Sacct.Bad) with SkipBad.
func ReadSacct(r io.Reader, opt SacctOptions) (*Sacct, error) {
	limit := opt.MaxValue
	if limit <= 0 || limit > math.MaxInt64/4 {
		limit = math.MaxInt64 / 4 // sums of three stay in int64
	}
	t := &Sacct{Skipped: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	col := map[string]int{}
	var header []string
	type rec struct {
		job SacctJob
		id  string // "" once a later run of the job replaced it
	}
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
				return nil, &SacctLineError{line, clip(text), fmt.Errorf("sacct header lacks %s (run sacct -P -o %s)", strings.Join(missing, ", "), SacctFields)}
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
			return &SacctLineError{line, clip(text), err}
		}
		if len(f) != len(header) {
			if err := bad(fmt.Errorf("%d fields, the header has %d", len(f), len(header))); err != nil {
				return nil, err
			}
			continue
		}
		id, _ := get(f, "JobIDRaw", "JobID")
		state, _ := get(f, "State")
		state, _, _ = strings.Cut(strings.TrimSpace(state), " ") // "CANCELLED by 1234" -> CANCELLED
		submitS, _ := get(f, "Submit")
		startS, _ := get(f, "Start")
		endS, _ := get(f, "End")
		nodeList, _ := get(f, "NodeList")
		switch {
		case id == "":
			if err := bad(fmt.Errorf("empty job id")); err != nil {
				return nil, err
			}
			continue
		case strings.Contains(id, "."):
			t.Skipped["job steps"]++
			continue
		case state == "PENDING" || (noTime(startS) || nodeList == "None assigned") && state != "CANCELLED":
			t.Skipped["pending (never started)"]++
			continue
		case noTime(startS) || nodeList == "None assigned":
			// sacct gives a job cancelled while pending Start = End = the cancel time.
			t.Skipped["cancelled before start"]++
			continue
		case state == "RUNNING" || noTime(endS):
			t.Skipped["still running"]++
			continue
		}
		submit, err1 := sacctTime(submitS)
		start, err2 := sacctTime(startS)
		end, err3 := sacctTime(endS)
		if err := firstErr(err1, err2, err3); err != nil {
			if err := bad(err); err != nil {
				return nil, err
			}
			continue
		}
		j := SacctJob{Line: line, Submit: submit.Unix(), Start: start.Unix()}
		// Unix seconds, not time.Time.Sub, which saturates at 292 years.
		run := end.Unix() - start.Unix()
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
			run = e
		} else if v, ok := get(f, "Elapsed"); ok && v != "" {
			e, err := slurmDuration(v, limit)
			if err != nil {
				if err := bad(fmt.Errorf("field Elapsed %q: %w", v, err)); err != nil {
					return nil, err
				}
				continue
			}
			run = e
		}
		if run < 0 {
			if err := bad(fmt.Errorf("ends before it starts")); err != nil {
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
			hosts, err := hostlist.Expand(v)
			if err != nil {
				if err := bad(fmt.Errorf("NodeList: %w", err)); err != nil {
					return nil, err
				}
				continue
			}
			if _, nn := col["NNodes"]; nn && len(hosts) != p {
				if err := bad(fmt.Errorf("NodeList %s names %d nodes, NNodes says %d", v, len(hosts), p)); err != nil {
					return nil, err
				}
				continue
			}
			j.NodeList = hosts
		}
		if digits := strings.FieldsFunc(id, func(r rune) bool { return r < '0' || r > '9' }); len(digits) > 0 {
			if n, err := strconv.Atoi(digits[0]); err == nil {
				j.ID = n // 1234 of 1234, 1234_7 or 1234+0
			}
		}
		if i, again := last[id]; again {
			// A requeued job: sacct -D lists every run; the last one is replayed.
			t.Skipped["earlier runs of requeued jobs"]++
			recs[i].id = "" // dropped below
		}
		last[id] = len(recs)
		recs = append(recs, rec{job: j, id: id})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if header == nil {
		return nil, fmt.Errorf("empty sacct output")
	}
	for _, r := range recs {
		if r.id != "" {
			t.Jobs = append(t.Jobs, r.job)
		}
	}
	return t, nil
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
	if err != nil || m < 0 || m > 1<<40 {
		return -1, fmt.Errorf("want minutes, UNLIMITED or Partition_Limit")
	}
	return m * 60, nil
}

func noTime(s string) bool {
	return s == "" || s == "Unknown" || s == "None" || s == "N/A"
}

func sacctTime(s string) (time.Time, error) {
	t, err := time.Parse("2006-01-02T15:04:05", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: want YYYY-MM-DDTHH:MM:SS", s)
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
