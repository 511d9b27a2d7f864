package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// compressedInputs names, for each command's help, the inputs it reads through
// textin.Decompress: gzip and bzip2 files (and standard input) read as the plain
// text they hold. TestHelpSaysCompressedInput holds it to the commands' input flags.
var compressedInputs = map[string]string{
	"bench":    "--graph, --node-name-map and --trace files, and an allocator's ranking file (bf:FILE),",
	"compare":  "--trace, --graph, --node-name-map and --hosts files, and an allocator's ranking file (bf:FILE),",
	"curve":    "--graph, --node-name-map and --hosts files, and a ranking file given as --curve,",
	"evaluate": "--graph, --node-name-map and --ranking files, and ranking files given as --curve,",
	"hostlist": "the names read from standard input (-)",
	"merge":    "results files and the --spec sweep file",
	"order":    "--graph, --node-name-map and --qap files",
	"plan":     "--graph, --node-name-map, --hosts and --trace files",
	"plot":     "results files and compare --json outputs",
	"sim":      "--trace, --graph, --node-name-map and --hosts files, and an allocator's ranking file (bf:FILE),",
	"subset":   "--points and --free files",
	"sweep":    "the sweep file and the traces and ranking files it names",
	"voronoi":  "--points files",
}

// printCompressedHelp writes the help's paragraph on compressed input of command
// name (fs: its flags), if it reads any.
func printCompressedHelp(w io.Writer, name string, fs *flag.FlagSet) {
	what, ok := compressedInputs[name]
	if !ok {
		return
	}
	text := "Compressed input: " + what + " may be gzip- or bzip2-compressed (ibnetdiscover | gzip > fabric.gz)"
	if !strings.Contains(what, "standard input") {
		text += ", '-' (standard input) too"
	}
	text += ": told by their content, not their name, and decompressed as they are read; one cut short is an error naming the file."
	// The Slurm files this command reads (bench has no --slurm-conf, plan no
	// slurm:tree:FILE): each said once.
	var slurmFiles []string
	for _, f := range []string{"slurm-conf", "topology-conf"} {
		if fs.Lookup(f) != nil {
			slurmFiles = append(slurmFiles, dashed(f))
		}
	}
	if fs.Lookup("alloc") != nil {
		slurmFiles = append(slurmFiles, "the FILE of slurm:tree:FILE, slurm:block:FILE and slurm:ring:FILE")
	}
	if len(slurmFiles) > 0 {
		text += " Slurm's files (" + strings.Join(slurmFiles, ", ") + ") are read uncompressed only, as Slurm reads them."
	}
	fmt.Fprintf(w, "\n%s\n", wrapWords(text, 88))
}

// wrapWords breaks text into lines of at most width bytes at spaces (a longer word
// stands alone).
func wrapWords(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && n+1+len(word) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}
