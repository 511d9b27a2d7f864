package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/sim/sweep"
)

// shellWord is a word of an example command line: its text after quote removal and
// whether it has an unquoted '*' (a glob the shell would expand).
type shellWord struct {
	text string
	glob bool
}

// shellSplit splits an example into words and the operators | && ; < > (outside
// quotes), removing quotes and backslashes as sh does; a backslash-newline joins
// lines. Enough of sh for the help texts' examples; anything else is an error.
func shellSplit(s string) ([]shellWord, error) {
	var words []shellWord
	var cur strings.Builder
	inWord, glob := false, false
	flush := func() {
		if inWord {
			words = append(words, shellWord{cur.String(), glob})
		}
		cur.Reset()
		inWord, glob = false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i++
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			inWord = true
			i++
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`", s[j+1]) >= 0 {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
			i = j
		case c == ' ' || c == '\t' || c == '\n':
			flush()
		case c == '|' || c == ';' || c == '<' || c == '>':
			flush()
			words = append(words, shellWord{text: string(c)})
		case c == '&' && i+1 < len(s) && s[i+1] == '&':
			flush()
			words = append(words, shellWord{text: "&&"})
			i++
		case c == '$' || c == '`' || c == '&' || c == '(' || c == ')':
			return nil, fmt.Errorf("%q: the example test does not understand %q", s, c)
		default:
			if c == '*' || c == '?' {
				glob = true
			}
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

// shellCommand is one simple command of an example: its words, its redirections and
// whether it reads the previous command's output (a pipe).
type shellCommand struct {
	words         []shellWord
	stdin, stdout string
	piped         bool
}

// parseExample splits an example into its simple commands.
func parseExample(s string) ([]shellCommand, error) {
	words, err := shellSplit(s)
	if err != nil {
		return nil, err
	}
	var cmds []shellCommand
	cur := shellCommand{}
	for i := 0; i < len(words); i++ {
		switch w := words[i]; w.text {
		case "|", "&&", ";":
			if len(cur.words) == 0 {
				return nil, fmt.Errorf("%q: empty command before %s", s, w.text)
			}
			cmds = append(cmds, cur)
			cur = shellCommand{piped: w.text == "|"}
		case "<", ">":
			if i+1 >= len(words) {
				return nil, fmt.Errorf("%q: %s without a file", s, w.text)
			}
			if w.text == "<" {
				cur.stdin = words[i+1].text
			} else {
				cur.stdout = words[i+1].text
			}
			i++
		default:
			cur.words = append(cur.words, w)
		}
	}
	if len(cur.words) == 0 {
		return nil, fmt.Errorf("%q: empty command", s)
	}
	return append(cmds, cur), nil
}

// helpExamples returns every command's examples, lines continued with a backslash
// joined, in command name order.
func helpExamples() (names []string, examples map[string][]string) {
	examples = map[string][]string{}
	for name, c := range commands {
		names = append(names, name)
		joined := strings.ReplaceAll(strings.TrimSpace(c.example), "\\\n", " ")
		for _, l := range strings.Split(joined, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				examples[name] = append(examples[name], l)
			}
		}
	}
	slices.Sort(names)
	return names, examples
}

// Every example of every "procalloc help COMMAND" parses: its flags are the
// command's, none given twice (the flag parsing of run, without running it). The
// test below runs them too.
func TestHelpExamplesParse(t *testing.T) {
	names, examples := helpExamples()
	parsed := 0
	for _, name := range names {
		for _, ex := range examples[name] {
			n, problems := exampleFlagProblems(ex)
			parsed += n
			for _, p := range problems {
				t.Errorf("help %s: %s", name, p)
			}
		}
	}
	if parsed < len(commands) {
		t.Fatalf("%d procalloc command lines in the examples of %d commands", parsed, len(commands))
	}
	t.Logf("%d example command lines of %d commands parsed", parsed, len(commands))
}

// exampleFlagProblems parses the procalloc command lines of an example line (a
// pipeline or sequence of commands) as run parses their flags, without running
// them, and returns how many it parsed and what is wrong with them: an unknown
// command or flag, a value that does not parse, a flag given twice. help and
// version lines are passed over. README's tour and the help examples both go
// through it (TestREADMETourParses, TestHelpExamplesParse).
func exampleFlagProblems(line string) (parsed int, problems []string) {
	cmds, err := parseExample(line)
	if err != nil {
		return 0, []string{err.Error()}
	}
	for _, c := range cmds {
		if c.words[0].text != "procalloc" {
			continue
		}
		if len(c.words) < 2 {
			problems = append(problems, fmt.Sprintf("%q: no command", line))
			continue
		}
		if w := c.words[1].text; w == "help" || w == "version" {
			continue
		}
		cmd, ok := commands[c.words[1].text]
		if !ok {
			problems = append(problems, fmt.Sprintf("%q: unknown command %q", line, c.words[1].text))
			continue
		}
		var args []string
		for _, w := range c.words[2:] {
			args = append(args, w.text)
		}
		fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cmd.flags(fs)
		if dup := repeatedFlag(fs, args); dup != "" {
			problems = append(problems, fmt.Sprintf("%q: --%s given twice", line, dup))
		}
		for rest := args; len(rest) > 0; {
			if err := fs.Parse(rest); err != nil {
				problems = append(problems, fmt.Sprintf("%q: %v", line, err))
				break
			}
			if rest = fs.Args(); len(rest) > 0 {
				rest = rest[1:] // an argument; flags may follow it
			}
		}
		parsed++
	}
	return parsed, problems
}

// exampleRepo makes dir look like the repository's root to the examples: its
// samples (every DIR/testdata, examples/) linked in, and ../shared beside it when
// the shared data is there. Directories are linked inside directories of dir's
// own, so that an example writing into DIR (plan -o out/plan) writes here, not
// into the repository. It reports whether ../shared is there.
func exampleRepo(t *testing.T, dir string) (shared bool) {
	t.Helper()
	link := func(name, target string) bool {
		abs, err := filepath.Abs(target)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(abs); err != nil {
			return false
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
		return true
	}
	shared = link(filepath.Join("..", "shared"), "../../../shared")
	link("examples", "../../examples")
	testdata, _ := filepath.Glob("../../*/testdata")
	for _, d := range testdata {
		link(strings.TrimPrefix(d, "../../"), d)
	}
	return shared
}

// writeYourFile writes a stand-in for a file the examples name as the user's
// own (command.yourFiles) into dir, under its name (an absolute name under dir);
// false when the test has none.
func writeYourFile(t *testing.T, dir, name string) bool {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(data string) {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var hosts strings.Builder
	for i := 1; i <= 16; i++ {
		fmt.Fprintf(&hosts, "node%02d\n", i)
	}
	switch name {
	case "nodes.txt":
		write(hosts.String())
	case "slurm.conf": // a site of 512 nodes for plan's torus example
		write("ClusterName=example\nSlurmctldHost=head\nSelectType=select/cons_tres\nNodeName=nid[001-512] CPUs=1 State=UNKNOWN\nPartitionName=all Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE MaxTime=INFINITE\n")
	case "/etc/slurm/slurm.conf":
		data, err := os.ReadFile("../../plan/testdata/slurm.conf")
		if err != nil {
			t.Fatal(err)
		}
		write(string(data))
	case "/etc/slurm/topology.conf":
		data, err := os.ReadFile(topoConf)
		if err != nil {
			t.Fatal(err)
		}
		write(string(data))
	case "/etc/slurm/topology.yaml": // three topologies, the fat tree the cluster default
		data, err := os.ReadFile("../../topo/testdata/topology.yaml")
		if err != nil {
			t.Fatal(err)
		}
		write(string(data))
	case "partitions.conf": // sim's example: sacct-fattree.txt's two partitions, overlapping
		write("NodeName=node[01-16] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\nPartitionName=debug Nodes=node[13-16]\n")
	case "rings.yaml": // sim's example: Slurm 26.05's topology/ring, two rings of 8 and one of all 16 nodes
		write("- topology: rings\n  cluster_default: true\n  ring:\n    rings:\n      - ring: r1\n        nodes: node[01-08]\n      - ring: r2\n        nodes: node[09-16]\n      - ring: all\n        nodes: node[01-16]\n")
	case "rings.conf": // the same rings as rings.yaml, as a topology.conf's RingName= lines
		write("RingName=r1 Nodes=node[01-08]\nRingName=r2 Nodes=node[09-16]\nRingName=all Nodes=node[01-16]\n")
	case "blocks.conf":
		write("BlockName=b1 Nodes=node[01-04]\nBlockName=b2 Nodes=node[05-08]\nBlockName=b3 Nodes=node[09-12]\nBlockName=b4 Nodes=node[13-16]\nBlockSizes=4,8,16\n")
	case "opt.pairs":
		if code, _, stderr := runCLI(t, "", "curve", "--graph", topoConf, "--curve", "rcm", "-o", path); code != 0 {
			t.Fatalf("stand-in %s: exit %d: %s", name, code, stderr)
		}
	case "pts.txt":
		write("0 0\n1 0\n0 1\n2 2\n3 1\n1 3\n4 4\n2 5\n5 2\n6 6\n")
	case "grid.txt":
		write("0 0\n1 0\n2 0\n0 1\n1 1\n2 1\n0 2\n1 2\n2 2\n")
	case "ring.txt":
		write("1\n5\n9\n60\n62\n33\n")
	case "free.txt":
		var free strings.Builder
		for v := range 100 {
			fmt.Fprintf(&free, "%d\n", 3*v)
		}
		write(free.String())
	case "bunde.shard-*.jsonl", "bunde.jsonl":
		// Results of two shards of examples/bunde2004.yaml, every item done
		// (figures made up: the examples merge and plot them).
		spec, err := sweep.ReadFile("../../examples/bunde2004.yaml")
		if err != nil {
			t.Fatal(err)
		}
		shards := [2]strings.Builder{}
		for _, it := range spec.Items() {
			res, _ := json.Marshal(map[string]any{"jobs": 100, "mean_response": 1000 + it.Index, "mean_total_pairwise_l1": 10 + it.Index%7,
				"comm": map[string]any{"pattern": it.Params.Pattern, "messages": 5000, "mean_latency_cycles": 50 + it.Index%11}})
			b, err := json.Marshal(sweep.Line{Sweep: spec.Name, Item: it, Status: sweep.StatusOK, Result: res})
			if err != nil {
				t.Fatal(err)
			}
			shards[it.Index%2].Write(append(b, '\n'))
		}
		if name == "bunde.jsonl" {
			write(shards[0].String() + shards[1].String())
			break
		}
		for i := range shards {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bunde.shard-%d.jsonl", i)), []byte(shards[i].String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	default:
		return false
	}
	return true
}

// Every example of every "procalloc help COMMAND" runs as printed from the
// repository's root: each command's examples in a directory that holds the
// repository's samples at their paths (exampleRepo) and stand-ins for the files
// the help names as the user's own (command.yourFiles, writeYourFile), nothing
// else. Each is stopped (as by Ctrl-C) after a short deadline: a usage error
// (exit 2, or the usage hint after the deadline), an input that is not there or
// any other failure is the example's fault; only ../shared may be absent (a
// checkout without the shared data). Pipes feed a procalloc command's output to
// the next; cat, mkdir -p and "scontrol show hostnames" are done as sh and Slurm
// would; other programs (sbatch) are not run.
func TestHelpExamplesRun(t *testing.T) {
	deadline := 2 * time.Second
	if testing.Short() {
		deadline = 300 * time.Millisecond
	}
	root := t.TempDir()
	names, examples := helpExamples()
	shared := false
	for _, name := range names { // from the package directory: the samples' paths are relative to it
		work := filepath.Join(root, name)
		if err := os.Mkdir(work, 0o755); err != nil {
			t.Fatal(err)
		}
		shared = exampleRepo(t, work)
		for _, f := range commands[name].yourFiles {
			if !strings.Contains(commands[name].example, f.name) {
				t.Errorf("help %s: names %s as the user's file, but no example uses it", name, f.name)
			}
			if !writeYourFile(t, work, f.name) {
				t.Errorf("help %s: the test has no stand-in for the user's %s", name, f.name)
			}
		}
	}
	if !shared {
		t.Logf("no ../shared: the examples that read it count as absent")
	}
	t.Chdir(root)
	ran, stopped, absent := 0, 0, 0
	for _, name := range names {
		work := filepath.Join(root, name)
		if err := os.Chdir(work); err != nil {
			t.Fatal(err)
		}
		yours := map[string]bool{}
		for _, f := range commands[name].yourFiles {
			yours[f.name] = true
		}
		for _, ex := range examples[name] {
			cmds, err := parseExample(ex)
			if err != nil {
				t.Errorf("help %s: %v", name, err)
				continue
			}
			var out []byte
			for _, c := range cmds {
				var args []string
				for _, w := range c.words {
					if filepath.IsAbs(w.text) && yours[w.text] {
						w.text = filepath.Join(work, w.text) // the user's /etc/slurm/...: its stand-in
					}
					if matches, _ := filepath.Glob(w.text); w.glob && len(matches) > 0 {
						args = append(args, matches...)
					} else {
						args = append(args, w.text)
					}
				}
				var stdin []byte
				switch {
				case c.stdin != "":
					if stdin, err = os.ReadFile(c.stdin); err != nil {
						t.Errorf("help %s: %q: %v", name, ex, err)
					}
				case c.piped:
					stdin = out
				}
				out = nil
				switch {
				case args[0] == "cat":
					for _, f := range args[1:] {
						b, err := os.ReadFile(f)
						if err != nil {
							t.Errorf("help %s: %q: cat: %v", name, ex, err)
						}
						out = append(out, b...)
					}
					continue
				case strings.Join(args, " ") == "scontrol show hostnames":
					out = []byte("node1\nnode2\nnode3\nnode7\n")
					continue
				case len(args) == 3 && args[0] == "mkdir" && args[1] == "-p":
					if err := os.MkdirAll(args[2], 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				case args[0] != "procalloc":
					continue // sbatch: not run
				}
				// Stopped at the deadline as Ctrl-C stops it (main's cause).
				ctx, cancel := context.WithCancelCause(context.Background())
				stop := time.AfterFunc(deadline, func() { cancel(errInterrupted) })
				var stdout, stderr bytes.Buffer
				e := &env{stdin: bytes.NewReader(stdin), stdout: &stdout, stderr: &stderr}
				code := run(ctx, e, args[1:])
				stop.Stop()
				cancel(nil)
				out = stdout.Bytes()
				if c.stdout != "" {
					if err := os.WriteFile(c.stdout, out, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				msg := strings.TrimSpace(stderr.String())
				if strings.Contains(msg, context.Canceled.Error()) {
					t.Errorf("help %s: %q: stopped, says %q: an interrupt is said in the user's words", name, ex, msg)
				}
				if strings.Contains(msg, context.DeadlineExceeded.Error()) {
					t.Errorf("help %s: %q: says %q: a time limit is said in the user's words (which limit)", name, ex, msg)
				}
				switch {
				case code == 2 || strings.Contains(msg, "run 'procalloc help"):
					t.Errorf("help %s: %q: a usage error (exit %d): %s", name, ex, code, msg)
				case code == 0:
					ran++
				case code == exitInterrupted:
					stopped++
				case code == 1 && !shared && strings.Contains(msg, "../shared/") && strings.Contains(msg, "no such file or directory"):
					absent++
					t.Logf("help %s: %q: an input is absent here: %s", name, ex, msg)
				default:
					t.Errorf("help %s: %q: exit %d: %s", name, ex, code, msg)
				}
			}
		}
	}
	t.Logf("examples: %d procalloc command lines ran to the end, %d were stopped after %v, %d lacked an input", ran, stopped, deadline, absent)
}

// The examples' ../shared/ data is not in a fresh clone: every command whose
// examples read it says, under them, where each directory's files come from, and a
// run that finds one missing says it after the error (it said only "open
// ../shared/traces/...: no such file or directory"). Every ../shared/ directory an
// example names has its line.
func TestSharedDataSaidWhereFrom(t *testing.T) {
	sharedPath := regexp.MustCompile(`\.\./shared/[^/ ]+/`)
	for name, c := range commands {
		for _, dir := range sharedPath.FindAllString(c.example, -1) {
			i := slices.IndexFunc(sharedData, func(d sharedDir) bool { return d.dir == dir })
			if i < 0 {
				t.Errorf("help %s: an example reads %s, which sharedData does not describe", name, dir)
				continue
			}
			if _, out, _ := runCLI(t, "", "help", name); !strings.Contains(out, "  "+dir+"  "+sharedData[i].what+"\n") {
				t.Errorf("help %s: an example reads %s, the help does not say where it comes from", name, dir)
			}
		}
	}
	t.Chdir(t.TempDir()) // no ../shared here
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--trace", "../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz", "--machine", "mesh:4x4"}, "sim: ../shared/traces/ is not in the repository: the Parallel Workloads Archive's"},
		{[]string{"compare", "--trace", "../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz", "--machine", "mesh:4x4", "--alloc", "mm,mc1x1"}, "compare: ../shared/traces/ is not in the repository"},
		{[]string{"order", "--qap", "../shared/qaplib/nug12.dat"}, "order: ../shared/qaplib/ is not in the repository: QAPLIB instances"},
		{[]string{"sim", "--trace", "traces/KTH-SP2-1996-2.1-cln.swf.gz", "--machine", "mesh:4x4"}, ""},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != 1 || !strings.Contains(stderr, "no such file or directory") {
			t.Errorf("%q: exit %d, %q", c.args, code, stderr)
		}
		if c.want == "" && strings.Contains(stderr, "not in the repository") || c.want != "" && !strings.Contains(stderr, c.want) {
			t.Errorf("%q: %q, want %q", c.args, stderr, c.want)
		}
	}
}
