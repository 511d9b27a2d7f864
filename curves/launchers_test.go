package curves

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// openMPIHostNameCases are host names with what Open MPI 4.1.4's mpirun did with each
// when it was the second host of a rankfile and of a hostfile (--map-by seq):
// placed rank 1 on a host of that very name, or not (refused the file, or launched on
// another name: 0007 on 7, n@x as user n on x). cmd/procalloc's
// TestOpenMPIHostNamesAsLaunched runs mpirun on these names again and compares
// with OpenMPIHostProblem.
var openMPIHostNameCases = []struct {
	Name               string
	Rankfile, Hostfile bool // taken as written
}{
	{"node-01", true, true}, {"Node01", true, true}, {"NODE01", true, true}, {"9node", true, true},
	{"10.1.2.3", true, true}, {"7", true, true}, {"1e5", true, true}, {"0x1", true, true},
	{"count", true, false}, {"cpu", true, false}, {"sockets", true, false}, {"cores", true, false},
	{"max-slots", true, false}, {"boards", true, false},
	{"1.2.3", false, true}, {"12.34", false, true},
	{"node_01", false, false}, {"0007", false, false}, {"x:1", false, false}, {"a+b", false, false},
	{"n@x", false, false}, {"+n0", false, false}, {"h~1", false, false}, {"h=1", false, false},
	{"h/1", false, false}, {"h*1", false, false}, {"é1", false, false}, {"-n1", false, false},
	{".n1", false, false}, {"rank", false, false}, {"slot", false, false}, {"slots", false, false},
	{"username", false, false},
}

func TestOpenMPIHostProblemMatchesMpirun(t *testing.T) {
	for _, c := range openMPIHostNameCases {
		for _, rankfile := range []bool{true, false} {
			want := c.Hostfile
			if rankfile {
				want = c.Rankfile
			}
			if p := OpenMPIHostProblem(c.Name, rankfile); (p == "") != want {
				t.Errorf("%q (rankfile %v): problem %q, mpirun took it as written: %v", c.Name, rankfile, p, want)
			}
		}
	}
}

// A rankfile that Open MPI would refuse, or read with another host, is not written;
// the error names the host and why.
func TestRankfileRefusesNamesOpenMPIChanges(t *testing.T) {
	o := Order{1, 0, 2}
	for _, bad := range []string{"node_01", "0007", "slot", "12.34"} {
		var buf bytes.Buffer
		err := WriteRanking(&buf, FormatRankfile, o, RankingMeta{}, []string{"n1", bad, "n3"})
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) || buf.Len() > 0 {
			t.Errorf("rankfile with host %q: err %v, %d bytes written", bad, err, buf.Len())
		}
		// The hosts format serves Slurm and MPICH too: written, with a warning.
		buf.Reset()
		if err := WriteRanking(&buf, FormatHosts, o, RankingMeta{}, []string{"n1", bad, "n3"}); err != nil {
			t.Errorf("hosts with host %q: %v", bad, err)
		}
	}
	var buf bytes.Buffer
	if err := WriteRanking(&buf, FormatRankfile, o, RankingMeta{}, []string{"n1.a", "10.0.0.1", "cpu"}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "rank 0=10.0.0.1 slot=S*\nrank 1=n1.a slot=S*\nrank 2=cpu slot=S*\n"; got != want {
		t.Fatalf("rankfile:\n%s\nwant\n%s", got, want)
	}
}

func TestLauncherWarnings(t *testing.T) {
	for _, c := range []struct {
		f     Format
		hosts []string
		want  []string // one substring per warning
	}{
		{FormatHosts, []string{"n1", "n2"}, nil},
		{FormatHosts, []string{"n_1", "n2", "n_3"}, []string{`2 host name(s) that Open MPI's mpirun --hostfile refuses or reads as another host, the first "n_1"`}},
		{FormatHosts, []string{"n1", "cpu"}, []string{`"cpu" as a keyword of its hostfile`}},
		{FormatRankfile, []string{"n1", "cpu"}, nil},
		{FormatHosts, []string{"x:1", "y"}, []string{`"x:1": Open MPI`, `host name(s) with ':', the first "x:1": MPICH`}},
		{FormatHosts, []string{"n1.a", "n2.a", "n1.b"}, []string{`1 host(s) share their first label with another, the first "n1.a" and "n1.b": Open MPI's mpirun shortens both to "n1"`}},
		{FormatRankfile, []string{"n1", "n1.b"}, []string{`"n1" and "n1.b"`}},
		{FormatRankfile, []string{"10.0.0.1", "10.0.0.2"}, nil},
		{FormatJGF, []string{"n1.a", "n1.b"}, nil},
		{FormatHostlist, []string{"n_1"}, nil},
	} {
		got := LauncherWarnings(c.f, c.hosts)
		if len(got) != len(c.want) {
			t.Errorf("%s %v: %d warnings %q, want %d", c.f, c.hosts, len(got), got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s %v: warning %q, want it to contain %q", c.f, c.hosts, got[i], w)
			}
		}
	}
}

// The MPICH_RANK_ORDER writer writes plain ranks, 16 to a line, as LUMI's
// documentation of Cray MPICH and grid_order do, and its reader reads them (and ranges) back.
func TestMPICHRankOrderPlainList(t *testing.T) {
	n := 35
	o := make(Order, n)
	for i := range o {
		o[i] = (i * 3) % n // a permutation: 3 and 35 are coprime
	}
	names := make([]string, n)
	for i := range names {
		names[i] = "n" + strings.Repeat("x", i)
	}
	var buf bytes.Buffer
	if err := WriteRanking(&buf, FormatMPICHRankOrder, o, RankingMeta{}, names); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 || strings.Count(lines[0], ",") != 15 || strings.Count(lines[2], ",") != 2 || strings.Contains(buf.String(), "-") {
		t.Fatalf("want 3 lines of 16, 16 and 3 ranks, no ranges:\n%s", buf.String())
	}
	ranks := o.Ranks()
	var want []string
	for _, r := range ranks {
		want = append(want, strconv.Itoa(r))
	}
	if got := strings.ReplaceAll(strings.TrimSuffix(buf.String(), "\n"), "\n", ","); got != strings.Join(want, ",") {
		t.Fatalf("ranks %s, want %s", got, strings.Join(want, ","))
	}
	back, err := ReadRanking(bytes.NewReader(buf.Bytes()), FormatMPICHRankOrder, n, names)
	if err != nil || !slices.Equal(back, o) {
		t.Fatalf("read back: %v", err)
	}
	if f, err := DetectFormat(buf.Bytes()); err != nil || f != FormatMPICHRankOrder {
		t.Fatalf("detected %q, %v", f, err)
	}
}
