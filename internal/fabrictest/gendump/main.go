// Command gendump writes a synthetic machine as a fabric dump (package fabrictest's
// WriteDump): the files the readers were measured on at 10^5 hosts, written on
// demand rather than committed (docs/reliability.md, wt-fabric2).
//
//	go run ./internal/fabrictest/gendump -form ibnetdiscover 'fattree:16,16:16,16:16,16:32' > ft.ibnet
//
// Hosts are named n000000, n000001, ... (-prefix, -digits), as a slurm.conf's
// NodeName=n[000000-131071] names them.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/topo"
)

func main() {
	form := flag.String("form", "ibnetdiscover", "ibnetdiscover, ibnetdiscover-p, opareport or subnet-lst")
	prefix := flag.String("prefix", "n", "host name prefix")
	digits := flag.Int("digits", 6, "host number digits")
	ports := flag.Int("ports", 40, "ports a switch reports")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gendump [-form F] MACHINE-SPEC > DUMP")
		os.Exit(2)
	}
	forms := map[string]fabrictest.DumpForm{"ibnetdiscover": fabrictest.IBNetDiscover, "ibnetdiscover-p": fabrictest.IBNetDiscoverPorts, "opareport": fabrictest.OPAReport, "subnet-lst": fabrictest.SubnetLst}
	f, ok := forms[*form]
	if !ok {
		fmt.Fprintf(os.Stderr, "gendump: unknown -form %q\n", *form)
		os.Exit(2)
	}
	m, err := topo.ParseMachine(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendump:", err)
		os.Exit(1)
	}
	g, ok := m.(*topo.Graph)
	if !ok {
		fmt.Fprintln(os.Stderr, "gendump: not a switched network:", flag.Arg(0))
		os.Exit(1)
	}
	d := fabrictest.Dump{Graph: g, Ports: *ports, HostName: func(v int) string { return fmt.Sprintf("%s%0*d", *prefix, *digits, v) }}
	if err := fabrictest.WriteDump(os.Stdout, d, f); err != nil {
		fmt.Fprintln(os.Stderr, "gendump:", err)
		os.Exit(1)
	}
}
