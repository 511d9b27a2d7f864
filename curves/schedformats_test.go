package curves

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// Every scheduler-facing format round-trips through its reader, with host names and
// without (node indices as names).
func TestSchedulerFormatsRoundTrip(t *testing.T) {
	for _, spec := range []string{"mesh:4x2", "mesh:16x22", "torus:8x8"} {
		g, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Generate("snake", g)
		if err != nil {
			t.Fatal(err)
		}
		o2, _ := Generate("morton", g)
		var names []string
		for i := range g.N() {
			names = append(names, fmt.Sprintf("cn%04d", 10+i))
		}
		for _, f := range schedulerFormats {
			for _, hosts := range [][]string{nil, names} {
				for _, ord := range []Order{o, o2} {
					var buf bytes.Buffer
					if hosts == nil {
						// Issue 31 item 9: node indices are no host names.
						if err := WriteRanking(&buf, f, ord, RankingMeta{Machine: spec}, nil); !errors.Is(err, ErrNoHostNames) || buf.Len() > 0 {
							t.Fatalf("%s %s without host names: %v, %d bytes written", spec, f, err, buf.Len())
						}
						continue
					}
					if err := WriteRanking(&buf, f, ord, RankingMeta{Machine: spec}, hosts); err != nil {
						t.Fatalf("%s %s: %v", spec, f, err)
					}
					back, err := ReadRanking(bytes.NewReader(buf.Bytes()), f, g.N(), hosts)
					if err != nil {
						t.Fatalf("%s %s (hosts %v): %v\n%.300s", spec, f, hosts != nil, err, buf.String())
					}
					if !slices.Equal(back, ord) {
						t.Fatalf("%s %s: round trip changed the order", spec, f)
					}
				}
			}
		}
	}
}

func TestSchedulerFormatsRefuseBadInput(t *testing.T) {
	hosts := []string{"a1", "a2", "a3"}
	for _, tc := range []struct {
		f    Format
		in   string
		want string
	}{
		{FormatHostlist, "a[1-2],b9", "not a node"},
		{FormatHostlist, "a[1-2]", "2 hosts for a machine of 3"},
		{FormatHostlist, "a[1-3", "invalid hostlist"},
		{FormatRankfile, "rank 0=a1 slot=0\nrank 0=a2 slot=0\nrank 2=a3 slot=0\n", "given twice"},
		{FormatMPICHRankOrder, "0,5,1\n", "out of range"},
		{FormatJGF, `{"graph":{"nodes":[{"metadata":{"type":"node","name":"a1"}}],"edges":[]}}`, `vertex: has no "id"`},
	} {
		_, err := ReadRanking(strings.NewReader(tc.in), tc.f, 3, hosts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: err = %v, want %q", tc.f, tc.in, err, tc.want)
		}
	}
}

// TestWriteRanksPerHost: with k ranks per host, rank i of the hosts file and of the
// rankfile is on the host of curve rank i/k (k = 1: WriteRanking's very bytes), and
// formats of one entry a host are refused.
func TestWriteRanksPerHost(t *testing.T) {
	o := Order{2, 0, 3, 1}
	hosts := []string{"a0", "a1", "a2", "a3"}
	for _, f := range []Format{FormatHosts, FormatRankfile} {
		var one bytes.Buffer
		if err := WriteRanking(&one, f, o, RankingMeta{}, hosts); err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 3; k++ {
			var buf bytes.Buffer
			if err := WriteRanksPerHost(&buf, f, o, hosts, k); err != nil {
				t.Fatalf("%s k=%d: %v", f, k, err)
			}
			if k == 1 && buf.String() != one.String() {
				t.Errorf("%s k=1:\n%s\nWriteRanking:\n%s", f, buf.String(), one.String())
			}
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if len(lines) != k*len(o) {
				t.Fatalf("%s k=%d: %d lines, want %d", f, k, len(lines), k*len(o))
			}
			for i, l := range lines {
				host := hosts[o[i/k]]
				want := host
				if f == FormatRankfile {
					want = fmt.Sprintf("rank %d=%s slot=%s", i, host, RankfileWholeHost)
				}
				if l != want {
					t.Errorf("%s k=%d line %d: %q, want %q", f, k, i, l, want)
				}
			}
		}
	}
	var buf bytes.Buffer
	for _, c := range []struct {
		f Format
		k int
	}{{FormatHosts, 0}, {FormatRankfile, -1}, {FormatHostlist, 2}, {FormatPairs, 2}} {
		if err := WriteRanksPerHost(&buf, c.f, o, hosts, c.k); err == nil {
			t.Errorf("%s k=%d: no error", c.f, c.k)
		}
	}
	if err := WriteRanksPerHost(&buf, FormatRankfile, o, []string{"a0", "node_1", "a2", "a3"}, 2); err == nil || !strings.Contains(err.Error(), "node_1") {
		t.Errorf("rankfile with node_1: %v", err)
	}
	if buf.Len() > 0 {
		t.Errorf("%d bytes written on errors", buf.Len())
	}
}
