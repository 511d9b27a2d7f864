package sweep

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

// FuzzApplyFlags fuzzes a sweep item's flags list (one flag or value per line of
// the input): a refusal is a *FlagError naming a flag written in the list (or, for a
// stray argument, quoting it); an accepted list sets the same Spec when every
// "--name value" is written "--name=value" with one dash or two, as sim's command
// line reads either.
func FuzzApplyFlags(f *testing.F) {
	for _, s := range []string{"--drop-larger", "--engine\nflit\n--vcs\n2", "--vcs=2", "--engine=flit\n--router-delay\n3", "--max-jobs\n0x10", "--seed\n-1",
		"--baseline\nexact\n--baseline-time-limit\n2s", "--baseline-time-limit\n2s", "-contract\n0.5", "--\nx", "x", "--=1", "---a", "--hostlist\nn[1-4]", "--drop-larger=maybe", "--from\n1996-10-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1000 {
			return
		}
		args := strings.Split(src, "\n")
		var s sim.Spec
		err := ApplyFlags(&s, args)
		if err != nil {
			var fe *FlagError
			if !errors.As(err, &fe) {
				t.Fatalf("%q: %v is not a *FlagError", args, err)
			}
			if fe.Flag != "" {
				name := strings.TrimLeft(fe.Flag, "-")
				found := false
				for _, a := range args {
					k, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
					found = found || k == name || a == fe.Flag
				}
				if !found && fe.Flag != "--baseline" && fe.Flag != "--baseline-time-limit" {
					t.Fatalf("%q: error %q names a flag the list does not have", args, err)
				}
			} else if !strings.Contains(fe.Reason, "unexpected arguments") && !strings.Contains(fe.Reason, "needs") {
				t.Fatalf("%q: error %q names no flag", args, err)
			}
			return
		}
		// The same flags written --name=value (one dash on every other flag).
		var joined []string
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "--" {
				joined = append(joined, a)
				break
			}
			name := strings.TrimLeft(a, "-")
			dash := "--"
			if len(joined)%2 == 1 {
				dash = "-"
			}
			if strings.Contains(name, "=") {
				joined = append(joined, dash+name)
				continue
			}
			if fl := replayFlags[name]; fl.Kind == KindBool {
				joined = append(joined, dash+name)
				continue
			}
			i++
			joined = append(joined, dash+name+"="+args[i])
		}
		var s2 sim.Spec
		if err := ApplyFlags(&s2, joined); err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("%q sets %+v; written %q: %+v, %v", args, s, joined, s2, err)
		}
	})
}
