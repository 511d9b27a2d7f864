package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/procalloc/procalloc/internal/textin"
)

// outputFlag is one output of a command: the flag that names it and its path.
type outputFlag struct{ flag, path string }

// checkOutputs checks, before a command computes anything (run calls it with every
// output flag given, but directories), that every output can be written: each regular file (new or replaced) gets its temporary file
// created and removed in the target's directory, exactly as the final write will, so
// an unwritable directory or a read-only file fails now, naming its flag, and not
// after an hour of computing (or after another output was already written). Two
// flags naming the same file are a usage error. Standard output, devices and FIFOs
// (opening a FIFO would wait for a reader) are not checked.
func checkOutputs(e *env, outs ...outputFlag) error {
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		dest, err := resolveTarget(o.path)
		if err != nil {
			return fmt.Errorf("%s %w", o.flag, err)
		}
		key := filepath.Clean(dest)
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if prev, dup := seen[key]; dup {
			return usagef("%s and %s %s name the same file; give each output its own", prev, o.flag, o.path)
		}
		seen[key] = o.flag + " " + o.path
		if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
			return fmt.Errorf("%s %s: is a directory", o.flag, o.path)
		} else if err == nil && !fi.Mode().IsRegular() {
			continue // a device, FIFO or /dev/stdout
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, unwrapPath(err))
		}
		w, err := createOutputFlag(e, o.flag, o.path)
		if err != nil {
			return err
		}
		w.Abort()
	}
	return nil
}

// checkOutputDir checks, before a command computes anything, that the output
// directory path (flag's) can be made or used: it, or the target of a symbolic
// link to it (made there, as a file output is written at its link's target), is a
// directory or does not exist yet, and then its nearest existing parent is a
// directory. plan's -o naming a file, or a path under one, failed only once the
// plan was made (minutes at 10^5 hosts).
func checkOutputDir(flag, path string) error {
	dest, err := resolveTarget(path)
	if err != nil {
		return fmt.Errorf("%s %w", flag, err)
	}
	via := ""
	if dest != path {
		via = " (the target of the symbolic link " + path + ")"
	}
	for d := dest; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil && !fi.IsDir() {
			if d == dest {
				return fmt.Errorf("%s %s: not a directory%s", flag, path, via)
			}
			return fmt.Errorf("%s %s: %s is not a directory, so %s%s cannot be made", flag, path, d, dest, via)
		}
		missing := errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) // under a file: its parent says which
		if err == nil || !missing || filepath.Dir(d) == d {
			if err != nil && !missing {
				return fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
			}
			return nil
		}
	}
}

// compressedOutputName is the usage error for an output file whose name says a
// compression (.gz, .bz2, .xz, .zst: textin.CompressedName), "" for another name:
// procalloc writes its outputs plain, and a plain file under such a name is one that
// gzip -dc (and whoever reads it as its name says) refuses.
func compressedOutputName(flag, path string) string {
	format, plain := textin.CompressedName(path)
	if format == "" {
		return ""
	}
	msg := fmt.Sprintf("%s %s: procalloc writes plain text, not %s: give %s %s and compress it after (%s %s)",
		flag, path, format, flag, plain, format, textin.ShellWord(plain))
	if flag == "-o" {
		msg += fmt.Sprintf(", or leave -o out and pipe standard output (procalloc ... | %s > %s)", format, textin.ShellWord(path))
	}
	return msg
}

// namedOutput is one of a command's outputs for writeOutputs: the flag that names it
// (for errors), its path ("" or "-": standard output) and what goes in it.
type namedOutput struct {
	flag, path string
	write      func(w io.Writer) error
}

// writeOutputs writes a command's outputs, one or several (-o and --svg, --csv,
// --convert), all or none as far as files go: each file goes to its temporary file
// first, and the files are moved into place only when every output was written, so
// a failure in any of them (a full disk, an unwritable directory) leaves every file
// as it was. Outputs to standard output are written after the files are staged and
// before they are moved; an empty path is skipped only for flags other than -o.
func writeOutputs(e *env, outs ...namedOutput) error {
	return commitOutputs(e, nil, outs...)
}

// commitOutputs is writeOutputs for a command that staged a file while it computed
// (stageStream): the staged files are moved into place with the others, or removed
// when any output fails.
func commitOutputs(e *env, staged []*output, outs ...namedOutput) (err error) {
	beginOutput()
	defer endOutput()
	defer func() {
		if err != nil {
			for _, o := range staged {
				o.Abort()
			}
		}
	}()
	var toStdout []namedOutput
	for _, n := range outs {
		if n.path == "" && n.flag != "-o" {
			continue
		}
		if n.path == "" || n.path == "-" {
			toStdout = append(toStdout, n)
			continue
		}
		o, err := createOutputFlag(e, n.flag, n.path)
		if err != nil {
			return err
		}
		staged = append(staged, o)
		if err := n.write(o); err != nil {
			return err
		}
		if err := o.Flush(); err != nil {
			return o.fail(err)
		}
	}
	for _, n := range toStdout {
		o, err := createOutputFlag(e, n.flag, n.path)
		if err != nil {
			return err
		}
		if err := n.write(o); err != nil {
			return err
		}
		if err := o.Commit(); err != nil {
			return err
		}
	}
	for _, o := range staged {
		if err := o.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// stageStream writes a file while the command computes what goes in it (sim's and
// sweep's --per-job rows, as jobs finish) to its temporary file, and leaves it
// there for commitOutputs; on failure nothing is left. Staging is no result under
// way to the interrupt watchdog, which removes the file half-written rather than
// wait for it: counted as one, it kept the process waiting outputDrain (20 s) after
// the grace when a replay did not stop, then SIGKILL from a batch system left its
// temporary file behind. Standard output ("" or "-") is written through.
func stageStream(e *env, flag, path string, write func(w io.Writer) error) (*output, error) {
	o, err := createOutputFlag(e, flag, path)
	if err != nil {
		return nil, err
	}
	if err := write(o); err != nil {
		o.Abort()
		return nil, err
	}
	if err := o.Flush(); err != nil {
		o.Abort()
		return nil, o.fail(err)
	}
	return o, nil
}

// outputFlagNames are the flags that name a file a command writes: every other
// flag's value, and every positional argument, that names an existing file is one
// of its inputs.
var outputFlagNames = []string{"o", "svg", "svg-relative", "per-job", "csv", "convert"}

// outputOverInput refuses an output flag naming the same file as an input (flag
// value or argument; the same file by device and inode, through symlinks and hard
// links): evaluate --ranking r.txt -o r.txt replaced the ranking by the table, and
// curve --graph g -o g the network by its ordering. The inputs of c.inPlace may be
// replaced by -o, the output that holds them updated, and by no other (merge
// r.jsonl --csv r.jsonl replaced the results by their CSV table).
func outputOverInput(c *command, fs *flag.FlagSet, positional []string) error {
	type input struct {
		what    string
		fi      os.FileInfo
		inPlace bool // -o may replace it
	}
	var inputs []input
	add := func(what, path string, inPlace bool) {
		if path == "" || path == "-" {
			return
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			inputs = append(inputs, input{what, fi, inPlace})
		}
	}
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(outputFlagNames, f.Name) {
			add(dashed(f.Name)+" "+f.Value.String(), f.Value.String(), slices.Contains(c.inPlace, f.Name))
		}
	})
	for _, a := range positional {
		add("argument "+a, a, slices.Contains(c.inPlace, ""))
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil || !slices.Contains(outputFlagNames, f.Name) {
			return
		}
		path := f.Value.String()
		if path == "" || path == "-" {
			return
		}
		fi, statErr := os.Stat(path)
		if statErr != nil || !fi.Mode().IsRegular() {
			return
		}
		for _, in := range inputs {
			if os.SameFile(fi, in.fi) && !(in.inPlace && f.Name == "o") {
				err = usagef("%s %s is also the input %s: writing it would replace the input; give the output another file", dashed(f.Name), path, in.what)
				return
			}
		}
	})
	return err
}

// stdinTwice refuses standard input ("-") named by two inputs, flags or arguments:
// the first one read it all and the second found it empty or cut (sim --trace -
// --hosts - read the trace as host names; evaluate --graph - --ranking - read the
// ranking as a graph). Output flags ("-o -": standard output) do not count.
func stdinTwice(fs *flag.FlagSet, positional []string) error {
	var names []string
	fs.Visit(func(f *flag.Flag) {
		if f.Value.String() == "-" && !slices.Contains(outputFlagNames, f.Name) {
			names = append(names, "--"+f.Name)
		}
	})
	if len(names) == 0 {
		return nil // arguments alone: the command says it (merge - -)
	}
	for _, a := range positional {
		if a == "-" {
			names = append(names, "an argument")
		}
	}
	if len(names) < 2 {
		return nil
	}
	return usagef("standard input (-) given to %s: it can be read once; give the others files", strings.Join(names, " and "))
}

// isFlagGiven says whether the flag name was set on the command line.
func isFlagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
