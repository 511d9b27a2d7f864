package sim

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// SacctFields are the sacct fields ReadTrace uses: the job id (JobIDRaw, else
// JobID), Submit, Start, End, the run time (ElapsedRaw, else Elapsed, else End -
// Start), the limit (TimelimitRaw in minutes, else Timelimit), the size (NNodes, else
// NCPUS), State and NodeList; others (Partition, ...) are ignored. Produce them with
//
//	sacct -X -P -a -S 2026-01-01 -E 2026-02-01 \
//	  -o JobIDRaw,Submit,Start,End,ElapsedRaw,TimelimitRaw,NNodes,NCPUS,State,Partition,NodeList
const SacctFields = "JobIDRaw,Submit,Start,End,ElapsedRaw,TimelimitRaw,NNodes,NCPUS,State,Partition,NodeList"

// looksLikeSacct reports whether the first non-blank line is a '|'-separated header
// naming the job id.
func looksLikeSacct(br *bufio.Reader) bool {
	data, _ := br.Peek(64 << 10)
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

// readSacct reads `sacct -P` output (see SacctFields). Arrivals count seconds from the
// earliest Submit (the times are the site's local time as sacct prints them, read as
// UTC: only differences matter). Procs is NNodes (whole-node allocation), else NCPUS.
// The limit is the estimate; UNLIMITED and Partition_Limit are unknown (-1). Skipped
// and counted in Trace.Skipped: job steps (ids with a '.'), pending jobs, jobs
// cancelled before they started, jobs still running, and earlier runs of a requeued
// job (the same id again: its last record is replayed). A record with a missing or
// malformed field is an error naming the line, or skipped and counted (Trace.Bad)
// with SkipBad.
func readSacct(br *bufio.Reader, opt ReadOptions) (*Trace, error) {
	t := &Trace{Format: "sacct", Skipped: map[string]int{}}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	col := map[string]int{}
	var header []string
	type rec struct {
		job           Job
		submit, start time.Time
		id            string
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
				return nil, &ParseError{line, clip(text), fmt.Errorf("sacct header lacks %s (run sacct -P -o %s)", strings.Join(missing, ", "), SacctFields)}
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
			return &ParseError{line, clip(text), err}
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
		j := Job{Line: line}
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
			if e > maxTraceValue {
				if err := bad(fmt.Errorf("ElapsedRaw %d: %w (at most %d seconds)", e, errRange, maxTraceValue)); err != nil {
					return nil, err
				}
				continue
			}
			run = e
		} else if v, ok := get(f, "Elapsed"); ok && v != "" {
			e, err := slurmDuration(v)
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
		j.Estimate = -1
		var err error
		if v, ok := get(f, "TimelimitRaw"); ok {
			if j.Estimate, err = sacctLimit(v, true); err != nil {
				if err := bad(fmt.Errorf("field TimelimitRaw %q: %w", v, err)); err != nil {
					return nil, err
				}
				continue
			}
		} else if v, ok := get(f, "Timelimit"); ok {
			if j.Estimate, err = sacctLimit(v, false); err != nil {
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
		j.Procs = p
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
		recs = append(recs, rec{job: j, submit: submit, start: start, id: id})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if header == nil {
		return nil, fmt.Errorf("empty sacct output")
	}
	var t0 time.Time
	haveT0 := false // t0.IsZero() would be a real time: 0001-01-01T00:00:00
	for _, r := range recs {
		if r.id != "" && (!haveT0 || r.submit.Before(t0)) {
			t0, haveT0 = r.submit, true
		}
	}
	for _, r := range recs {
		if r.id == "" {
			continue
		}
		r.job.Arrival = r.submit.Unix() - t0.Unix()
		r.job.Started = r.start.Unix() - t0.Unix()
		if r.job.ID == 0 {
			r.job.ID = len(t.Jobs) + 1
		}
		t.Jobs = append(t.Jobs, r.job)
	}
	// Arrival order, as the replay expects (sacct lists by job id).
	sortJobsByArrival(t.Jobs)
	if haveT0 {
		t.UnixStart = t0.Unix()
	}
	return t, nil
}

func sortJobsByArrival(jobs []Job) {
	slices.SortStableFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Arrival, b.Arrival) })
}

// sacctLimit reads a time limit: minutes (TimelimitRaw) or [DD-[HH:]]MM:SS
// (Timelimit); UNLIMITED, Partition_Limit, INVALID and empty are unknown (-1).
func sacctLimit(v string, raw bool) (int64, error) {
	switch v {
	case "UNLIMITED", "Partition_Limit", "", "INVALID":
		return -1, nil
	}
	if !raw {
		return slurmDuration(v)
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
func slurmDuration(s string) (int64, error) {
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
		if v > maxTraceValue || total > maxTraceValue/60 {
			return 0, fmt.Errorf("%w (at most %d seconds)", errRange, maxTraceValue)
		}
		total = total*60 + v
	}
	if days > maxTraceValue/86400 || days*86400+total > maxTraceValue {
		return 0, fmt.Errorf("%w (at most %d seconds)", errRange, maxTraceValue)
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
