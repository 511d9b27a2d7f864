package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTypoNamesTheNearOne: a command, flag, allocator, curve, machine kind,
// scheduler, subset algorithm, order method or hostlist action with a typo was
// refused with the list of valid names (or none: an unknown flag) and no hint of the
// one meant; each names it now, and a name near none of them gets no hint (the
// twenty-fourth round's new user's pass, wt-newuser, 2026-12-07).
func TestTypoNamesTheNearOne(t *testing.T) {
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	for _, tc := range []struct {
		args []string
		want string // "" for no hint
	}{
		{[]string{"simm"}, `unknown command "simm" (did you mean sim?)`},
		{[]string{"help", "comapre"}, `unknown command "comapre" (did you mean compare?)`},
		{[]string{"frobnicate"}, ""},
		{[]string{"sim", "--trce", llnl}, "flag provided but not defined: --trce (did you mean --trace?)"},
		{[]string{"sweep", "--jj", "2"}, "flag provided but not defined: --jj (did you mean -j?)"},
		{[]string{"sim", "--frobnicate", llnl}, ""},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mc1x2"}, `unknown allocator "mc1x2" (did you mean mc1x1?); valid:`},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "bf:hilbret"}, `unknown curve "hilbret" (and no such ranking file) (did you mean hilbert?); valid curves:`},
		{[]string{"curve", "--machine", "mesh:4x4", "--curve", "snaek"}, `(did you mean snake?)`},
		{[]string{"evaluate", "--machine", "mesh:4x4", "--curve", "mortn"}, `(did you mean morton?)`},
		{[]string{"sim", "--trace", llnl, "--machine", "mseh:16x16", "--alloc", "mm"}, `unknown kind "mseh" (want mesh, torus, fattree or dragonfly) (did you mean mesh?)`},
		{[]string{"subset", "--algo", "mm", "--k", "2", "--machine", "trous:4x4", "--free", "-"}, `(did you mean torus?)`},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--sched", "esay"}, `--sched "esay": want fcfs, easy, cplant or as-run (did you mean easy?)`},
		{[]string{"subset", "--algo", "exactt", "--k", "2", "--points", "x"}, `unknown --algo "exactt" (did you mean exact?)`},
		{[]string{"order", "--machine", "mesh:3x3", "--method", "bbb"}, `--method "bbb": want auto, mip, bb, dp, local (did you mean bb?)`},
		{[]string{"hostlist", "expnad", "n1"}, `hostlist "expnad": want expand or compress (did you mean expand?)`},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "nosuch"}, ""},
		{[]string{"order", "--machine", "mesh:3x3", "--formulation", "widnow"}, `--formulation "widnow": want window, window3, aj, aj-sym (did you mean window?)`},
		{[]string{"netsim", "--machine", "mesh:4x4", "--rate", "0.1", "--engine", "flti"}, `--engine "flti": flit or message (did you mean flit?)`},
		{[]string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "--format", "paris"}, `unknown ranking format "paris" (want pairs, ranks, order, json, hosts, hostlist, rankfile, mpich-rank-order, jgf, slurm-weight) (did you mean pairs?)`},
		{[]string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "--format", "slurm-topolgy"}, `(or a network format: slurm-topology, slurm-torus3d, slurm-block) (did you mean slurm-topology?)`},
		{[]string{"netsim", "--machine", "mesh:4x4", "--rate", "0.1", "--traffic", "unifrom"}, `unknown traffic pattern "unifrom" (did you mean uniform?); valid:`},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--pattern", "hallo2d"}, `unknown communication pattern "hallo2d" (did you mean halo2d?); valid:`},
		{[]string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", "../../plan/testdata/slurm.conf", "--deployment", "wieghts", "-o", "x"}, `deployment "wieghts": want one of current, as-run, weights, names, tree, block, torus3d (did you mean weights?)`},
		// The twenty-ninth round's new user: --compat had no hint; a flag another
		// command names otherwise (compare's --loads is sim's --contract; sim's
		// --alloc is subset's --algo) none.
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--compat", "prmeas"}, `--compat "prmeas": want premas, sst or empty (did you mean premas?)`},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--loads", "0.5"}, "flag provided but not defined: --loads (did you mean --contract?)"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--algo", "mm"}, "flag provided but not defined: --algo (did you mean --alloc?)"},
		{[]string{"subset", "--alloc", "mm", "--k", "2", "--points", "x"}, "flag provided but not defined: --alloc (did you mean --algo?)"},
		{[]string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--load", "1"}, "flag provided but not defined: --load (did you mean --loads?)"},
		{[]string{"bench", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "--loads", "1"}, "flag provided but not defined: --loads (did you mean --contract?)"},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "bf:hilbert:rign"}, `allocator "bf:hilbert:rign": unknown option "rign" after the curve (did you mean ring?): bf:CURVE[:ring]`},
		{[]string{"sim", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "slurm:tre:x.conf"}, `not "tre:x.conf" (did you mean tree?)`},
		{[]string{"compare", "--trace", llnl, "--machine", "mesh:16x16", "--alloc", "mm", "-j", "2"}, "flag provided but not defined: -j (did you mean --parallel?)"},
		{[]string{"sweep", "x.yaml", "--parallel", "2"}, "flag provided but not defined: --parallel (did you mean -j?)"},
		{[]string{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "bt", "-j", "2"}, "flag provided but not defined: -j (did you mean --workers?)"},
		{[]string{"order", "--machine", "mesh:3x3", "--workers", "2"}, "flag provided but not defined: --workers (did you mean --threads?)"},
	} {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		if code != 2 || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want 2 and nothing", tc.args, code, stdout)
		}
		if tc.want == "" {
			if strings.Contains(stderr, "did you mean") {
				t.Errorf("%q: %q, want no hint", tc.args, stderr)
			}
		} else if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "did you mean") != 1 {
			t.Errorf("%q: %q, want %q, one hint", tc.args, stderr, tc.want)
		}
	}
}

// TestRepeatedShortFlagSpelt: a one-letter flag given twice was spelt --o and --j,
// where the help writes -o and -j.
func TestRepeatedShortFlagSpelt(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"evaluate", "--machine", "mesh:4x4", "--curve", "snake", "-o", "a", "-o", "b"}, "flag -o given twice"},
		{[]string{"sweep", "-j", "2", "-j", "3", "x.yaml"}, "flag -j given twice"},
		{[]string{"curve", "--machine", "mesh:4x4", "--curve", "snake", "--curve", "hilbert"}, "flag --curve given twice"},
		{[]string{"cluster", "--k", "3", "--k", "4"}, "flag --k given twice"}, // one letter, two dashes as the help writes it
		{[]string{"cluster", "--kk", "3"}, "flag provided but not defined: --kk (did you mean --k?)"},
	} {
		if code, _, stderr := runCLI(t, "", tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestHostlistStdinEncoding: hostlist's standard input saved by Windows Notepad (a
// UTF-8 byte-order mark, CRLF) or as UTF-16 reads as every other text input does:
// the mark was part of the first name ("\ufeffn1,n[2-4]"), UTF-16 compressed to
// garbage with exit 0.
func TestHostlistStdinEncoding(t *testing.T) {
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"\ufeffn1\r\nn2\r\nn3\r\nn4\r\n", []string{"hostlist", "compress", "-"}, 0, "n[1-4]\n"},
		{"\ufeffn1\nn2\nn3\nn4\n", []string{"hostlist", "compress"}, 0, "n[1-4]\n"},
		{"\ufeffn[1-2]\r\n", []string{"hostlist", "expand", "-"}, 0, "n1\nn2\n"},
		{"\xff\xfen\x001\x00\n\x00", []string{"hostlist", "compress", "-"}, 1, "-: line 1: the input is UTF-16 text"},
		{"\xff\xfen\x001\x00\n\x00", []string{"hostlist", "expand", "-"}, 1, "-: line 1: the input is UTF-16 text"},
	} {
		code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
		got := stdout
		if tc.code != 0 {
			got = stderr
		}
		if code != tc.code || !strings.Contains(got, tc.want) {
			t.Errorf("%q on %q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, tc.stdin, code, stdout, stderr, tc.code, tc.want)
		}
	}
}

// TestResultsByteOrderMark: sweep results saved with a UTF-8 byte-order mark
// merge and plot as without it (merge took line 1 for damaged and its item for
// missing, exit 1; plot said "invalid character 'ï'").
func TestResultsByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	line := `{"sweep":"s","sweep_id":"a87e9f4725e4cee4","index":0,"key":"39af54dfa5b0964b","params":{"trace":"t","machine":"mesh:4x4","alloc":"mc1x1","sched":"fcfs","contract":1,"pattern":"none","seed":1},"status":"failed","error":"x","seconds":0.1}` + "\n"
	plain, bom := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "bom.jsonl")
	if err := os.WriteFile(plain, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bom, []byte("\ufeff"+strings.ReplaceAll(line, "\n", "\r\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode, wantOut, _ := runCLI(t, "", "merge", plain)
	code, stdout, stderr := runCLI(t, "", "merge", bom)
	if code != wantCode || stdout != wantOut || strings.Contains(stderr, "damaged") {
		t.Errorf("merge of results with a byte-order mark: exit %d, %q, %q; want %d, %q", code, stdout, stderr, wantCode, wantOut)
	}
	_, _, wantErr := runCLI(t, "", "plot", plain)
	if _, _, stderr := runCLI(t, "", "plot", bom); strings.ReplaceAll(stderr, bom, plain) != wantErr {
		t.Errorf("plot of results with a byte-order mark: %q, want %q", stderr, wantErr)
	}
}
