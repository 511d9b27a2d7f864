package slurm

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
)

// FuzzReadSlurmWeight fuzzes the slurm-weight ranking format (--curve FILE,
// --format slurm-weight): an accepted file is a permutation in which every data
// line's NodeName has rank Weight-1, written back it reads back equal; a refusal
// names a line of the input or the count.
func FuzzReadSlurmWeight(f *testing.F) {
	hosts := []string{"n1", "n2", "n3", "n4"}
	var buf bytes.Buffer
	if err := writeWeights(&buf, curves.Order{2, 0, 3, 1}, hosts); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String(), uint8(4))
	f.Add("NodeName=n1 Weight=2\nnodename=n2 weight=1 CPUs=4\n", uint8(2))
	f.Add("NodeName=n1 Weight=1 Weight=2\nNodeName=n2 Weight=1\n", uint8(2))
	f.Add("NodeName=n1 NodeName=n2 Weight=1\n", uint8(1))
	f.Add("NodeName=n[1-2] Weight=1\n", uint8(2))
	f.Add("NodeName=n1 Weight=0\n", uint8(1))
	f.Add("# c\nNodeName=n1 Weight=1 # d\n\n", uint8(1))
	nameRE := regexp.MustCompile(`(?i)(?:^|\s)nodename=(\S*)`)
	weightRE := regexp.MustCompile(`(?i)(?:^|\s)weight=(\S*)`)
	f.Fuzz(func(t *testing.T, src string, n uint8) {
		k := 1 + (int(n)+3)%4 // n = 1..4 nodes as given
		o, err := curves.ReadRanking(strings.NewReader(src), FormatWeight, k, hosts[:k])
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "line ") && !strings.Contains(msg, "hosts for a machine of") {
				t.Fatalf("%q: error %q names no line", src, msg)
			}
			return
		}
		if err := o.Validate(k); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		for _, l := range strings.Split(src, "\n") {
			if l = strings.TrimSpace(textin.StripComment(l)); l == "" {
				continue
			}
			nm, w := nameRE.FindStringSubmatch(l), weightRE.FindStringSubmatch(l)
			if nm == nil || w == nil {
				t.Fatalf("%q: line %q accepted without NodeName= and Weight=", src, l)
			}
			r, err := strconv.Atoi(w[1])
			if err != nil || r < 1 || r > k || hosts[o[r-1]] != nm[1] {
				t.Fatalf("%q: line %q, but the ordering is %v", src, l, o)
			}
		}
		var out bytes.Buffer
		if err := curves.WriteRanking(&out, FormatWeight, o, curves.RankingMeta{}, hosts[:k]); err != nil {
			t.Fatal(err)
		}
		back, err := curves.ReadRanking(&out, FormatWeight, k, hosts[:k])
		if err != nil || !slices.Equal(back, o) {
			t.Fatalf("%q: %v written back reads as %v, %v", src, o, back, err)
		}
	})
}

// A key given twice on a line was read as its last value (n1 ranked second here);
// it is an error naming the line and the key.
func TestReadWeightsKeyTwice(t *testing.T) {
	for src, want := range map[string]string{
		"NodeName=n1 Weight=1 Weight=2\nNodeName=n2 Weight=1\n":    "line 1: Weight given twice",
		"NodeName=n1 Weight=1\nNodeName=n2 nodename=n1 Weight=2\n": "line 2: nodename given twice",
	} {
		_, err := curves.ReadRanking(strings.NewReader(src), FormatWeight, 2, []string{"n1", "n2"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}
