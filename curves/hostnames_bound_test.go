package curves

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// Host names for a machine of known size (--hostlist, --hosts) are counted before
// they are made: an expression of 4,194,304 names for 16 nodes costs a count, not
// half a gigabyte of names, and its error is the one the caller gives for a count
// that is not the machine's; the names of a machine's size are read as before.
func TestHostNamesCountedAgainstMachine(t *testing.T) {
	huge := fmt.Sprintf("n[0-%d]", hostlist.MaxHosts-1)
	var err error
	allocs := testing.AllocsPerRun(1, func() { _, err = ExpandHostNames(context.Background(), huge, 16) })
	if want := fmt.Sprintf("%d host names for a machine of 16 nodes", hostlist.MaxHosts); err == nil || err.Error() != want || allocs > 100 {
		t.Errorf("ExpandHostNames(%s, 16): %v (%.0f allocations), want %q", huge, err, allocs, want)
	}
	file := "a\nb\n" + huge + "\n"
	allocs = testing.AllocsPerRun(1, func() { _, err = ReadHostNames(context.Background(), strings.NewReader(file), 16) })
	if want := fmt.Sprintf("line 3: %d host names with the lines before, for a machine of 16 nodes", hostlist.MaxHosts+2); err == nil || err.Error() != want || allocs > 1000 {
		t.Errorf("ReadHostNames, a line of %s, 16 nodes: %v (%.0f allocations), want %q", huge, err, allocs, want)
	}
	// A ranking file in hostlist form (curve --format hostlist read back): its
	// count against the machine's, before the names.
	allocs = testing.AllocsPerRun(1, func() { _, err = ReadRanking(strings.NewReader(huge+"\n"), FormatHostlist, 16, nil) })
	if want := fmt.Sprintf("%d hosts for a machine of 16 nodes", hostlist.MaxHosts); err == nil || !strings.Contains(err.Error(), want) || allocs > 1000 {
		t.Errorf("ranking %s on 16 nodes: %v (%.0f allocations), want %q", huge, err, allocs, want)
	}
	sixteen, _ := hostlist.Expand("n[0-15]")
	if o, err := ReadRanking(strings.NewReader("n[8-15]\nn[0-7]\n"), FormatHostlist, 16, sixteen); err != nil || len(o) != 16 || o[0] != 8 {
		t.Errorf("ranking n[0-15] on 16 nodes: %v, %v", o, err)
	}
	for _, most := range []int{0, 16} {
		names, err := ExpandHostNames(context.Background(), "n[1-16]", most)
		if err != nil || len(names) != 16 || names[15] != "n16" {
			t.Errorf("ExpandHostNames(n[1-16], %d): %v, %v", most, names, err)
		}
		names, err = ReadHostNames(context.Background(), strings.NewReader("a\nn[1-14]\nb\n"), most)
		if err != nil || len(names) != 16 || names[15] != "b" {
			t.Errorf("ReadHostNames(a, n[1-14], b; %d): %v, %v", most, names, err)
		}
	}
	// Fewer names, or plain names beyond the count, are the caller's to refuse.
	if names, err := ReadHostNames(context.Background(), strings.NewReader("a\nb\nc\n"), 2); err != nil || len(names) != 3 {
		t.Errorf("three plain names, most 2: %v, %v", names, err)
	}
}
