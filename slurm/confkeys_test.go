package slurm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/textin"
)

// confKeyCases are lines with keys Slurm knows and keys it does not, each after
// confLineBase (line confLineFirst).
var confKeyCases = []struct {
	text string
	// unknown is the key ReadConf refuses ("" when it reads the line), near the
	// known key it suggests ("" when none is near).
	unknown, near string
	// other: a FrontendName line, which a Slurm built without front ends (Debian's)
	// refuses before it reads the line's keys.
	other bool
}{
	{text: "TopologyPlugins=topology/tree", unknown: "TopologyPlugins", near: "TopologyPlugin"},
	{text: "SelectTyp=select/cons_tres", unknown: "SelectTyp", near: "SelectType"},
	{text: "TopologyParm=Dragonfly", unknown: "TopologyParm", near: "TopologyParam"},
	{text: "toplogyplugin=topology/tree", unknown: "toplogyplugin", near: "TopologyPlugin"},
	{text: "FooBarBaz=1", unknown: "FooBarBaz"},
	{text: "NodeName=m1 CPUs=1 Wieght=3", unknown: "Wieght", near: "Weight"},
	{text: "NodeName=m1 NodeName=m2", unknown: "NodeName"},
	{text: "PartitionName=q Nodes=n1 MaxTme=60", unknown: "MaxTme", near: "MaxTime"},
	{text: "NodeSet=ns Features=gpu", unknown: "Features", near: "Feature"},
	{text: "DownNodes=n1 State=DOWN Reasn=x", unknown: "Reasn", near: "Reason"},
	{text: "PowerAction=suspend Program=/x Locaton=slurmctld", unknown: "Locaton", near: "Location"},
	{text: "FrontendName=fe1 Stat=UNKNOWN", unknown: "Stat", near: "State", other: true},
	{text: "SelectType=select/cons_tres"},
	{text: "selecttype=select/cons_tres"},
	{text: "TOPOLOGYPLUGIN=topology/tree"},
	{text: "nodename=m1 cpus=1 WEIGHT=3 features=a"},
	{text: "PartitionName=q Nodes=n1 maxtime=60 oversubscribe=NO"},
	{text: "PartitionName=q Nodes=n1 Exclusive=NODE"}, // 26.05's (NO, NODE, USER or TOPO: 26.05.3 refuses YES)
	{text: "CertmgrType=certmgr/script"},              // 24.11's on
	{text: "SlurmctldPlugstack=/etc/x"},               // 22.05's only
	{text: "FrontendName=fe1 State=UNKNOWN", other: true},
}

// A key that no Slurm from 22.05 to 26.05 knows is an error naming the line and
// the key, and the known key when it is a near miss; keys in any case and keys of
// some of those releases are read.
func TestReadConfUnknownKeys(t *testing.T) {
	for _, c := range confKeyCases {
		_, err := ReadConf([]byte(confLineBase + c.text + "\n"))
		if c.unknown == "" {
			if err != nil {
				t.Errorf("%q: %v", c.text, err)
			}
			continue
		}
		var ce *ConfError
		if !errors.As(err, &ce) || ce.Line != confLineFirst || !strings.Contains(ce.Msg, "unknown key "+c.unknown+"=") {
			t.Errorf("%q: %v, want line %d: unknown key %s=", c.text, err, confLineFirst, c.unknown)
			continue
		}
		if hint := "did you mean " + c.near + "?"; c.near != "" && !strings.Contains(ce.Msg, hint) {
			t.Errorf("%q: %v, want %q", c.text, err, hint)
		} else if c.near == "" && strings.Contains(ce.Msg, "did you mean") {
			t.Errorf("%q: %v, want no suggestion", c.text, err)
		}
	}
}

// didYouMean skips table keys whose length differs from the key's by more than
// the limit (the distance is at least that difference); its answers are those of
// the plain loop over every key, on near misses of every table key (one and two
// random edits) and on random strings.
func TestDidYouMeanMatchesPlainLoop(t *testing.T) {
	plain := func(table []confKey, key string) string {
		if len(key) < 2 {
			return "" // one letter is near every other: no hint
		}
		limit := 1
		if len(key) > 5 {
			limit = 2
		}
		best, bestD := "", limit+1
		for _, k := range table {
			if d := textin.EditDistance(strings.ToLower(key), strings.ToLower(k.Name)); d < bestD {
				best, bestD = k.Name, d
			}
		}
		if best == "" {
			return ""
		}
		return " (did you mean " + best + "?)"
	}
	rng := rand.New(rand.NewPCG(7, 11))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	edit := func(s string) string {
		b := []byte(s)
		i := rng.IntN(len(b) + 1)
		switch rng.IntN(3) {
		case 0: // insert
			return string(b[:i]) + string(letters[rng.IntN(len(letters))]) + string(b[i:])
		case 1: // delete
			if i == len(b) {
				i--
			}
			return string(b[:i]) + string(b[i+1:])
		default: // change
			if i == len(b) {
				i--
			}
			b[i] = letters[rng.IntN(len(letters))]
			return string(b)
		}
	}
	found := 0
	for _, table := range [][]confKey{confGlobalKeys, topoConfKeys} {
		for _, k := range table {
			for _, key := range []string{edit(k.Name), edit(edit(k.Name)), edit(edit(edit(k.Name)))} {
				got, want := didYouMean(table, key), plain(table, key)
				if got != want {
					t.Fatalf("didYouMean(%q) = %q, plain loop %q", key, got, want)
				}
				if got != "" {
					found++
				}
			}
		}
		for range 2000 {
			b := make([]byte, 1+rng.IntN(12))
			for i := range b {
				b[i] = letters[rng.IntN(len(letters))]
			}
			if got, want := didYouMean(table, string(b)), plain(table, string(b)); got != want {
				t.Fatalf("didYouMean(%q) = %q, plain loop %q", b, got, want)
			}
		}
	}
	if found < 400 {
		t.Fatalf("only %d near misses found a key: the cases test little", found)
	}
}

// A key of a megabyte is refused with a message of a line's length that is
// valid UTF-8 (the key was echoed whole, twice, and its suggestion took 16 s of
// CPU); the key's start is kept.
func TestUnknownLongKeyMessage(t *testing.T) {
	for _, key := range []string{strings.Repeat("X", 1<<20), strings.Repeat("é", 1<<19)} {
		for _, conf := range []string{key + "=1\n", "NodeName=n1 " + key + "=1\n"} {
			_, err := ReadConf([]byte(conf))
			if err == nil {
				t.Fatalf("%.20q...: read", conf)
			}
			msg := err.Error()
			if len(msg) > 400 || !utf8.ValidString(msg) || !strings.Contains(msg, key[:40]) {
				t.Errorf("%.20q...: message of %d bytes (valid UTF-8 %v): %.200s", conf, len(msg), utf8.ValidString(msg), msg)
			}
		}
		_, err := ParseTopologyConf(strings.NewReader("SwitchName=s1 " + key + "=1\n"))
		if err == nil || len(err.Error()) > 400 || !utf8.ValidString(err.Error()) {
			t.Errorf("topology.conf: %.200v", err)
		}
	}
}

// A key of other releases than the site's is listed with its line and releases.
func TestConfKeysNotIn(t *testing.T) {
	conf, err := ReadConf([]byte("ClusterName=t\nCertmgrType=certmgr/script\nSlurmctldPlugstack=/x\n" +
		"NodeName=n1 CPUs=1 Topology=t1\nPartitionName=p Nodes=n1 MaxCPUsPerSocket=2\nPowerAction=off Program=/x\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		major, minor int
		want         string
	}{
		{22, 5, "line 2: CertmgrType= is a key of Slurm 24.11 on|line 4: Topology= is a key of Slurm 25.05 on|line 5: MaxCPUsPerSocket= is a key of Slurm 23.02 on|line 6: PowerAction= is a key of Slurm 26.05 on"},
		{23, 2, "line 2: CertmgrType= is a key of Slurm 24.11 on|line 3: SlurmctldPlugstack= is a key of Slurm 22.05 only|line 4: Topology= is a key of Slurm 25.05 on|line 6: PowerAction= is a key of Slurm 26.05 on"},
		{26, 5, "line 3: SlurmctldPlugstack= is a key of Slurm 22.05 only"},
		{26, 11, "line 3: SlurmctldPlugstack= is a key of Slurm 22.05 only"},
	} {
		if got := strings.Join(conf.KeysNotIn(Version{Major: c.major, Minor: c.minor}), "|"); got != c.want {
			t.Errorf("%d.%02d: %s\nwant %s", c.major, c.minor, got, c.want)
		}
	}
}

// The key tables and ReadConf's verdicts against the installed Slurm's parser
// (scontrol parses SLURM_CONF with s_p_parse_file before anything): every key of
// every table, on a line of its own or after its line key, is "Parsing error at
// unrecognized key: KEY" exactly when the table says the release does not know it;
// each case ReadConf refuses is that error for its key, each it reads (and the
// release knows) exits 0. The scontrol on PATH and $PROCALLOC_SLURM_NEW/bin's.
func TestConfKeysOnSlurm(t *testing.T) {
	scontrols := scontrolsToCheck(t, "the key tables are checked against Slurm's parser when it is installed")
	for _, scontrol := range scontrols {
		checkConfKeysWith(t, scontrol)
	}
}

// runScontrolOn writes confLineBase and line into a file of dir and runs scontrol
// on it.
func runScontrolOn(t *testing.T, scontrol, dir, line string) (string, error) {
	t.Helper()
	file := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(file, []byte(confLineBase+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, scontrol, "show", "hostnames", "x1")
	cmd.Env = append(os.Environ(), "SLURM_CONF="+file)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func checkConfKeysWith(t *testing.T, scontrol string) {
	t.Helper()
	dir := t.TempDir()
	out, err := runScontrolOn(t, scontrol, dir, "")
	if err != nil {
		t.Fatalf("%s on the base file: %v\n%s", scontrol, err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cmd := exec.CommandContext(ctx, scontrol, "-V")
	cmd.Env = append(os.Environ(), "SLURM_CONF="+filepath.Join(dir, "slurm.conf"))
	vout, err := cmd.Output()
	cancel()
	var yy, mm int
	if _, serr := fmt.Sscanf(strings.TrimPrefix(strings.TrimSpace(string(vout)), "slurm-wlm "), "slurm %d.%d", &yy, &mm); serr != nil {
		if _, serr = fmt.Sscanf(strings.TrimPrefix(strings.TrimSpace(string(vout)), "slurm-wlm "), "%d.%d", &yy, &mm); serr != nil {
			t.Fatalf("%s -V: %q %v", scontrol, vout, err)
		}
	}
	release := yy*100 + mm
	t.Logf("%s: Slurm %d.%02d", scontrol, yy, mm)
	unrecognized := func(out, key string) bool {
		return strings.Contains(out, "Parsing error at unrecognized key: "+key+"\n")
	}

	// Every key of every table.
	known, skipped := 0, 0
	for _, k := range confGlobalKeys {
		out, _ := runScontrolOn(t, scontrol, dir, k.Name+"=1")
		if got := !unrecognized(out, k.Name); got != k.knownIn(release) {
			t.Errorf("%s=1: Slurm %d knows it: %v, the table says %v (Since %d, Until %d)\n%s", k.Name, release, got, k.knownIn(release), k.Since, k.Until, out)
		} else if got {
			known++
		}
	}
	lineOf := map[string]string{"nodename": "NodeName=m9", "partitionname": "PartitionName=q9", "nodeset": "NodeSet=ns9",
		"downnodes": "DownNodes=n1", "frontendname": "FrontendName=fe9", "poweraction": "PowerAction=suspend"}
	for lk, sub := range confLineKeys {
		head, _ := lookupConfKey(confGlobalKeys, lk)
		if !head.knownIn(release) {
			continue // the line key itself is refused
		}
		for _, k := range sub {
			line := lineOf[lk] + " " + k.Name + "=1"
			out, _ := runScontrolOn(t, scontrol, dir, line)
			if strings.Contains(out, "--enable-front-end") {
				skipped++
				continue // fatal before the rest of the line is read
			}
			if got := !unrecognized(out, k.Name); got != k.knownIn(release) {
				t.Errorf("%q: Slurm %d knows %s there: %v, the table says %v\n%s", line, release, k.Name, got, k.knownIn(release), out)
			} else if got {
				known++
			}
		}
	}
	t.Logf("%s: %d keys known, as the tables say for %d; %d not checked (FrontendName: a build without front ends stops before reading its line)", scontrol, known, release, skipped)

	// ReadConf's verdicts. A line with a key of other releases than the installed
	// one is refused there, naming the first such key.
	for _, c := range confKeyCases {
		_, ours := ReadConf([]byte(confLineBase + c.text + "\n"))
		out, err := runScontrolOn(t, scontrol, dir, c.text)
		want := ""
		if ours != nil {
			want = c.unknown
		}
		ps := mustPairs(t, c.text)
		head, _ := lookupConfKey(confGlobalKeys, ps[0].Key)
		if !head.knownIn(release) {
			want = ps[0].Key
		} else if ours == nil {
			for _, p := range ps[1:] {
				if k, _ := lookupConfKey(confLineKeys[strings.ToLower(ps[0].Key)], p.Key); !k.knownIn(release) {
					want = p.Key
					break
				}
			}
		}
		switch {
		case c.other && strings.Contains(out, "--enable-front-end"):
			t.Logf("%q: not checked, %s", c.text, strings.TrimSpace(out))
		case want != "" && (err == nil || !unrecognized(out, want)):
			t.Errorf("%q: ReadConf: %v; want scontrol's unrecognized key %s: %v\n%s", c.text, ours, want, err, out)
		case want == "" && (err != nil || strings.Contains(out, "unrecognized key")):
			t.Errorf("%q: ReadConf reads it, scontrol: %v\n%s", c.text, err, out)
		}
		if c.text == confKeyCases[0].text {
			t.Logf("%s: %q: %s", scontrol, c.text, strings.TrimSpace(out))
		}
	}
}

func mustPairs(t *testing.T, line string) []ConfPair {
	t.Helper()
	ps, err := parsePairs(line)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// removedKeyCases are settings of options removed before Slurm 22.05 (two real
// sites' files, written for older Slurm, hold AccountingStoreJobComment=YES) and
// whether Slurm 22.05 stops on them.
var removedKeyCases = []struct {
	line     string
	fatal    bool
	ctldOnly bool // slurmctld stops on it, scontrol reads it
}{
	{"AccountingStoreJobComment=YES", true, false},
	{"accountingstorejobcomment=no", true, false},
	{"FastSchedule=2", true, true},
	{"FastSchedule=0", true, true},
	{"FastSchedule=1", false, false},
	{"SallocDefaultCommand=\"srun -n1 --pty $SHELL\"", true, false},
	{"AccountingStorageLoc=/var/log/slurm/acct", true, false},
	{"AccountingStoreFlags=job_comment", false, false},
}

func TestConfRemovedKeys(t *testing.T) {
	for _, c := range removedKeyCases {
		conf, err := ReadConf([]byte("ClusterName=t\n" + c.line + "\n"))
		if err != nil {
			t.Fatalf("%q: %v", c.line, err)
		}
		got := conf.RemovedKeys(Version{Major: 22, Minor: 5})
		if (len(got) == 1) != c.fatal || c.fatal && !strings.HasPrefix(got[0], "line 2: ") {
			t.Errorf("%q: %q, want fatal %v", c.line, got, c.fatal)
		}
	}
	// AccountingStorageLoc stops 22.05 to 25.05; 26.05 does not know the key.
	conf, err := ReadConf([]byte("AccountingStorageLoc=/x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := conf.RemovedKeys(Version{Major: 26, Minor: 5}); len(got) != 0 {
		t.Errorf("26.05: %q", got)
	}
	if got := conf.KeysNotIn(Version{Major: 26, Minor: 5}); len(got) != 1 {
		t.Errorf("26.05 KeysNotIn: %q", got)
	}
}

// The same settings through the installed Slurm: scontrol reads the file as
// slurmctld does but for FastSchedule, which slurmctld alone stops on (checked on
// slurmctld when run as root, not -short). The fatal message RemovedKeys quotes
// exactly when it lists the line (or KeysNotIn, for a key the release lacks).
func TestConfRemovedKeysOnSlurm(t *testing.T) {
	ctld, _ := exec.LookPath("slurmctld")
	for _, scontrol := range scontrolsToCheck(t, "removed options are checked against Slurm when it is installed") {
		dir := t.TempDir()
		major, minor := 22, 5
		if !strings.HasPrefix(scontrol, "/usr/") {
			major, minor = 26, 5 // $PROCALLOC_SLURM_NEW's
		}
		for _, c := range removedKeyCases {
			out, err := runScontrolOn(t, scontrol, dir, c.line)
			conf, rerr := ReadConf([]byte(confLineBase + c.line + "\n"))
			if rerr != nil {
				t.Fatal(rerr)
			}
			ours := append(conf.RemovedKeys(Version{Major: major, Minor: minor}), conf.KeysNotIn(Version{Major: major, Minor: minor})...)
			fatal := err != nil && strings.Contains(out, "fatal: ")
			if c.ctldOnly {
				if fatal {
					t.Errorf("%s %q: scontrol stops (%s): want slurmctld alone to", scontrol, c.line, strings.TrimSpace(out))
				}
				if ctld == "" || os.Getuid() != 0 || testing.Short() || major != 22 {
					continue
				}
				_, line := slurmtest.SlurmctldPartitions(t, ctld, scontrol, t.TempDir(), "NodeName=a1\nPartitionName=p Nodes=ALL\n"+c.line+"\n")
				out, fatal = line, line != ""
			}
			if fatal != (len(ours) > 0) {
				t.Errorf("%s %q: fatal %v (%s), RemovedKeys and KeysNotIn %q", scontrol, c.line, fatal, strings.TrimSpace(out), ours)
				continue
			}
			if fatal && strings.Contains(ours[0], "removed") {
				msg := ours[0][strings.Index(ours[0], `fatal "`)+7:]
				msg = strings.TrimSuffix(strings.TrimSuffix(msg, `")`), "...")
				if !strings.Contains(out, msg) {
					t.Errorf("%s %q: Slurm says %q, RemovedKeys %q", scontrol, c.line, out, ours[0])
				}
			}
			t.Logf("%s %q: %v", scontrol, c.line, fatal)
		}
	}
}
