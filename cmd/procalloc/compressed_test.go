package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/compresstest"
	"github.com/procalloc/procalloc/internal/textin"
)

// padTo512 is data followed by zero bytes to a multiple of 512 (a tape's or a
// block device's last block); nil stays nil.
func padTo512(data []byte) []byte {
	if data == nil {
		return nil
	}
	return append(bytes.Clone(data), make([]byte, 512-len(data)%512)...)
}

// sameText reports whether a and b have the same words (a table's columns are as
// wide as the file names in them), less the lines that report a time ("seconds
// 0.001": a solve timed twice takes 0.000 s one run and 0.001 s the next).
func sameText(a, b string) bool {
	words := func(s string) string {
		var keep []string
		for _, line := range strings.Split(s, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] != "seconds" {
				keep = append(keep, f...)
			}
		}
		return strings.Join(keep, " ")
	}
	return words(a) == words(b)
}

// compressedInput is an input file of procalloc's own and a command that reads it.
type compressedInput struct {
	name string // the plain file's name (its extension may say its format)
	data []byte
	args []string // "{F}" is the file
}

// argsWith is c's command line with f for the file.
func (c compressedInput) argsWith(f string) []string {
	return strings.Split(strings.ReplaceAll(strings.Join(c.args, "\x00"), "{F}", f), "\x00")
}

// compressedInputCases are every kind of input file of procalloc's own, each with a
// command that reads it (TestCompressedInputs, TestUnreadCompressionHint).
func compressedInputCases(t *testing.T) []compressedInput {
	t.Helper()
	read := func(path string) []byte {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var trace, points, ranks, hosts strings.Builder
	for i := range 300 {
		fmt.Fprintf(&trace, "%d %d %d %d\n", i*20, 1+i%7, 50+i%90, 200)
	}
	for i := range 12 {
		fmt.Fprintf(&points, "%d %d\n", i*i%11, i*7%5)
	}
	for i := range 16 {
		fmt.Fprintf(&ranks, "%d\n", (i*5)%16)
		fmt.Fprintf(&hosts, "node%02d\n", i+1)
	}
	line := func(i int, alloc string, wait int) string {
		return fmt.Sprintf(`{"sweep":"s","index":%d,"key":"k%d","params":{"trace":"t","machine":"mesh:4x4","alloc":"%s","sched":"fcfs","contract":1,"pattern":"none","seed":1},"status":"ok","result":{"trace":"t.swf","mean_wait":%d}}`+"\n", i, i, alloc, wait)
	}
	results := line(0, "a", 3) + line(1, "b", 5)
	return []compressedInput{
		{"t.txt", []byte(trace.String()), []string{"sim", "--trace", "{F}", "--machine", "mesh:4x4", "--alloc", "ff:snake"}},
		{"h.sacct", read(sacctTrace), []string{"sim", "--trace", "{F}", "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--alloc", "ff:snake", "--sched", "as-run"}},
		{"f.ibnet", read(ibSample), []string{"curve", "--graph", "{F}", "--node-name-map", ibNameMap, "--curve", "rcm"}},
		{"f.ibnet-p", read(ibSampleP), []string{"curve", "--graph", "{F}", "--node-name-map", ibNameMap, "--curve", "rcm"}},
		{"f.lst", read("../../topo/testdata/fattree.subnet-lst"), []string{"curve", "--graph", "{F}", "--node-name-map", ibNameMap, "--curve", "rcm"}},
		{"f.xml", read("../../topo/testdata/fattree.opareport.xml"), []string{"curve", "--graph", "{F}", "--curve", "rcm"}},
		{"f.links", read("../../topo/testdata/fattree.opareport-links.txt"), []string{"curve", "--graph", "{F}", "--curve", "rcm"}},
		{"f.edges", []byte("a b\nb c\nc d\nd a\n"), []string{"curve", "--graph", "{F}", "--curve", "bfs"}},
		{"topology.conf", read(topoConf), []string{"curve", "--graph", "{F}", "--curve", "rcm"}},
		{"topology.yaml", read(topoYAML), []string{"curve", "--graph", "{F}", "--curve", "rcm"}},
		{"map", read(ibNameMap), []string{"curve", "--graph", ibSample, "--node-name-map", "{F}", "--curve", "rcm"}},
		{"p.txt", []byte(points.String()), []string{"subset", "--algo", "exact", "--k", "3", "--points", "{F}"}},
		{"v.txt", []byte(points.String()), []string{"voronoi", "--k", "3", "--points", "{F}"}},
		{"free.txt", []byte("0 1 2 5\n6 9 10\n"), []string{"subset", "--machine", "mesh:4x4", "--free", "{F}", "--k", "3", "--algo", "exact"}},
		{"q.dat", []byte("3\n0 1 2\n1 0 3\n2 3 0\n\n0 5 2\n5 0 1\n2 1 0\n"), []string{"order", "--qap", "{F}"}},
		{"r.ranks", []byte(ranks.String()), []string{"curve", "--machine", "mesh:4x4", "--curve", "{F}"}},
		{"e.ranks", []byte(ranks.String()), []string{"evaluate", "--machine", "mesh:4x4", "--ranking", "{F}"}},
		{"hosts.txt", []byte(hosts.String()), []string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "--hosts", "{F}", "--format", "hosts"}},
		{"s.yaml", []byte("traces: [t]\nmachines: [mesh:4x4]\nallocators: [mc1x1, bf:snake]\n"), []string{"sweep", "{F}", "--list"}},
		{"r.jsonl", []byte(results), []string{"merge", "{F}"}},
		{"p.jsonl", []byte(results), []string{"plot", "{F}", "--y", "mean_wait"}},
	}
}

// TestCompressedInputs: every input of procalloc's own, gzip- or bzip2-compressed,
// gzip'd twice or zero-padded after its gzip or bzip2 data, gives what the plain file gives
// (exit code and standard output), as a file and on standard input; cut short, it is an error, exit 1, that says "truncated" and
// names the file. Before, only traces were read compressed: every other input was
// refused ("the input is gzip-compressed ...: gunzip it first"); until
// wt-inleft, a .gz.gz file was refused as garbage by each format's reader and
// zero padding was "the gzip file is damaged (a bad header after line N ...)".
func TestCompressedInputs(t *testing.T) {
	dir := t.TempDir()
	var hosts strings.Builder
	for i := range 16 {
		fmt.Fprintf(&hosts, "node%02d\n", i+1)
	}
	stdin := 0
	for _, c := range compressedInputCases(t) {
		plain := filepath.Join(dir, c.name)
		if err := os.WriteFile(plain, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		args := c.argsWith
		wantCode, wantOut, wantErr := runCLI(t, "", args(plain)...)
		if wantCode != 0 {
			t.Fatalf("%s plain: exit %d, %s", c.name, wantCode, wantErr)
		}
		gz := compresstest.Gzip(t, c.data)
		for _, z := range []struct {
			ext  string
			data []byte
		}{
			{".gz", gz}, {".bz2", compresstest.Bzip2(t, c.data)},
			{".gz.gz", compresstest.Gzip(t, gz)}, // compressed twice: decompressed twice
			// zero padding to a 512-byte block (a tape's, dd conv=sync): read as gzip -d reads it
			{".padded.gz", padTo512(gz)},
			{".padded.bz2", padTo512(compresstest.Bzip2(t, c.data))},
		} {
			if z.data == nil {
				t.Logf("no bzip2 command: %s.bz2 not tried", c.name)
				continue
			}
			path := plain + z.ext
			if ext, ok := strings.CutPrefix(z.ext, ".padded"); ok {
				path = filepath.Join(dir, "padded", c.name+ext) // a ranking's format is in its name
				os.MkdirAll(filepath.Dir(path), 0o755)
			}
			if err := os.WriteFile(path, z.data, 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runCLI(t, "", args(path)...)
			if code != wantCode || !sameText(strings.ReplaceAll(out, path, plain), wantOut) {
				t.Errorf("%s%s: exit %d, %s\nstdout %.300q\nwant exit %d, %.300q", c.name, z.ext, code, stderr, out, wantCode, wantOut)
			}
		}
		if strings.Contains(strings.Join(c.args, " "), "--graph {F}") || c.args[0] == "merge" || c.args[0] == "plot" {
			// standard input ("-"; outputs that do not name their input)
			stdin++
			code, out, stderr := runCLI(t, string(gz), args("-")...)
			if code != wantCode || !sameText(out, wantOut) {
				t.Errorf("%s gzip on standard input: exit %d, %s\nstdout %.300q", c.name, code, stderr, out)
			}
		}
		cut := filepath.Join(dir, "cut-"+c.name+".gz")
		if err := os.WriteFile(cut, gz[:len(gz)-12], 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runCLI(t, "", args(cut)...)
		if code != 1 || out != "" || !strings.Contains(stderr, cut) || !strings.Contains(stderr, "truncated") {
			t.Errorf("%s cut short: exit %d, stdout %.100q, stderr %q; want 1 naming %s as truncated", c.name, code, out, stderr, cut)
		}
	}

	if stdin != 10 {
		t.Errorf("%d inputs tried on standard input, want 10", stdin)
	}
	// hostlist reads standard input.
	wantCode, wantOut, _ := runCLI(t, hosts.String(), "hostlist", "compress", "-")
	if code, out, stderr := runCLI(t, string(compresstest.Gzip(t, []byte(hosts.String()))), "hostlist", "compress", "-"); code != wantCode || out != wantOut || wantOut != "node[01-16]\n" {
		t.Errorf("hostlist compress of gzip: exit %d, %q, %s; want %d, %q", code, out, stderr, wantCode, wantOut)
	}
	gz := compresstest.Gzip(t, []byte(hosts.String()))
	if code, _, stderr := runCLI(t, string(gz[:len(gz)-12]), "hostlist", "compress", "-"); code != 1 || !strings.Contains(stderr, "-: the gzip file is truncated") {
		t.Errorf("hostlist compress of a cut gzip: exit %d, %s", code, stderr)
	}
}

// TestSlurmFilesNotReadCompressed: slurm.conf and the topology.conf of
// slurm:tree:FILE are files Slurm reads, which it does not read compressed: a
// compressed one is refused saying so (exit 1), never read as Slurm would not;
// so is the Flux resource graph curve --flux-graph sets the ids of.
func TestSlurmFilesNotReadCompressed(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	conf, err := os.ReadFile("../../plan/testdata/slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	tc, err := os.ReadFile(topoConf)
	if err != nil {
		t.Fatal(err)
	}
	confGz, tcGz := write("slurm.conf.gz", compresstest.Gzip(t, conf)), write("topology.conf.gz", compresstest.Gzip(t, tc))
	trace := write("t.txt", []byte("0 2 10 20\n5 4 10 20\n"))
	const want = "gzip-compressed, which Slurm does not read"
	for _, args := range [][]string{
		{"curve", "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--curve", "snake", "--format", "slurm-weight", "--slurm-conf", confGz},
		{"plan", "--graph", ibSample, "--node-name-map", ibNameMap, "--slurm-conf", confGz, "-o", filepath.Join(dir, "plan")},
		{"plan", "--graph", ibSample, "--node-name-map", ibNameMap, "--slurm-conf", "../../plan/testdata/slurm.conf", "--topology-conf", tcGz, "-o", filepath.Join(dir, "plan")},
		{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--slurm-conf", confGz, "--alloc", "ff:snake"},
		{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "node[01-16]", "--alloc", "slurm:tree:" + tcGz},
	} {
		code, out, stderr := runCLI(t, "", args...)
		if code != 1 || out != "" || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q; want 1 and %q", args, code, out, stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "plan")); err == nil {
		t.Error("plan wrote its directory for a compressed slurm.conf")
	}
	// Flux's resource graph, which curve --flux-graph writes back with its ids set.
	_, jgf, _ := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--hostlist", "n[01-16]", "--curve", "snake", "--format", "jgf")
	jgfGz := write("g.json.gz", compresstest.Gzip(t, []byte(jgf)))
	if code, _, stderr := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--hostlist", "n[01-16]", "--curve", "hilbert", "--format", "jgf", "--flux-graph", jgfGz, "-o", filepath.Join(dir, "g.json")); code != 1 || !strings.Contains(stderr, "gzip-compressed (it starts with 1F 8B): gunzip it first (Flux reads its resource graph uncompressed") {
		t.Errorf("--flux-graph gzip: exit %d, %s", code, stderr)
	}
	// xz is read nowhere: said so, not read as text.
	xz := write("f.ibnet.xz", []byte("\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46"))
	if code, _, stderr := runCLI(t, "", "curve", "--graph", xz, "--curve", "rcm"); code != 1 || !strings.Contains(stderr, "xz-compressed (it starts with FD 37 7A 58 5A 00), which procalloc does not read: decompress it into procalloc's standard input ('-'), xz -dc FILE | procalloc ... -, or unxz it first") {
		t.Errorf("xz dump: exit %d, %s", code, stderr)
	}
}

// TestHelpSaysCompressedInput: the help of every command that reads an input file
// of procalloc's own says that it may be compressed, naming each such flag the
// command has (compressedInputs); a command that reads none says nothing of it.
func TestHelpSaysCompressedInput(t *testing.T) {
	inputFlags := []string{"graph", "node-name-map", "trace", "hosts", "points", "free", "qap", "ranking", "spec"}
	positional := map[string]bool{"merge": true, "plot": true, "sweep": true, "hostlist": true}
	for name, c := range commands {
		var b strings.Builder
		printCommandHelp(&b, c)
		help := b.String()
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		c.flags(fs)
		reads := positional[name]
		for _, f := range inputFlags {
			if fs.Lookup(f) == nil {
				continue
			}
			reads = true
			if !strings.Contains(compressedInputs[name], "--"+f) {
				t.Errorf("help %s: --%s is not named among its compressed inputs (%q)", name, f, compressedInputs[name])
			}
		}
		if says := strings.Contains(help, "Compressed input: "); says != reads {
			t.Errorf("help %s: reads input files %v, says so %v", name, reads, says)
		}
	}
	for name := range compressedInputs {
		if commands[name] == nil {
			t.Errorf("compressedInputs names no command %q", name)
		}
	}
}

// TestUnreadCompressionHint: every input of procalloc's own (compressedInputCases),
// xz- or zstd-compressed, which procalloc does not read, is refused (exit 1) naming
// the format, and a second line gives the command line that works, the input
// decompressed into standard input: "xz -dc F | procalloc ARGS" with '-' for F.
// That command, run, gives the plain file's output: every such flag takes '-'.
// Given as '-', the decompressor goes into the pipe; when standard input is taken
// by another input, the file is decompressed to a file first. Before, xz and zstd
// were "unxz it, or compress it with gzip or bzip2", and merge said "line 1 is not
// a results line".
func TestUnreadCompressionHint(t *testing.T) {
	dir := t.TempDir()
	for _, tool := range []struct{ format, cmd, ext string }{{"xz", "xz", ".xz"}, {"zstd", "zstd", ".zst"}} {
		if _, err := exec.LookPath(tool.cmd); err != nil {
			t.Logf("no %s command: %s inputs not tried", tool.cmd, tool.format)
			continue
		}
		compress := func(data []byte) []byte {
			cmd := exec.Command(tool.cmd, "-c")
			cmd.Stdin = bytes.NewReader(data)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		for _, c := range compressedInputCases(t) {
			plain := filepath.Join(dir, c.name)
			if err := os.WriteFile(plain, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, wantOut, _ := runCLI(t, "", c.argsWith(plain)...)
			path := plain + tool.ext
			if err := os.WriteFile(path, compress(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runCLI(t, "", c.argsWith(path)...)
			stdinArgs := c.argsWith("-")
			if strings.HasSuffix(c.name, ".ranks") {
				stdinArgs = append(stdinArgs, "--ranking-format", "ranks") // as the name said
			}
			hint := fmt.Sprintf("procalloc %s: read it through standard input: %s -dc %s | %s\n", c.args[0], tool.cmd, path, shellLine(stdinArgs))
			if code != 1 || out != "" || !strings.Contains(stderr, tool.format+"-compressed") || !strings.HasSuffix(stderr, hint) {
				t.Errorf("%s%s: exit %d, stdout %.80q, stderr %q\nwant 1 and the hint %q", c.name, tool.ext, code, out, stderr, hint)
				continue
			}
			// The command works: the input decompressed on standard input.
			if code, out, stderr := runCLI(t, string(c.data), stdinArgs...); code != 0 || !sameText(out, strings.ReplaceAll(wantOut, plain, "-")) {
				t.Errorf("%s: the hint's command %q: exit %d, %s\nstdout %q\nwant %q", c.name, stdinArgs, code, stderr, out, wantOut)
			}
		}
		// On standard input: the decompressor goes into the pipe.
		trace := []byte("0 2 10 20\n5 4 10 20\n")
		args := []string{"sim", "--trace", "-", "--machine", "mesh:4x4", "--alloc", "ff:snake"}
		hint := fmt.Sprintf("put %s -dc into the pipe: ... | %s -dc | %s\n", tool.cmd, tool.cmd, shellLine(args))
		if code, _, stderr := runCLI(t, string(compress(trace)), args...); code != 1 || !strings.HasSuffix(stderr, hint) {
			t.Errorf("%s on standard input: exit %d, %q; want the hint %q", tool.format, code, stderr, hint)
		}
		// Standard input taken by --graph: the name map is decompressed to a file.
		mapData, err := os.ReadFile(ibNameMap)
		if err != nil {
			t.Fatal(err)
		}
		mapPath := filepath.Join(dir, "names.map"+tool.ext)
		if err := os.WriteFile(mapPath, compress(mapData), 0o644); err != nil {
			t.Fatal(err)
		}
		dump, err := os.ReadFile(ibSample)
		if err != nil {
			t.Fatal(err)
		}
		args = []string{"curve", "--graph", "-", "--node-name-map=" + mapPath, "--curve", "rcm"}
		hint = fmt.Sprintf("standard input is taken: decompress it to a file first: %s -dc %s > %s && procalloc curve --graph - --node-name-map=%s --curve rcm\n",
			tool.cmd, mapPath, strings.TrimSuffix(mapPath, tool.ext), strings.TrimSuffix(mapPath, tool.ext))
		if code, _, stderr := runCLI(t, string(dump), args...); code != 1 || !strings.HasSuffix(stderr, hint) {
			t.Errorf("%s name map with the dump on standard input: exit %d, %q; want the hint %q", tool.format, code, stderr, hint)
		}
		// A ranking named inside an allocator (bf:FILE): refused as compressed, not
		// read as a broken hostlist, and decompressed to a file by the hint, whose
		// command then replays as the plain ranking does.
		_, ranking, _ := runCLI(t, "", "curve", "--machine", "mesh:4x4", "--curve", "hilbert")
		rankPath := filepath.Join(dir, "order"+tool.ext)
		if err := os.WriteFile(rankPath, compress([]byte(ranking)), 0o644); err != nil {
			t.Fatal(err)
		}
		plainRank := filepath.Join(dir, "order")
		args = []string{"sim", "--trace", "-", "--machine", "mesh:4x4", "--alloc", "bf:" + rankPath}
		hint = fmt.Sprintf("decompress it to a file first: %s -dc %s > %s && procalloc sim --trace - --machine mesh:4x4 --alloc bf:%s\n", tool.cmd, rankPath, plainRank, plainRank)
		if code, _, stderr := runCLI(t, string(trace), args...); code != 1 || !strings.Contains(stderr, tool.format+"-compressed") || !strings.HasSuffix(stderr, hint) {
			t.Errorf("%s ranking in bf:FILE: exit %d, %q; want the hint %q", tool.format, code, stderr, hint)
		}
		if err := os.WriteFile(plainRank, []byte(ranking), 0o644); err != nil {
			t.Fatal(err)
		}
		// The ranking is hilbert's: past the title line, bf:hilbert's report.
		_, want, _ := runCLI(t, string(trace), "sim", "--trace", "-", "--machine", "mesh:4x4", "--alloc", "bf:hilbert")
		_, want, _ = strings.Cut(want, "\n")
		code, out, stderr := runCLI(t, string(trace), "sim", "--trace", "-", "--machine", "mesh:4x4", "--alloc", "bf:"+plainRank)
		if _, body, _ := strings.Cut(out, "\n"); code != 0 || want == "" || body != want {
			t.Errorf("the hint's command: exit %d, %s\n%s\nwant past the title\n%s", code, stderr, out, want)
		}
		// A trace named in a sweep file: its item fails with the command that
		// decompresses it to a file and replays the item from there (no standard
		// input reaches an item), which then gives the plain trace's replay.
		sub := filepath.Join(dir, "sweep-"+tool.format)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		tracePath, plainTrace := filepath.Join(sub, "t.txt"+tool.ext), filepath.Join(sub, "t.txt")
		sweepFile, results := filepath.Join(sub, "s.yaml"), filepath.Join(sub, "r.jsonl")
		if err := os.WriteFile(tracePath, compress(trace), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sweepFile, []byte("name: s\ntraces: [t.txt"+tool.ext+"]\nmachines: [mesh:4x4]\nallocators: [ff:snake]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCLI(t, "", "sweep", sweepFile, "-o", results); code != 1 || !strings.Contains(stderr, "1 item failed") {
			t.Fatalf("sweep of a %s trace: exit %d, %s", tool.format, code, stderr)
		}
		lines, err := os.ReadFile(results)
		if err != nil {
			t.Fatal(err)
		}
		var line struct{ Error string }
		if err := json.Unmarshal(lines, &line); err != nil {
			t.Fatal(err)
		}
		prefix := fmt.Sprintf("; decompress it to a file first: %s -dc %s > %s && procalloc sim --trace %s --machine mesh:4x4 --alloc ff:snake ", tool.cmd, tracePath, plainTrace, plainTrace)
		_, rest, ok := strings.Cut(line.Error, prefix)
		command, _, ok2 := strings.Cut(rest, " (or list the decompressed file under the sweep file's traces)")
		if !strings.Contains(line.Error, tool.format+"-compressed") || !ok || !ok2 {
			t.Errorf("sweep item of a %s trace: error %q, want %q...", tool.format, line.Error, prefix)
			continue
		}
		if err := os.WriteFile(plainTrace, trace, 0o644); err != nil {
			t.Fatal(err)
		}
		itemArgs := append([]string{"sim", "--trace", plainTrace, "--machine", "mesh:4x4", "--alloc", "ff:snake"}, strings.Fields(command)...)
		_, want, _ = runCLI(t, string(trace), "sim", "--trace", "-", "--machine", "mesh:4x4", "--alloc", "ff:snake")
		_, want, _ = strings.Cut(want, "\n")
		code, out, stderr = runCLI(t, "", itemArgs...)
		if _, body, _ := strings.Cut(out, "\n"); code != 0 || want == "" || body != want {
			t.Errorf("the sweep hint's command %q: exit %d, %s\n%s\nwant past the title\n%s", itemArgs, code, stderr, out, want)
		}
	}
}

// shellLine is "procalloc ARGS" as a shell reads it (textin.ShellWord).
func shellLine(args []string) string {
	words := []string{"procalloc"}
	for _, a := range args {
		words = append(words, textin.ShellWord(a))
	}
	return strings.Join(words, " ")
}

// TestSweepCompressedResults: sweep -o appends plain lines and resumes from them;
// it neither writes a results file under a compressed name (exit 2, nothing
// created: the file would be plain text that gzip -dc refuses) nor appends to a
// compressed one (exit 1, naming the compression and the command that
// decompresses it; the file unchanged). merge reads the compressed file. Before,
// -o r.jsonl.gz wrote plain lines into r.jsonl.gz, and resuming a gzip'd results
// file said "line 1 is not a results line, and no line is: not a results file of
// procalloc sweep".
func TestSweepCompressedResults(t *testing.T) {
	dir := t.TempDir()
	var trace strings.Builder
	for i := range 40 {
		fmt.Fprintf(&trace, "%d %d %d %d\n", i*20, 1+i%7, 50+i%90, 200)
	}
	tracePath := filepath.Join(dir, "t.txt")
	spec := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(tracePath, []byte(trace.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, []byte("traces: [t.txt]\nmachines: [mesh:4x4]\nallocators: [mc1x1, bf:snake]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"r.jsonl.gz", "r.jsonl.bz2", "r.jsonl.xz", "r.jsonl.zst"} {
		out := filepath.Join(dir, name)
		code, _, stderr := runCLI(t, "", "sweep", spec, "-o", out)
		if _, err := os.Stat(out); code != 2 || !strings.Contains(stderr, "a sweep writes its results plain, not ") || !strings.Contains(stderr, "give -o "+filepath.Join(dir, "r.jsonl")) || err == nil {
			t.Errorf("sweep -o %s: exit %d, %q, file made %v; want 2, a new -o, nothing made", name, code, stderr, err == nil)
		}
	}
	plain := filepath.Join(dir, "r.jsonl")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", plain); code != 0 {
		t.Fatalf("sweep: exit %d, %s", code, stderr)
	}
	results, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "done.jsonl.gz")
	if err := os.WriteFile(gz, compresstest.Gzip(t, results), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "sweep", spec, "-o", gz)
	want := fmt.Sprintf("%s is gzip-compressed (it starts with 1F 8B): a sweep appends plain lines to its results file and reads them back to resume, and does not write into a compressed one: decompress it (gzip -dc %s > %s) and give -o %s",
		gz, gz, strings.TrimSuffix(gz, ".gz"), strings.TrimSuffix(gz, ".gz"))
	if got, _ := os.ReadFile(gz); code != 1 || !strings.Contains(stderr, want) || !bytes.Equal(got, compresstest.Gzip(t, results)) {
		t.Errorf("sweep -o onto a gzip'd results file: exit %d, %q\nwant 1, %q, the file unchanged", code, stderr, want)
	}
	_, wantMerge, _ := runCLI(t, "", "merge", plain)
	if code, out, stderr := runCLI(t, "", "merge", gz); code != 0 || out != wantMerge {
		t.Errorf("merge of the gzip'd results: exit %d, %s", code, stderr)
	}
}

// TestCompressedOutputNameRefused: an output file named as compressed (.gz, .bz2,
// .xz, .zst) is a usage error before any work, for -o and the other output flags,
// and nothing is made: procalloc writes plain text, which gzip -dc would refuse
// under that name. sweep's -o keeps its own rule (TestSweepCompressedResults).
func TestCompressedOutputNameRefused(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(trace, []byte("0 2 10 20\n5 3 10 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		flag, name, format string
		args               []string
	}{
		{"-o", "order.txt.gz", "gzip", []string{"curve", "--machine", "mesh:4x4", "--curve", "snake"}},
		{"-o", "hosts.bz2", "bzip2", []string{"hostlist", "expand", "node[1-3]"}},
		{"-o", "r.json.xz", "xz", []string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1"}},
		{"--per-job", "jobs.csv.zst", "zstd", []string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1"}},
	}
	for _, c := range cases {
		out := filepath.Join(dir, c.name)
		args := append(slices.Clone(c.args), c.flag, out)
		code, stdout, stderr := runCLI(t, "", args...)
		plain := strings.TrimSuffix(out, filepath.Ext(out))
		want := fmt.Sprintf("%s %s: procalloc writes plain text, not %s: give %s %s and compress it after", c.flag, out, c.format, c.flag, plain)
		if _, err := os.Stat(out); code != 2 || !strings.Contains(stderr, want) || stdout != "" || err == nil {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, file made %v; want 2, %q, nothing made", args, code, stdout, stderr, err == nil, want)
		}
		// The same command with the plain name works: the refusal is the name's.
		args[len(args)-1] = plain
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}
