package sweep

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/sim"
)

// near lists each name, and each name with one letter dropped, doubled or
// swapped with the next: the typos of a sweep file.
func near(names []string) []string {
	var out []string
	for _, n := range names {
		out = append(out, n, strings.ToUpper(n))
		for i := range n {
			out = append(out, n[:i]+n[i+1:], n[:i+1]+n[i:])
			if i+1 < len(n) {
				out = append(out, n[:i]+string(n[i+1])+string(n[i])+n[i+2:])
			}
		}
	}
	return out
}

// A sweep file's scheduler or pattern is refused when it is read, naming its line
// and entry, exactly when the item's replay would refuse it (sim.Spec.Validate, the
// plain definition): before, a misspelt scheduler passed --list and the checks
// before the first item, and each of its items failed at the end of the run.
func TestSweepFileRefusesWhatEveryItemWouldFailOn(t *testing.T) {
	scheds := make([]string, 0)
	for _, s := range sim.Scheds() {
		scheds = append(scheds, s.String())
	}
	for _, c := range []struct {
		key   string
		names []string
		param func(*Params, string)
	}{
		{"schedulers", scheds, func(p *Params, v string) { p.Sched = sim.Sched(v) }},
		{"patterns", append(netsim.Patterns(), "none", "nbody", "alltoall", "halo"), func(p *Params, v string) { p.Pattern = v }},
	} {
		refused := 0
		for _, v := range near(c.names) {
			if v == "" || strings.ContainsAny(v, ",[]{}:#&*!|>'\"%@`") {
				continue
			}
			p := Params{Trace: "t.swf", Machine: "mesh:16x16", Alloc: "mc", Sched: sim.SchedFCFS, Contract: 1, Pattern: "none", Seed: 1}
			c.param(&p, v)
			spec := p.Spec("")
			replayErr := spec.Validate()
			file := fmt.Sprintf("traces: [t.swf]\nmachines: [mesh:16x16]\nallocators: [mc]\n%s: [%s]\n", c.key, v)
			_, err := Parse([]byte(file), "s.yaml")
			if (err == nil) != (replayErr == nil) {
				t.Errorf("%s: [%s]: Parse says %v, the replay %v", c.key, v, err, replayErr)
				continue
			}
			if err != nil {
				refused++
				if want := fmt.Sprintf("line 4: %s: entry 1 %q: ", c.key, v); !strings.Contains(err.Error(), want) {
					t.Errorf("%s: [%s]: %v, want it to say %q", c.key, v, err, want)
				}
			}
		}
		if refused == 0 {
			t.Errorf("%s: no near name was refused", c.key)
		}
	}
	// A near miss gets its hint, as on sim's command line.
	_, err := Parse([]byte("traces: [t.swf]\nmachines: [mesh:16x16]\nallocators: [mc]\nschedulers: [easy, fcsf]\n"), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), `line 4: schedulers: entry 2 "fcsf": want fcfs, easy, cplant or as-run (did you mean fcfs?)`) {
		t.Errorf("fcsf: %v", err)
	}
	// A pattern's other spelling misspelt gets its hint too, named as the pattern is.
	_, err = Parse([]byte("traces: [t.swf]\nmachines: [mesh:16x16]\nallocators: [mc]\npatterns: [none, nbdy]\n"), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), `line 4: patterns: entry 2 "nbdy": unknown communication pattern "nbdy" (did you mean n-body?)`) {
		t.Errorf("nbdy: %v", err)
	}
}

// Two spellings of one pattern in patterns: are two items of one replay, refused
// as a value listed twice is; every pair of names ParsePattern reads is checked
// against the plain definition (the same pattern's Name).
func TestSweepFileRefusesOnePatternTwice(t *testing.T) {
	names := append(netsim.Patterns(), "nbody", "alltoall", "halo")
	for _, a := range names {
		for _, b := range names {
			if a == b {
				continue
			}
			pa, _ := netsim.ParsePattern(a)
			pb, _ := netsim.ParsePattern(b)
			_, err := Parse([]byte(fmt.Sprintf("traces: [t.swf]\nmachines: [mesh:16x16]\nallocators: [mc]\npatterns: [%s, %s]\n", a, b)), "s.yaml")
			if same := pa.Name() == pb.Name(); same != (err != nil) {
				t.Errorf("patterns: [%s, %s]: %v (one pattern: %v)", a, b, err, same)
			} else if same && !strings.Contains(err.Error(), "are one pattern") {
				t.Errorf("patterns: [%s, %s]: %v", a, b, err)
			}
		}
	}
}

// A misspelt flag in flags: names the nearest replay flag, and a flag written with
// its value in one entry ([--vcs 2]) is said to be two entries: every flag of the
// table is tried both ways.
func TestSweepFileFlagTyposSayWhatWasMeant(t *testing.T) {
	names := slices.Sorted(maps.Keys(replayFlags))
	hinted := 0
	// check reads a sweep file with that one flags entry and makes its checks
	// before any item runs (Spec.Check, as sweep and --list do).
	check := func(flag string) error {
		s, err := Parse([]byte(fmt.Sprintf("traces: [t.swf]\nmachines: [mesh:16x16]\nallocators: [mc]\nflags: [%q]\n", flag)), "s.yaml")
		if err != nil {
			return err
		}
		return s.Check()
	}
	for _, name := range names {
		typo := name[:len(name)/2] + name[len(name)/2+1:] // a letter dropped
		err := check(fmt.Sprintf("--%s", typo))
		if slices.Contains(names, typo) {
			continue // another flag's name
		}
		if err == nil {
			t.Errorf("--%s: accepted", typo)
			continue
		}
		if m := regexp.MustCompile(`did you mean --([a-z0-9-]+)\?`).FindStringSubmatch(err.Error()); m != nil {
			hinted++
			if d := textin.EditDistance(typo, m[1]); !slices.Contains(names, m[1]) || d > textin.EditDistance(typo, name) {
				t.Errorf("--%s: hint --%s is not a nearest flag (--%s is %d edits away)", typo, m[1], name, textin.EditDistance(typo, name))
			}
		} else if len(typo) >= 2 {
			t.Errorf("--%s: no hint: %v", typo, err)
		}
		err = check(fmt.Sprintf("--%s 2", name))
		if want := fmt.Sprintf("two entries of the list: [--%s, 2]", name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("[--%s 2]: %v, want %q", name, err, want)
		}
	}
	if hinted == 0 {
		t.Error("no typo got a hint")
	}
}
