package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	_ "time/tzdata" // trace time zones for sim --from/--to dates

	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/internal/textin"
)

// command is one subcommand. Each lives in its own cmd_*.go file and registers itself
// from init, so that commands can be added without touching this file.
type command struct {
	name    string
	summary string // one line, for the command list
	usage   string // synopsis after "procalloc"
	details string // what it does, formats, notes
	example string // one or more example command lines
	// yourFiles names the files the examples read that the repository does not
	// hold: the user's own (or written by another command), each with what it
	// is. Every other input an example names is a sample of the repository, by
	// its path from the repository's root (TestHelpExamplesRun checks both).
	yourFiles []yourFile
	// inPlace names the input flags ("" for the positional arguments) whose file an
	// output may replace, because the output holds that input updated (merge's
	// results files; curve's --slurm-conf with its weights merged in): -o, no
	// other output. Any other output naming an input file is a usage error
	// (outputOverInput).
	inPlace []string
	// dirOutputs names the output flags that name a directory (plan's -o, sweep's
	// --per-job): the others are checked for writability before the command runs.
	dirOutputs []string
	// flags declares the command's flags on fs and returns the function that runs the
	// command once the flags are parsed; args are the remaining arguments.
	flags func(fs *flag.FlagSet) func(ctx context.Context, env *env, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("procalloc: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// env is what a command may touch of the process: standard streams and whether
// stderr is a terminal (for progress bars).
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stderrIsTTY    bool
	// warned holds the input warnings said (printWarnings), so that a file named
	// by many replays (a sweep's items, compare's allocators) is warned of once.
	warned sync.Map
	// cmd is the command run ("sim"), which starts every line said on stderr
	// ("procalloc sim: warning: ..."); set by run.
	cmd string
}

// notef says on stderr what a command wants its user to know, as its errors
// are said: "procalloc CMD: " and the text.
func (e *env) notef(format string, a ...any) {
	prefix := "procalloc: "
	if e.cmd != "" {
		prefix = "procalloc " + e.cmd + ": "
	}
	fmt.Fprintf(e.stderr, prefix+format+"\n", a...)
}

// warnf says a warning on stderr: "procalloc CMD: warning: " and the text.
func (e *env) warnf(format string, a ...any) {
	e.notef("warning: "+format, a...)
}

// usageError marks errors in the command line itself; they exit with status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// parseList reads a flag's comma-separated values with parse; a value parse refuses
// is named in the error, which says what it is not ("an integer").
func parseList[T any](flagName, s string, parse func(string) (T, bool), what string) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, ok := parse(strings.TrimSpace(f))
		if !ok {
			return nil, fmt.Errorf("%s %q: %q is not %s", flagName, s, f, what)
		}
		out = append(out, v)
	}
	return out, nil
}

// refuseRepeats refuses a list flag's value (flagName flagValue) that gives an item
// twice, as a usage error naming it and its two positions (what: "allocators",
// "curves"...): two rows of one measurement, which the command would print side by
// side as if they differed. Every list flag of measurements uses it (--alloc of
// compare, batch and bench, --curve of evaluate, --loads, --comm-per-io, --rate,
// order's --start).
func refuseRepeats[T comparable](flagName, flagValue, what string, items []T) error {
	for i, v := range items {
		if j := slices.Index(items[:i], v); j >= 0 {
			return usagef("%s %q: %v is listed twice (%s %d and %d)", flagName, flagValue, v, what, j+1, i+1)
		}
	}
	return nil
}

// nameList splits a list flag's value of names (flagName flagValue: --curve,
// --start) at commas, trims the names, and refuses an empty one (two commas; it
// was reported as "listed twice" or as a curve named "") and one listed twice,
// as usage errors naming the flag (what: "curve", "start").
func nameList(flagName, flagValue, what string) ([]string, error) {
	names := strings.Split(flagValue, ",")
	for i := range names {
		if names[i] = strings.TrimSpace(names[i]); names[i] == "" {
			return nil, usagef("%s %q: %s %d of the list is empty (two commas?)", flagName, flagValue, what, i+1)
		}
	}
	if err := refuseRepeats(flagName, flagValue, what+"s", names); err != nil {
		return nil, err
	}
	return names, nil
}

// parseInt and parseFinite are parseList's usual parsers.
func parseInt(f string) (int, bool) {
	v, err := strconv.Atoi(f)
	return v, err == nil
}

func parseFinite(f string) (float64, bool) {
	x, err := strconv.ParseFloat(f, 64)
	return x, err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
}

// interruptGrace is how long a command may take, after the first SIGINT or SIGTERM,
// to stop and write its best result (solvers stop within about a second). Work that
// does not poll the interrupt is stopped when it runs out, with its half-written
// output files removed; a result already being written then (a gigabyte ranking) is
// let finish first, for at most outputDrain, since it is what the interrupt asked for.
const interruptGrace = 2 * time.Second

// sameInterrupt is how soon after the first signal a second one is taken for the
// same interrupt delivered twice, not for a second Ctrl-C: timeout(1) sends its
// signal to the command and then to the command's process group, which holds the
// command, so "timeout -s INT 2h procalloc sim ..." delivered SIGINT twice within
// microseconds and the second, taken for an impatient user, removed the results
// the first had asked for (about one run in five on a 2 x 10^5-node torus).
const sameInterrupt = 500 * time.Millisecond

// watchSignals cancels the command on the first signal; on a second one (at least
// sameInterrupt later), or when the command has not finished within grace, it
// removes half-written output files and exits with status 130.
func watchSignals(sigs <-chan os.Signal, cancel context.CancelFunc, grace time.Duration, stderr io.Writer, exit func(int)) {
	<-sigs
	first := time.Now()
	cancel()
	stop := time.After(grace)
wait:
	for {
		select {
		case <-sigs:
			if time.Since(first) < sameInterrupt {
				continue // the first one again (timeout(1), a process group)
			}
			// It stopped without a word: say why, and what is left.
			fmt.Fprintln(stderr, "procalloc: stopped by a second interrupt; unfinished output files removed")
			break wait
		case <-stop:
			// A result being written is let finish (a JSON document cut short on
			// stdout is worse than a late one); no new one starts.
			closeOutputs(outputDrain)
			fmt.Fprintf(stderr, "procalloc: still running %v after the interrupt: stopped; unfinished output files removed\n", grace)
			break wait
		}
	}
	removeTemps()
	exit(exitInterrupted)
	reopenOutputs() // reached only when exit returns (tests)
}

// exitBrokenPipe is the status of a process killed by SIGPIPE (128 + 13), as a
// shell reports "procalloc ... | head" when head stops reading.
const exitBrokenPipe = 141

// watchBrokenPipe ends the process as SIGPIPE's default action does (silently,
// status 141), but first removes the temporary files of the outputs being staged:
// writeOutputs writes standard output before it moves the files into place, so
// "curve --svg x.svg | head" was killed between the two and left x.svg's 17 MB
// temporary file (mesh:512x512) where x.svg should be. Notified, a write to a
// closed pipe also returns EPIPE (run says nothing for it and exits 141).
func watchBrokenPipe(sigs <-chan os.Signal, exit func(int)) {
	<-sigs
	removeTemps()
	exit(exitBrokenPipe)
}

func main() {
	// The first SIGINT or SIGTERM cancels the command's context: long solves stop
	// and write what they have. A second one (sameInterrupt after), or interruptGrace later, stops the
	// process, removing any half-written output file.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go watchSignals(sigs, func() { cancel(errInterrupted) }, interruptGrace, os.Stderr, os.Exit)
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	go watchBrokenPipe(pipes, os.Exit)
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, stderrIsTTY: isTerminal(os.Stderr)}
	os.Exit(run(ctx, e, os.Args[1:]))
}

// run executes one command line and returns the exit status: 0 ok, 1 failure, 2 usage.
func run(ctx context.Context, e *env, args []string) (code int) {
	// A panic is a bug. Unrecovered, Go exits with status 2, which says "usage
	// error" here: report it as a failure (1), with its stack for the bug report.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "procalloc: internal error (a bug: please report it with the command line): %v\n%s", r, debug.Stack())
			code = 1
		}
	}()
	if len(args) == 0 {
		printCommandList(e.stderr)
		return 2
	}
	name := args[0]
	if name == "--version" || name == "-version" {
		name, args = "version", append([]string{"version"}, args[1:]...) // as other tools take it
	}
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 2 {
			fmt.Fprintf(e.stderr, "procalloc help: one command at a time, got %q\n", args[1:])
			return 2
		}
		if len(args) > 1 && args[1] != "help" {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(e.stderr, "procalloc: unknown command %q%s\n", args[1], textin.DidYouMean(args[1], commandNames()))
				printCommandList(e.stderr)
				return 2
			}
			return writeHelp(e, func(w io.Writer) { printCommandHelp(w, c) })
		}
		return writeHelp(e, printCommandList)
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "procalloc: unknown command %q%s\n", name, textin.DidYouMean(name, commandNames()))
		printCommandList(e.stderr)
		return 2
	}
	e.cmd = name
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runFn := c.flags(fs)
	if dup := repeatedFlag(fs, args[1:]); dup != "" {
		fmt.Fprintf(e.stderr, "procalloc %s: flag %s given twice; give it once\nrun 'procalloc help %s' for usage\n", name, dashed(dup), name)
		return 2
	}
	// Flags may come before, between or after the arguments ("sweep SPEC -o F").
	var positional []string
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return writeHelp(e, func(w io.Writer) { printCommandHelp(w, c) })
			}
			fmt.Fprintf(e.stderr, "procalloc %s: %s\nrun 'procalloc help %s' for usage\n", name, dashedFlagError(fs, err), name)
			return 2
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" || (len(rest) > 0 && len(rest) == len(fs.Args()) && rest[0] == "--") {
			positional = append(positional, rest[1:]...)
			break
		}
		positional = append(positional, rest[0])
		rest = rest[1:]
	}
	if err := stdinTwice(fs, positional); err != nil {
		fmt.Fprintf(e.stderr, "procalloc %s: %v\nrun 'procalloc help %s' for usage\n", name, err, name)
		return 2
	}
	if err := outputOverInput(c, fs, positional); err != nil {
		fmt.Fprintf(e.stderr, "procalloc %s: %v\nrun 'procalloc help %s' for usage\n", name, err, name)
		return 2
	}
	// Every output file is checked for writability before any work (order computed
	// for its whole --time-limit before finding -o unwritable).
	var outs []outputFlag
	var badOut string
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(outputFlagNames, f.Name) {
			return
		}
		dash := strings.TrimSuffix(dashed(f.Name), f.Name)
		// An output flag given an empty name ("-o $OUT" with OUT unset) would
		// otherwise write to standard output, or nowhere, without a word.
		if f.Value.String() == "" && badOut == "" {
			switch {
			case slices.Contains(c.dirOutputs, f.Name):
				badOut = dash + f.Name + ` "": an empty directory name`
			case f.Name == "o":
				badOut = `-o "": an empty file name (leave -o out to write to standard output)`
			default:
				badOut = fmt.Sprintf(`%s "": an empty file name (leave %s out not to write that output)`, dash+f.Name, dash+f.Name)
			}
		}
		if !slices.Contains(c.dirOutputs, f.Name) {
			outs = append(outs, outputFlag{dash + f.Name, f.Value.String()})
			// sweep's -o has its own rule (a plain results file under a
			// compressed name resumes: cmd_sweep.go).
			if badOut == "" && !(name == "sweep" && f.Name == "o") {
				badOut = compressedOutputName(dash+f.Name, f.Value.String())
			}
		}
	})
	if badOut != "" {
		fmt.Fprintf(e.stderr, "procalloc %s: %s\nrun 'procalloc help %s' for usage\n", name, badOut, name)
		return 2
	}
	err := checkOutputs(e, outs...)
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(c.dirOutputs, f.Name) {
			err = checkOutputDir(dashed(f.Name), f.Value.String())
		}
	})
	if err == nil {
		// Standard input read so that Ctrl-C ends a read waiting on a silent pipe.
		defer func(stdin io.Reader) { e.stdin = stdin }(e.stdin)
		e.stdin = stdinUntil(ctx, e.stdin)
		err = runFn(ctx, e, positional)
	}
	var ue usageError
	switch {
	case errors.Is(err, syscall.EPIPE):
		// The reader of the output went away ("| head"): the shell's silence and
		// status, as if SIGPIPE had killed the process (watchBrokenPipe).
		return exitBrokenPipe
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "procalloc %s: %v\nrun 'procalloc help %s' for usage\n", name, err, name)
		return 2
	case err != nil:
		fmt.Fprintf(e.stderr, "procalloc %s: %s\n", name, withInputFlag(fs, err))
		if hint := decompressHint(err, args); hint != "" {
			fmt.Fprintf(e.stderr, "procalloc %s: %s\n", name, hint)
		}
		if errors.Is(err, os.ErrNotExist) {
			// An example's ../shared/ file in a checkout without the shared data.
			for _, d := range sharedData {
				if strings.Contains(err.Error(), d.dir) {
					fmt.Fprintf(e.stderr, "procalloc %s: %s is not in the repository: %s\n", name, d.dir, d.what)
					break
				}
			}
		}
	case ctx.Err() != nil:
		fmt.Fprintf(e.stderr, "procalloc %s: interrupted: the output holds what was done before\n", name)
	}
	if ctx.Err() != nil {
		// Interrupted (Ctrl-C or SIGTERM): whatever the command wrote is partial, a
		// best-so-far result at most; 130 is the shell's status for SIGINT, so a
		// script can tell it from a finished run.
		return exitInterrupted
	}
	if err != nil {
		return 1
	}
	return 0
}

// withInputFlag is err's text, with the flag whose file it could not open in
// front when err says only "open FILE: ..." (sim --trace nosuch: "--trace: open
// nosuch: no such file or directory", as plan's --trace and sim's --slurm-conf
// said; a command reads several files).
func withInputFlag(flags *flag.FlagSet, err error) string {
	msg := err.Error()
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "open" || !strings.HasPrefix(msg, "open "+pe.Path+": ") {
		return msg
	}
	var given []string
	flags.Visit(func(f *flag.Flag) {
		if f.Value.String() == pe.Path {
			given = append(given, dashed(f.Name))
		}
	})
	if len(given) != 1 {
		return msg // an argument (sweep FILE), or the same file twice
	}
	return given[0] + ": " + msg
}

// errInterrupted is why the command's context ends on SIGINT or SIGTERM
// (context.WithCancelCause): the libraries return their context's cause when it
// stops them (context.Cause), so their errors say "interrupted" in the user's words,
// and it is context.Canceled (errors.Is) to the code that checks for that.
var errInterrupted error = interruptedError{}

type interruptedError struct{}

func (interruptedError) Error() string        { return "interrupted" }
func (interruptedError) Is(target error) bool { return target == context.Canceled }

// exitInterrupted is the exit status of a command stopped by its first SIGINT or
// SIGTERM after writing what it had (and of the process stopped by a second one).
const exitInterrupted = 130

// writeHelp writes what print prints to standard output and returns the exit
// status: 1, with the error, when it cannot be written (help > /dev/full said
// nothing and exited 0).
func writeHelp(e *env, print func(w io.Writer)) int {
	var b bytes.Buffer
	print(&b)
	if _, err := e.stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintf(e.stderr, "procalloc help: %v\n", err)
		return 1
	}
	return 0
}

// commandNames returns the commands' names, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func printCommandList(w io.Writer) {
	fmt.Fprintln(w, "procalloc: topology-aware processor allocation toolkit")
	fmt.Fprintln(w, "\nusage: procalloc <command> [flags]\n\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nrun 'procalloc help <command>' for a command's flags and examples")
}

func printCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: procalloc %s\n\n%s\n", c.usage, c.summary)
	if c.details != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.details))
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs)
	printCompressedHelp(w, c.name, fs)
	fmt.Fprintln(w, "\nflags:")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		head := "  " + dashed(f.Name)
		if name != "" {
			head += " " + name
		}
		fmt.Fprintf(w, "%s\n        %s", head, strings.ReplaceAll(usage, "\n", "\n        "))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
	if c.example != "" {
		fmt.Fprintf(w, "\nexamples (from the repository's root, whose samples they read):\n")
		for _, line := range strings.Split(strings.TrimSpace(c.example), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	var read []sharedDir
	for _, d := range sharedData {
		if strings.Contains(c.example, d.dir) {
			read = append(read, d)
		}
	}
	if len(read) > 0 {
		fmt.Fprintf(w, "\ndata the examples read from ../shared/, kept beside the repository (not in it):\n")
		width := 0
		for _, d := range read {
			width = max(width, len(d.dir))
		}
		for _, d := range read {
			fmt.Fprintf(w, "  %-*s  %s\n", width, d.dir, d.what)
		}
	}
	if len(c.yourFiles) > 0 {
		fmt.Fprintf(w, "\nfiles the examples name that are yours (the repository has no sample):\n")
		width := 0
		for _, f := range c.yourFiles {
			width = max(width, len(f.name))
		}
		for _, f := range c.yourFiles {
			fmt.Fprintf(w, "  %-*s  %s\n", width, f.name, f.what)
		}
	}
}

// yourFile is a file an example names that the user supplies.
type yourFile struct{ name, what string }

// sharedDir is a directory of ../shared/, the data the examples (and README's)
// read beside the repository, and where a new user gets it (shared.Sources): a
// fresh clone has no ../shared, and "open ../shared/traces/...: no such file or
// directory" did not say.
type sharedDir struct{ dir, what string }

var sharedData = func() []sharedDir {
	var ds []sharedDir
	for _, s := range shared.Sources {
		ds = append(ds, sharedDir{"../shared/" + s.Dir, s.What})
	}
	return ds
}()

// Files several commands' examples name.
var (
	yourNodes    = yourFile{"nodes.txt", "your host names, one per line, e.g. from procalloc hostlist expand 'node[01-16]' -o nodes.txt"}
	yourOptPairs = yourFile{"opt.pairs", "an ordering of the same network's hosts, e.g. from procalloc order --graph ... -o opt.pairs"}
	yourBlocks   = yourFile{"blocks.conf", "your topology/block topology.conf (BlockName=... Nodes=...; curve --format slurm-block writes one)"}
	yourPoints   = yourFile{"pts.txt", "your points, two integer coordinates per line"}
	yourShards   = yourFile{"bunde.shard-*.jsonl", "the results of sweep examples/bunde2004.yaml --shard I/N -o bunde.shard-I.jsonl (a cluster's work)"}
)

// repeatedFlag returns the name of a flag that args set twice ("" when none): the
// flag package would silently keep the last value, which hides typos in long
// command lines.
func repeatedFlag(fs *flag.FlagSet, args []string) string {
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return ""
		}
		if len(a) < 2 || a[0] != '-' {
			continue // an argument, not a flag
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if seen[name] {
			return name
		}
		seen[name] = true
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && bf.IsBoolFlag()) {
			i++ // the next argument is this flag's value
		}
	}
	return ""
}

// dashedFlagError is the flag package's parse error with the flag spelt as the
// help spells it: "invalid value \"abc\" for flag --k" (it wrote -k; -o stays -o),
// and its "parse error" replaced by what the flag's value should be (a duration
// needs its unit: --time-limit 60 was "parse error").
func dashedFlagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok { // a bool flag's own wording
		msg = "invalid value " + strings.Replace(rest, " for -", " for flag -", 1)
	}
	for _, marker := range []string{"for flag -", "provided but not defined: -", "flag needs an argument: -"} {
		i := strings.Index(msg, marker)
		if i < 0 {
			continue
		}
		rest := msg[i+len(marker):]
		end := strings.IndexAny(rest, ": ")
		if end < 0 {
			end = len(rest)
		}
		name := rest[:end]
		if dashed(name) == "--"+name && !strings.HasPrefix(rest, "-") { // as the help spells it
			msg = msg[:i+len(marker)] + "-" + rest
		}
		if marker == "provided but not defined: -" {
			// A typo of a flag's name: name the flag meant (--trce: --trace).
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			hint := textin.DidYouMean(strings.TrimLeft(name, "-"), names, dashed)
			if hint == "" {
				hint = flagElsewhere(fs, strings.TrimLeft(name, "-"))
			}
			msg += hint
		}
		if head, ok := strings.CutSuffix(msg, ": parse error"); ok && marker == "for flag -" {
			if want := flagValueWant(fs.Lookup(name)); want != "" {
				msg = head + ": " + want
			}
		}
		break
	}
	return msg
}

// flagSynonyms are groups of flag names that mean one thing in different
// commands: compare's --loads is sim's and bench's --contract, sim's --alloc is
// subset's --algo, and the work run at once is sweep's -j, compare's --parallel,
// batch's --workers and order's --threads.
var flagSynonyms = [][]string{
	{"contract", "loads", "load", "load-factor"},
	{"alloc", "algo"},
	{"j", "parallel", "workers", "threads"},
}

// flagElsewhere is the hint for a flag name that fs (a command's flags) lacks
// and that is no typo of its own flags: the flag of fs that other commands call
// by that name (sim --loads: " (did you mean --contract?)"), else the commands that have a flag of that name (" (--baseline is a
// flag of procalloc sim)"); "" when none does.
func flagElsewhere(fs *flag.FlagSet, name string) string {
	for _, group := range flagSynonyms {
		if !slices.Contains(group, name) {
			continue
		}
		for _, syn := range group {
			if fs.Lookup(syn) != nil {
				return fmt.Sprintf(" (did you mean %s?)", dashed(syn))
			}
		}
	}
	var has []string
	for _, c := range commandNames() {
		if c == fs.Name() {
			continue
		}
		other := flag.NewFlagSet(c, flag.ContinueOnError)
		commands[c].flags(other)
		if other.Lookup(name) != nil {
			has = append(has, "procalloc "+c)
		}
	}
	switch len(has) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (%s is a flag of %s)", dashed(name), has[0])
	}
	return fmt.Sprintf(" (%s is a flag of %s and %s)", dashed(name), strings.Join(has[:len(has)-1], ", "), has[len(has)-1])
}

// dashed is a flag's name as the help spells it: -o FILE and -j N, as in
// compilers, make and most Unix tools; every other flag with two dashes (--trace,
// --k).
func dashed(name string) string {
	if name == "o" || name == "j" {
		return "-" + name
	}
	return "--" + name
}

// flagValueWant says what a value of flag f looks like, by its type ("" unknown).
func flagValueWant(f *flag.Flag) string {
	if f == nil {
		return ""
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return "want a duration with a unit, e.g. 30s, 5m or 1h30m"
	case int, int64:
		return "want an integer"
	case uint, uint64:
		return "want an integer of at least 0"
	case float64:
		return "want a number"
	case bool:
		return "want true or false"
	}
	return ""
}
