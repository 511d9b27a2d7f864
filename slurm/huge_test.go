package slurm

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
)

// A topology.conf with the same slip on every line lists MaxWarnings warnings and
// counts the rest in one more, instead of one warning a line.
func TestTopologyConfWarningsCapped(t *testing.T) {
	var b strings.Builder
	const n = 1000
	for i := range n {
		fmt.Fprintf(&b, "SwitchName=s%d Nodes+=n%d\n", i, i)
	}
	fmt.Fprintf(&b, "SwitchName=top Switches=s[0-%d]\n", n-1)
	top, err := ParseTopologyConf(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Warnings) != MaxWarnings+1 {
		t.Fatalf("%d warnings, want %d", len(top.Warnings), MaxWarnings+1)
	}
	if !strings.HasPrefix(top.Warnings[0], "line 1: Nodes+=n0") {
		t.Errorf("first warning %q", top.Warnings[0])
	}
	if want := fmt.Sprintf("%d more warnings not listed", n-MaxWarnings); !strings.HasPrefix(top.Warnings[MaxWarnings], want) {
		t.Errorf("last warning %q, want %q...", top.Warnings[MaxWarnings], want)
	}
	// Under the cap, every warning and no count.
	top, err = ParseTopologyConf(strings.NewReader("SwitchName=s1 Nodes+=n1\nSwitchName=s2 Nodes+=n2\nSwitchName=t Switches=s[1-2]\n"))
	if err != nil || len(top.Warnings) != 2 {
		t.Fatalf("%v, %q", err, top.Warnings)
	}
}

// Values of 100,000 characters in slurm.conf and topology.conf are quoted clipped,
// in errors and warnings alike, and a sacct line past the cap names its line.
func TestSlurmHugeValuesClipped(t *testing.T) {
	big := strings.Repeat("9", 100000)
	conf, err := ReadConf([]byte("NodeName=n[1-4] CPUs=" + big + "\n"))
	if err == nil {
		_, err = conf.Nodes()
	}
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("slurm.conf CPUs: %.200v", err)
	}
	for _, in := range []string{
		"SwitchName=s1 Nodes=a LinkSpeed=" + big + "\n",
		"SwitchName=s1 Nodes=n[" + big + "]\n",
		"BlockName=b1 Nodes=n[1-4]\nBlockSizes=" + big + "x\n",
	} {
		_, err := ParseTopologyConf(strings.NewReader(in))
		if err == nil {
			t.Errorf("topology.conf %.60q... accepted", in)
		} else if len(err.Error()) > 600 { // up to four clipped quotes (value, expression, item, number)
			t.Errorf("topology.conf: message of %d bytes: %.200v", len(err.Error()), err)
		}
	}
	top, err := ParseTopologyConf(strings.NewReader("SwitchName=s1 Nodes+=n[1-2]" + strings.Repeat(",x", 50000) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range top.Warnings {
		if len(w) > 400 {
			t.Errorf("warning of %d bytes: %.200s", len(w), w)
		}
	}
	_, err = ReadSacct(strings.NewReader("JobID|Submit|Start|End|NNodes|NodeList|State\n"+strings.Repeat("z", 2<<20)+"\n"), SacctOptions{})
	if !errors.Is(err, textin.ErrTooLarge) || !strings.HasPrefix(err.Error(), "line 2 is longer than") {
		t.Errorf("sacct line of 2 MB: %.200v", err)
	}
}

// atoi is glibc's (int) strtol: saturating at the long's limits, then the low 32
// bits; a value the cast changes is not exact (it gets a warning, not silence).
func TestAtoiAtTheLimits(t *testing.T) {
	for _, c := range []struct {
		s     string
		n     int
		exact bool
	}{
		{"8", 8, true},
		{"2147483647", 2147483647, true},
		{"2147483648", -2147483648, false},
		{"4294967297", 1, false},
		{"9223372036854775807", -1, false},
		{strings.Repeat("9", 100000), -1, false},
		{"-" + strings.Repeat("9", 100000), 0, false}, // LONG_MIN's low 32 bits
		{"8x", 8, false},
	} {
		if n, exact := atoi(c.s); n != c.n || exact != c.exact {
			t.Errorf("atoi(%.30q) = %d, %v; want %d, %v", c.s, n, exact, c.n, c.exact)
		}
	}
	// A BlockSizes value past 2^63 reads as -1 in slurmctld: refused, not a huge size.
	if _, err := ParseTopologyConf(strings.NewReader("BlockName=b1 Nodes=n[1-4]\nBlockSizes=" + strings.Repeat("9", 30) + "\n")); err == nil {
		t.Error("BlockSizes=9{30} accepted")
	}
}

// A slurm.conf or topology.conf in UTF-16 is refused as such on line 1.
func TestSlurmConfUTF16(t *testing.T) {
	u16 := "\xff\xfeN\x00o\x00d\x00e\x00"
	_, err := ReadConf([]byte(u16))
	if err == nil || !strings.Contains(err.Error(), "line 1: the input is UTF-16 text") {
		t.Errorf("ReadConf(UTF-16) = %v", err)
	}
}
