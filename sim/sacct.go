package sim

import (
	"bufio"
	"cmp"
	"errors"
	"slices"

	"github.com/procalloc/procalloc/slurm"
)

// SacctFields are the sacct fields ReadTrace uses (package slurm reads them; see
// slurm.SacctFields).
const SacctFields = slurm.SacctFields

// looksLikeSacct reports whether the first non-blank line is a '|'-separated header
// naming the job id.
func looksLikeSacct(br *bufio.Reader) bool {
	data, _ := br.Peek(64 << 10)
	return slurm.LooksLikeSacct(data)
}

// readSacct reads `sacct -P` output through slurm.ReadSacct (see SacctFields).
// Arrivals count seconds from the earliest Submit; the times are read in
// opt.Location (sacct prints the local time of its TZ): read in another zone, a
// job spanning a daylight-saving switch would wait or run an hour more or less.
// Records slurm.ReadSacct finds impossible are counted in Trace.Impossible. Procs is NNodes
// (whole-node allocation), else NCPUS; the limit is the estimate (-1 unknown); what
// slurm.ReadSacct skips is counted in Trace.Skipped, malformed records are a
// *ParseError naming the line, or skipped and counted (Trace.Bad) with SkipBad. Jobs
// are in arrival order; a job whose id has no number is numbered by its position.
// A heterogeneous job's components are one job of their summed size, started
// together (slurm.ReadSacct; counted in Trace.HetJobs).
func readSacct(br *bufio.Reader, opt ReadOptions) (*Trace, error) {
	sa, err := slurm.ReadSacct(br, slurm.SacctOptions{SkipBad: opt.SkipBad, MaxValue: maxTraceValue, MaxJobs: opt.MaxJobs, Location: opt.Location, MaxHosts: opt.MaxHosts,
		Hosts: opt.Hosts, HostsOf: opt.HostsOf, MarkHosts: opt.MarkHosts})
	if err != nil {
		var le *ParseError // slurm's line error is the same type
		if errors.As(err, &le) {
			return nil, le
		}
		return nil, err
	}
	t := &Trace{Format: "sacct", Skipped: sa.Skipped, Impossible: sa.Impossible, Bad: sa.Bad, TimeZone: sa.Location.String(), Hosts: sa.Hosts, HetJobs: sa.HetJobs, Joined: sa.Joined}
	if len(sa.Jobs) == 0 {
		return t, nil
	}
	t0 := sa.Jobs[0].Submit
	for _, j := range sa.Jobs {
		t0 = min(t0, j.Submit)
	}
	for _, j := range sa.Jobs {
		job := Job{Line: j.Line, ID: j.ID, Arrival: j.Submit - t0, Started: j.Start - t0, Runtime: j.Runtime,
			Estimate: j.Limit, Procs: j.Size, NodeList: j.NodeList, Partition: j.Partition}
		if job.ID == 0 {
			job.ID = len(t.Jobs) + 1
		}
		if j.NotHost != nil {
			if t.notHost == nil {
				t.notHost = map[int]*ParseError{}
			}
			t.notHost[j.Line] = j.NotHost
		}
		t.Jobs = append(t.Jobs, job)
	}
	// Arrival order, as the replay expects (sacct lists by job id).
	sortJobsByArrival(t.Jobs)
	t.UnixStart = t0
	return t, nil
}

func sortJobsByArrival(jobs []Job) {
	slices.SortStableFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Arrival, b.Arrival) })
}
