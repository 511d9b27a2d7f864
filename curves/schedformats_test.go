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
