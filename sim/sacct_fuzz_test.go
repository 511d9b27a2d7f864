package sim

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// sacctSeeds are sacct -P outputs of the shapes Slurm prints (sacct(1): job steps
// .batch/.extern/.0, array jobs 1234_7, heterogeneous jobs 1234+0, "CANCELLED by
// uid", UNLIMITED and Partition_Limit, "None assigned", Unknown times, Elapsed as
// [DD-]HH:MM:SS, a trailing '|' with --parsable, CRLF) under the headers ReadSacct
// accepts, plus the rows that once broke it (issue 24 row 10: ElapsedRaw = 2^63-1).
func sacctSeeds() []string {
	const full = "JobIDRaw|Submit|Start|End|ElapsedRaw|Elapsed|TimelimitRaw|Timelimit|NNodes|State|NodeList\n"
	seeds := []string{
		full + "1|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:01:00|55|00:55|5|05:00|2|COMPLETED|n[1-2]\n",
		full + "1|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:01:00|9223372036854775807|00:55|5|05:00|2|COMPLETED|n[1-2]\n",
		full + "1|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:01:00||106751991167300-00:00:00|UNLIMITED|99999999999-00:00:00|2|COMPLETED|n[1-2]\n",
		full + "1|0001-01-01T00:00:00|0001-01-01T00:00:00|9999-12-31T23:59:59|||||1|COMPLETED|n1\n",
		// Times with their UTC offset (SLURM_TIME_FORMAT=%Y-%m-%dT%H:%M:%S%z;
		// slurm.TestSacctTimesWithOffset).
		full + "1|2023-03-26T01:48:20+0100|2023-03-26T01:49:06+0100|2023-03-26T03:57:23+0200|4097|01:08:17|120|02:00:00|1|COMPLETED|n1\n",
		"JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|State|Partition|NodeList|\n" +
			"4242_7|2026-03-01T10:00:00|2026-03-01T10:00:30|2026-03-02T12:00:30|1-02:00:00|2-00:00:00|128|TIMEOUT|long|c[001-002]|\n" +
			"4242_[8-20%4]|2026-03-01T10:00:00|Unknown|Unknown|00:00:00|2-00:00:00|128|PENDING|long|None assigned|\n" +
			"4300+0|2026-03-01T11:00:00|2026-03-01T11:05:00|2026-03-01T11:06:00|00:01:00|10:00|64|CANCELLED by 1042|debug|c003|\n" +
			"4300+1|2026-03-01T11:00:00|2026-03-01T11:05:00|2026-03-01T11:06:00|00:01:00|10:00|32|OUT_OF_MEMORY|debug|c004|\n" +
			"4302+0|2026-03-01T11:00:00|2026-03-01T11:05:00|2026-03-01T11:06:00|00:01:00|10:00|64|COMPLETED|debug|c005|\n" +
			"4302+1|2026-03-01T11:00:00|2026-03-01T11:05:00|2026-03-01T11:06:00|00:01:00|10:00|32|COMPLETED| long,debug |c006|\n" +
			"4301.interactive|2026-03-01T11:00:00|2026-03-01T11:05:00|2026-03-01T11:06:00|00:01:00||1|COMPLETED||c004|\n",
		"JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\r\n" +
			"77|2026-10-25T01:30:00|2026-10-25T01:59:00|2026-10-25T03:10:00|4260|Partition_Limit|3|96|NODE_FAIL|batch|rack[0-1]_blade[7],x9\r\n" +
			"77|2026-10-25T01:30:00|2026-10-25T04:00:00|2026-10-25T04:10:00|600|Partition_Limit|3|96|COMPLETED|batch|x[1-3]\r\n" +
			"78|2026-10-25T01:30:00|2026-10-25T01:00:00|2026-10-25T01:10:00|600|60|1|32|COMPLETED|batch|x1\r\n" +
			"79|2026-10-25T01:30:00|2026-10-25T01:40:00|2026-10-25T01:30:00|600|60|1|32|BOGUS|batch|x1\r\n",
	}
	if data, err := os.ReadFile("testdata/sacct-fattree.txt"); err == nil {
		seeds = append(seeds, string(data))
	}
	return seeds
}

// FuzzReadSacct fuzzes whole sacct -P files. Properties:
//   - a refusal is a *ParseError whose line and text are the input's (the header's
//     or a record's), "empty sacct output" for an input of blank lines, or a line
//     too long; with SkipBad a malformed record is counted (Trace.Bad), not fatal;
//   - every record is accounted for: jobs + skipped + impossible + bad = records;
//   - a job has Procs >= 1, NNodes names as many hosts as its NodeList when the
//     header has NNodes, starts at or after it arrives, values within the converted
//     reader's range, jobs in arrival order, and its line is one of its records;
//   - SkipBad changes nothing on an input read without it, nor does a machine of
//     as many hosts as the longest NodeList of a record (ReadOptions.MaxHosts);
//   - read against its own host names (ReadOptions.Hosts), the same trace; against
//     them but one a job names, a *ParseError naming that host;
//   - the jobs written back as sacct rows (UTC, ElapsedRaw, Timelimit, NCPUS) read
//     back to the same jobs, and written in the converted format read back too.
func FuzzReadSacct(f *testing.F) {
	for _, s := range sacctSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return // gzip: FuzzReadTrace and TestGzipDamageIsReportedAsSuch
		}
		lines := strings.Split(string(data), "\n")
		header, records := 0, 0 // header: its 1-based line; records: non-blank lines after it
		for i, l := range lines {
			if strings.TrimSpace(strings.TrimRight(l, "\r")) == "" {
				continue
			}
			if header == 0 {
				header = i + 1
			} else {
				records++
			}
		}
		opt := ReadOptions{Format: "sacct", Location: time.UTC}
		tr, err := ReadTrace(bytes.NewReader(data), opt)
		skip := opt
		skip.SkipBad = true
		trSkip, errSkip := ReadTrace(bytes.NewReader(data), skip)
		if err != nil {
			checkSacctError(t, err, lines, header)
			// A malformed record is skipped with SkipBad, which may then fail
			// later only on what it cannot skip: a whole file's fault (two
			// clusters, too many jobs, a line past the cap), not a record's.
			var pe, peSkip *ParseError
			if errors.As(err, &pe) && pe.Line != header && errSkip != nil {
				if errors.As(errSkip, &peSkip) && peSkip.Line != header {
					t.Fatalf("record error %v, yet SkipBad fails on a record too: %v", err, errSkip)
				}
				checkSacctError(t, errSkip, lines, header)
			}
			if errSkip == nil {
				if trSkip.Bad < 1 {
					t.Fatalf("strict read fails (%v), SkipBad reads with no bad record", err)
				}
				checkSacctTrace(t, trSkip, lines, header, records)
			}
			return
		}
		if errSkip != nil || !reflect.DeepEqual(tr, trSkip) {
			t.Fatalf("SkipBad changes a clean input: %v\n%+v\n%+v", errSkip, tr, trSkip)
		}
		checkSacctTrace(t, tr, lines, header, records)
		if len(tr.Jobs) == 0 {
			return
		}

		// Read for a machine of as many hosts as the longest list of a record (a
		// record dropped later, such as a requeued job's earlier run, too): the
		// same trace (NodeLists are counted against the machine:
		// ReadOptions.MaxHosts).
		longest, nodeCol := 0, -1
		for i, h := range strings.Split(strings.TrimRight(strings.TrimPrefix(lines[header-1], textin.BOM), "\r"), "|") {
			if strings.TrimSpace(h) == "NodeList" {
				nodeCol = i // the last of repeated names, as ReadSacct's columns
			}
		}
		for _, l := range lines[header:] {
			if f := strings.Split(strings.TrimRight(l, "\r"), "|"); nodeCol >= 0 && nodeCol < len(f) {
				if n, err := hostlist.Count(f[nodeCol]); err == nil {
					longest = max(longest, n)
				}
			}
		}
		if longest > 0 {
			fits := opt
			fits.MaxHosts = longest
			if trFits, err := ReadTrace(bytes.NewReader(data), fits); err != nil || !reflect.DeepEqual(tr, trFits) {
				t.Fatalf("read for a machine of %d hosts, the longest list: %v\n%+v\n%+v", longest, err, tr, trFits)
			}
		}

		// Read against the machine's names (ReadOptions.Hosts): all of the
		// history's, the same trace; all but one a job's list names, a refusal
		// at a record naming that host.
		if tr.Hosts != nil && tr.Hosts.Len() > 0 {
			all := make([]string, tr.Hosts.Len())
			for i := range all {
				all[i] = tr.Hosts.Name(int32(i))
			}
			named := opt
			named.Hosts = hostlist.NewTable(all...)
			if trNamed, err := ReadTrace(bytes.NewReader(data), named); err != nil || !reflect.DeepEqual(tr, trNamed) {
				t.Fatalf("read against its own %d host names: %v", len(all), err)
			}
			for _, j := range tr.Jobs {
				if j.NodeList.Len() == 0 {
					continue
				}
				lack := j.NodeList.Names()[0]
				named.Hosts = hostlist.NewTable(slices.DeleteFunc(slices.Clone(all), func(h string) bool { return h == lack })...)
				_, err := ReadTrace(bytes.NewReader(data), named)
				var pe *ParseError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), fmt.Sprintf("recorded node %q is not a host of the machine", textin.Clip(lack))) {
					t.Fatalf("read against its host names but %q, which job %d names: %v", lack, j.ID, err)
				}
				break
			}
		}

		// Written back as sacct rows, the jobs read back the same.
		var b strings.Builder
		b.WriteString("JobIDRaw|Submit|Start|End|ElapsedRaw|Timelimit|NCPUS|State|Partition|NodeList\n")
		stamp := func(s int64) string { return time.Unix(tr.UnixStart+s, 0).UTC().Format("2006-01-02T15:04:05") }
		for i, j := range tr.Jobs {
			limit := "UNLIMITED"
			if j.Estimate >= 0 {
				limit = fmt.Sprintf("%d-%02d:%02d:%02d", j.Estimate/86400, j.Estimate/3600%24, j.Estimate/60%60, j.Estimate%60)
			}
			nodes := ""
			if j.NodeList.Len() > 0 {
				if nodes, err = hostlist.Compress(j.NodeList.Names()); err != nil {
					t.Fatalf("node list %v of job %+v: %v", j.NodeList.Names(), j, err)
				}
			}
			fmt.Fprintf(&b, "%d_%d|%s|%s|%s|%d|%s|%d|COMPLETED|%s|%s\n", j.ID, i, stamp(j.Arrival), stamp(j.Started), stamp(j.Started+j.Runtime),
				j.Runtime, limit, j.Procs, j.Partition, nodes)
		}
		back, err := ReadTrace(strings.NewReader(b.String()), opt)
		if err != nil {
			t.Fatalf("jobs written back as sacct rows do not read: %v\n%s", err, b.String())
		}
		if len(back.Jobs) != len(tr.Jobs) || back.UnixStart != tr.UnixStart {
			t.Fatalf("sacct round trip: %d jobs from %d, want %d from %d", len(back.Jobs), back.UnixStart, len(tr.Jobs), tr.UnixStart)
		}
		for i, j := range back.Jobs {
			o := tr.Jobs[i]
			if j.Arrival != o.Arrival || j.Started != o.Started || j.Runtime != o.Runtime || j.Estimate != o.Estimate ||
				j.Procs != o.Procs || (o.ID > 0 && j.ID != o.ID) || !reflect.DeepEqual(j.NodeList.Names(), o.NodeList.Names()) || j.Partition != o.Partition {
				t.Fatalf("sacct round trip of job %d: %+v, want %+v", i, j, o)
			}
		}

		// And through the converted format.
		var conv bytes.Buffer
		if err := WriteConverted(&conv, tr.Jobs); err != nil {
			t.Fatal(err)
		}
		again, err := ReadTrace(&conv, ReadOptions{Format: "converted"})
		if err != nil || len(again.Jobs) != len(tr.Jobs) {
			t.Fatalf("converted round trip: %v", err)
		}
		for i, j := range again.Jobs {
			o := tr.Jobs[i]
			if j.Arrival != o.Arrival || j.Procs != o.Procs || j.Runtime != o.Runtime || j.Estimate != o.Estimate {
				t.Fatalf("converted round trip: %+v != %+v", j, o)
			}
		}
	})
}

// checkSacctError fails t unless err names an input line and that line's text.
func checkSacctError(t *testing.T, err error, lines []string, header int) {
	t.Helper()
	var pe *ParseError
	switch {
	case errors.As(err, &pe):
		if pe.Line < 1 || pe.Line > len(lines) || pe.Line < header {
			t.Fatalf("error on line %d of %d (header on %d): %v", pe.Line, len(lines), header, err)
		}
		if want := textin.Clip(strings.TrimRight(lines[pe.Line-1], "\r")); pe.Text != want {
			t.Fatalf("error names text %q, line %d is %q", pe.Text, pe.Line, want)
		}
		if pe.Err == nil || pe.Err.Error() == "" {
			t.Fatalf("error on line %d says nothing", pe.Line)
		}
	case header == 0 && err.Error() == "empty sacct output":
	case errors.Is(err, slurm.ErrSeveralClusters):
	case strings.HasPrefix(err.Error(), "line 1: ") && errors.Is(err, textin.ErrUTF16):
	case strings.HasPrefix(err.Error(), "line ") && errors.Is(err, bufio.ErrTooLong):
	default:
		t.Fatalf("error without a line: %v", err)
	}
}

// checkSacctTrace fails t unless tr accounts for every record and its jobs are valid.
func checkSacctTrace(t *testing.T, tr *Trace, lines []string, header, records int) {
	t.Helper()
	n := len(tr.Jobs) + tr.Bad + tr.Joined
	for _, v := range tr.Skipped {
		n += v
	}
	for _, v := range tr.Impossible {
		n += v
	}
	if n != records {
		t.Fatalf("%d records, %d accounted for: %d jobs, %d bad, skipped %v, impossible %v", records, n, len(tr.Jobs), tr.Bad, tr.Skipped, tr.Impossible)
	}
	hasNNodes := false
	partCol := -1
	heads := strings.Split(strings.TrimRight(lines[header-1], "\r"), "|")
	for i, h := range heads {
		hasNNodes = hasNNodes || strings.TrimSpace(h) == "NNodes"
		if strings.TrimSpace(h) == "Partition" {
			partCol = i // the last of repeated names, as ReadSacct's columns
		}
	}
	for i, j := range tr.Jobs {
		if j.Procs < 1 || j.Runtime < 0 || j.Arrival < 0 || j.Started < j.Arrival || j.Estimate < -1 ||
			j.Runtime > maxTraceValue || j.Estimate > maxTraceValue || j.Started > maxTraceValue || j.ID < 1 {
			t.Fatalf("job out of range accepted: %+v", j)
		}
		if i > 0 && j.Arrival < tr.Jobs[i-1].Arrival {
			t.Fatalf("jobs not in arrival order: %+v after %+v", j, tr.Jobs[i-1])
		}
		if j.Line <= header || j.Line > len(lines) || strings.TrimSpace(lines[j.Line-1]) == "" {
			t.Fatalf("job %+v: line %d is not a record (header on %d)", j, j.Line, header)
		}
		if hasNNodes && j.NodeList.Len() > 0 && j.NodeList.Len() != j.Procs {
			t.Fatalf("job %+v: %d nodes listed, NNodes %d", j, j.NodeList.Len(), j.Procs)
		}
		// The Partition of the job's line, trimmed (a heterogeneous job's
		// components' partitions follow it, or stand alone when the first
		// component's is empty: slurm's joinPartitions), and none without the
		// column.
		want := ""
		if partCol >= 0 {
			if f := strings.Split(strings.TrimRight(lines[j.Line-1], "\r"), "|"); partCol < len(f) {
				want = strings.TrimSpace(f[partCol])
			}
		}
		if j.Partition != want && !strings.HasPrefix(j.Partition, want+",") && (want != "" || tr.Joined == 0) {
			t.Fatalf("job %+v: partition %q, its line's Partition is %q", j, j.Partition, want)
		}
	}
	if len(tr.Jobs) > 0 && tr.Jobs[0].Arrival != 0 {
		t.Fatalf("the first arrival is %d, not 0", tr.Jobs[0].Arrival)
	}
}
