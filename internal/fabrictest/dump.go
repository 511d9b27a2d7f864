package fabrictest

import (
	"bufio"
	"fmt"
	"io"

	"github.com/procalloc/procalloc/topo"
)

// DumpForm is the output form of WriteDump.
type DumpForm int

// The forms WriteDump writes.
const (
	IBNetDiscover      DumpForm = iota // ibnetdiscover's default form: Switch and Ca blocks
	IBNetDiscoverPorts                 // ibnetdiscover -p: one line per port
	OPAReport                          // opareport -o topology's XML (its <LinkSummary>)
	SubnetLst                          // OpenSM's opensm-subnet.lst: a line per cabled port
)

// Dump is a network to write as a fabric dump: what the readers' tests and
// benchmarks at 10^5 hosts read, written rather than committed.
type Dump struct {
	Graph *topo.Graph // a switched network: hosts, then switches
	// HostName names host v (its NodeDescription is "NAME mlx5_0", as rdma-ndd
	// writes it); nil: the graph's names.
	HostName func(v int) string
	// Ports is the port count a switch reports (ibnetdiscover's "Switch 40"; the
	// ports past its cables are printed unconnected in the -p form); a switch
	// with more cables reports as many, rounded up to a multiple of 8.
	Ports int
}

// GUIDs as an NVIDIA fabric has them: adapters under one OUI, switches under
// another; an mlx5 adapter's port GUID is its node GUID.
const (
	caGUIDBase     = 0xb83fd20300000000
	switchGUIDBase = 0xfc6a1c0300000000
)

// GUID returns the node GUID WriteDump gives vertex v.
func (d Dump) GUID(v int) uint64 {
	if d.Graph.IsSwitch(v) {
		return switchGUIDBase + uint64(v-d.Graph.N())
	}
	return caGUIDBase + uint64(v)
}

// lid returns the LID of vertex v: switches first from 1, then hosts. One
// InfiniBand subnet has 49,151 unicast LIDs (0x0001-0xBFFF); a larger dump wraps
// round them, which the readers do not look at (opareport's Omni-Path LIDs are
// 24 bits, so there it is no wrap).
func (d Dump) lid(v int) int {
	n := d.Graph.N()
	i := v + (d.Graph.Vertices() - n) // hosts after the switches
	if d.Graph.IsSwitch(v) {
		i = v - n
	}
	return 1 + i%0xbfff
}

func (d Dump) desc(v int) string { return d.descOf(v, "mlx5_0") }

// descOf is v's NodeDescription, a host's adapter called adapter (hfi1_0 on
// Omni-Path).
func (d Dump) descOf(v int, adapter string) string {
	if d.Graph.IsSwitch(v) {
		return "MF0;" + d.Graph.Name(v) + ":MQM9700/U1"
	}
	name := d.Graph.Name(v)
	if d.HostName != nil {
		name = d.HostName(v)
	}
	return name + " " + adapter
}

// WriteDump writes d in form f, as the tools print it (ibnetdiscover.c's
// out_switch, out_switch_port, out_ca, out_ca_port and dump_ports_report;
// opareport.c's <LinkSummary>: see topo's testdata/fattree.* files): nodes in
// breadth-first discovery order from host 0, switches first in the default form;
// every node's ports in -p from the highest down, unconnected ones included.
func WriteDump(w io.Writer, d Dump, f DumpForm) error {
	g := d.Graph
	bw := bufio.NewWriterSize(w, 1<<16)
	// port[v][k]: the port of v's k-th neighbour (ascending), 1-based; peer[v][k]
	// that neighbour's port back.
	nb := make([][]int, g.Vertices())
	for v := range nb {
		nb[v] = g.Neighbors(v, nil)
	}
	portAt := func(v, w int) int { // the port of v cabled to w
		lo, hi := 0, len(nb[v])
		for lo < hi {
			m := (lo + hi) / 2
			if nb[v][m] < w {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo + 1
	}
	numPorts := func(v int) int {
		if !g.IsSwitch(v) {
			return 1
		}
		p := max(d.Ports, len(nb[v]))
		if p > d.Ports {
			p = (p + 7) / 8 * 8
		}
		return p
	}
	order := discovery(g, nb)
	switch f {
	case IBNetDiscover:
		fmt.Fprintf(bw, "#\n# Topology file: generated on Sun Dec  6 21:00:00 2026\n#\n# Initiated from node %016x port %016x\n", d.GUID(0), d.GUID(0))
		for _, pass := range []bool{true, false} {
			for _, v := range order {
				if g.IsSwitch(v) != pass {
					continue
				}
				guid := d.GUID(v)
				if pass {
					fmt.Fprintf(bw, "\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x%016x\nswitchguid=0x%016x(%x)\n", guid, guid, guid)
					fmt.Fprintf(bw, "Switch\t%d \"S-%016x\"\t\t# \"%s\" enhanced port 0 lid %d lmc 0\n", numPorts(v), guid, d.desc(v), d.lid(v))
					for k, w := range nb[v] {
						fmt.Fprintf(bw, "[%d]\t\"%s-%016x\"[%d]", k+1, nodeKind(g, w), d.GUID(w), portAt(w, v))
						if !g.IsSwitch(w) {
							fmt.Fprintf(bw, "(%x) ", d.GUID(w))
						}
						fmt.Fprintf(bw, "\t\t# \"%s\" lid %d 4xNDR\n", d.desc(w), d.lid(w))
					}
					continue
				}
				fmt.Fprintf(bw, "\nvendid=0x2c9\ndevid=0x1021\nsysimgguid=0x%016x\ncaguid=0x%016x\n", guid, guid)
				fmt.Fprintf(bw, "Ca\t%d \"H-%016x\"\t\t# \"%s\"\n", numPorts(v), guid, d.desc(v))
				for k, w := range nb[v] {
					fmt.Fprintf(bw, "[%d](%x) \t\"%s-%016x\"[%d]\t\t# lid %d lmc 0 \"%s\" lid %d 4xNDR\n", k+1, guid, nodeKind(g, w), d.GUID(w), portAt(w, v), d.lid(v), d.desc(w), d.lid(w))
				}
			}
		}
	case IBNetDiscoverPorts:
		// ibnd_iter_nodes walks the fabric's node list, to which discovery
		// prepends: the last found first.
		for i := len(order) - 1; i >= 0; i-- {
			v := order[i]
			for p := numPorts(v); p >= 1; p-- {
				if p > len(nb[v]) {
					fmt.Fprintf(bw, "%2s %5d %2d 0x%016x 4x ???%36s'%s'\n", pKind(g, v), d.lid(v), p, d.GUID(v), "", d.desc(v))
					continue
				}
				w := nb[v][p-1]
				fmt.Fprintf(bw, "%2s %5d %2d 0x%016x 4x NDR - %2s %5d %2d 0x%016x ( '%s' - '%s' )\n", pKind(g, v), d.lid(v), p, d.GUID(v), pKind(g, w), d.lid(w), portAt(w, v), d.GUID(w), d.desc(v), d.desc(w))
			}
		}
	case OPAReport:
		links := 0
		for v := range nb {
			for _, w := range nb[v] {
				if v < w {
					links++
				}
			}
		}
		fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<Report date=\"Sun Dec 06 21:00:00 2026\" unixtime=\"1796590800\" options=\"-o topology\" >\n<LinkSummary>\n    <LinkCount>%d</LinkCount>\n", links)
		for _, v := range order {
			for _, w := range nb[v] {
				if v > w {
					continue
				}
				fmt.Fprintf(bw, "    <Link id=\"0x%x:%d\">\n        <Rate>100g</Rate>\n        <Rate_Int>16</Rate_Int>\n        <Internal>0</Internal>\n", d.GUID(v), portAt(v, w))
				for _, e := range [2][2]int{{v, w}, {w, v}} {
					typ, typInt := "FI", 1
					if g.IsSwitch(e[0]) {
						typ, typInt = "SW", 2
					}
					fmt.Fprintf(bw, "        <Port>\n            <NodeGUID>0x%016x</NodeGUID>\n            <PortNum>%d</PortNum>\n            <NodeType>%s</NodeType>\n            <NodeType_Int>%d</NodeType_Int>\n            <NodeDesc>%s</NodeDesc>\n        </Port>\n", d.GUID(e[0]), portAt(e[0], e[1]), typ, typInt, d.descOf(e[0], "hfi1_0"))
				}
				bw.WriteString("    </Link>\n")
			}
		}
		bw.WriteString("</LinkSummary>\n</Report>\n")
	case SubnetLst:
		// osm_dump.c dump_topology_node, in node GUID order (OpenSM's node table;
		// the hosts' GUIDs are below the switches', each in vertex order):
		// the local record (VenID %06X, DevID %04X), the peer's (VenID %08X, its
		// DevID byte-swapped), "PHY= LOG= SPD=".
		rec := func(v, port int, peer bool) string {
			typ, ports, ven, dev := "CA", numPorts(v), fmt.Sprintf("%06X", 0x2c9), fmt.Sprintf("%04X", 0x1021)
			if g.IsSwitch(v) {
				typ, dev = "SW", fmt.Sprintf("%04X", 0xd2f0)
			}
			if peer {
				ven, dev = fmt.Sprintf("%08X", 0x2c9), dev+"0000"
			}
			return fmt.Sprintf("{ %s Ports:%02X SystemGUID:%016x NodeGUID:%016x PortGUID:%016x VenID:%s DevID:%s Rev:%08X {%s} LID:%04X PN:%02X }", typ, ports, d.GUID(v), d.GUID(v), d.GUID(v), ven, dev, 0xa0, d.desc(v), d.lid(v), port)
		}
		for v := range nb {
			for k, w := range nb[v] {
				fmt.Fprintf(bw, "%s %s PHY=4x LOG=ACT SPD=25\n", rec(v, k+1, false), rec(w, portAt(w, v), true))
			}
		}
	default:
		return fmt.Errorf("unknown dump form %d", f)
	}
	return bw.Flush()
}

// discovery returns g's vertices breadth-first from host 0 (unreached ones after).
func discovery(g *topo.Graph, nb [][]int) []int {
	seen := make([]bool, len(nb))
	var order []int
	for s := range nb {
		if seen[s] {
			continue
		}
		seen[s] = true
		order = append(order, s)
		for i := len(order) - 1; i < len(order); i++ {
			for _, w := range nb[order[i]] {
				if !seen[w] {
					seen[w] = true
					order = append(order, w)
				}
			}
		}
	}
	return order
}

func nodeKind(g *topo.Graph, v int) string {
	if g.IsSwitch(v) {
		return "S"
	}
	return "H"
}

func pKind(g *topo.Graph, v int) string {
	if g.IsSwitch(v) {
		return "SW"
	}
	return "CA"
}
