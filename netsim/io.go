package netsim

import (
	"fmt"
	"math"

	"github.com/procalloc/procalloc/topo"
)

// IORouter is dimension-ordered routing on a 2D mesh with I/O nodes attached along
// one side (Liu, Hsu and Wu, "I/O Processor Allocation for Mesh Cluster Computers",
// §2 and §5.1; the machine spec mesh:XxY:io=SIDE). Endpoints 0..N-1 are the compute
// nodes, N..N+K-1 the K I/O nodes; I/O node j has one bidirectional link to the
// compute node g.IO().Attach(j), two channels after the mesh's. A message to an I/O
// node takes the mesh's x-y route to the attachment node and then that link; a
// message from one takes the link and then the x-y route. So, as Mache et al.
// observed for I/O nodes in a column, all writes to a left-hand column of I/O nodes
// share the column's vertical links.
type IORouter struct {
	mesh   *GridRouter
	io     *topo.IO
	n      int
	base   int32 // first I/O link channel
	attach []int
}

// NewIORouter returns the router of a mesh with I/O nodes; g must have them.
func NewIORouter(g *topo.Grid) (*IORouter, error) {
	io := g.IO()
	if io == nil {
		return nil, fmt.Errorf("netsim: machine %s has no I/O nodes (use a spec such as mesh:16x16:io=left)", g.Spec())
	}
	r := &IORouter{mesh: NewGridRouter(g), io: io, n: g.N()}
	r.base = int32(r.mesh.Channels())
	for j := range io.Count {
		r.attach = append(r.attach, io.Attach(j))
	}
	return r, nil
}

// Endpoints is the compute nodes plus the I/O nodes.
func (r *IORouter) Endpoints() int { return r.n + len(r.attach) }

// Channels is the mesh's channels plus two per I/O link (to and from the I/O node).
func (r *IORouter) Channels() int { return int(r.base) + 2*len(r.attach) }

// Spec is the machine spec followed by " dor".
func (r *IORouter) Spec() string { return r.mesh.Spec() }

// IONodes is the number K of I/O nodes; the first is endpoint Endpoints()-K.
func (r *IORouter) IONodes() int { return len(r.attach) }

// IONode returns the endpoint of I/O node j.
func (r *IORouter) IONode(j int) int { return r.n + j }

// IOIndex returns j for the endpoint of I/O node j (IONode's inverse).
func (r *IORouter) IOIndex(endpoint int) int { return endpoint - r.n }

// routeRuns appends Route's route as runs of evenly spaced channel ids (the
// engine's form of it on a 2D mesh).
func (r *IORouter) routeRuns(src, dst int, runs []routeRun) []routeRun {
	if src == dst {
		return runs
	}
	from, to := src, dst
	if src >= r.n {
		j := src - r.n
		runs = append(runs, routeRun{r.base + int32(2*j+1), 0, 1})
		from = r.attach[j]
	}
	if dst >= r.n {
		to = r.attach[dst-r.n]
	}
	runs = r.mesh.runs2DMesh(from, to, runs)
	if dst >= r.n {
		runs = append(runs, routeRun{r.base + int32(2*(dst-r.n)), 0, 1})
	}
	return runs
}

// Route appends the route from src to dst (see IORouter).
func (r *IORouter) Route(src, dst int, buf []int32) []int32 {
	if src == dst {
		return buf
	}
	from, to := src, dst
	if src >= r.n {
		j := src - r.n
		buf = append(buf, r.base+int32(2*j+1)) // I/O node j -> its attachment
		from = r.attach[j]
	}
	if dst >= r.n {
		to = r.attach[dst-r.n]
	}
	buf = r.mesh.Route(from, to, buf)
	if dst >= r.n {
		buf = append(buf, r.base+int32(2*(dst-r.n))) // attachment -> I/O node
	}
	return buf
}

// IOParams are the bandwidths of Liu et al. §5.1, which fix the length of a cycle
// and how long an I/O node's disk takes to write a message.
type IOParams struct {
	// LinkBytesPerSecond is the bandwidth of every link (Liu: 11.65 MB/s); a cycle
	// is the time a link takes to carry one flit.
	LinkBytesPerSecond float64
	// DiskBytesPerSecond is the speed at which an I/O node writes to its disk (Liu:
	// 4.545 MB/s); what arrives faster waits in the I/O node's queue.
	DiskBytesPerSecond float64
}

// LiuIOParams are the measurements of Liu et al. §5.1 (1 MB = 10^6 bytes).
func LiuIOParams() IOParams {
	return IOParams{LinkBytesPerSecond: 11.65e6, DiskBytesPerSecond: 4.545e6}
}

// MinBytesPerSecond and MaxBytesPerSecond bound the bandwidths Validate accepts (1
// byte/s to 1 PB/s), and MaxDiskCycles the time a disk may take to write one message
// (the engine's parameter bound, 2^20 cycles): beyond, a rate's cycle count
// overflows (a disk of 1e-300 MB/s became one cycle per message) or the simulated
// time grows without a useful answer (1e-9 MB/s ran for minutes).
const (
	MinBytesPerSecond = 1.0
	MaxBytesPerSecond = 1e15
	MaxDiskCycles     = maxParam
)

// Validate reports bandwidths that are not finite numbers between MinBytesPerSecond
// and MaxBytesPerSecond.
func (q IOParams) Validate() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"link bandwidth", q.LinkBytesPerSecond}, {"disk speed", q.DiskBytesPerSecond}} {
		if !(v.x >= MinBytesPerSecond && v.x <= MaxBytesPerSecond) {
			return fmt.Errorf("%s %v bytes/s: must be between %g and %g", v.name, v.x, MinBytesPerSecond, MaxBytesPerSecond)
		}
	}
	return nil
}

// ValidateFor is Validate, and also reports a disk so slow against the links that
// writing one message of p takes more than MaxDiskCycles cycles.
func (q IOParams) ValidateFor(p Params) error {
	if err := q.Validate(); err != nil {
		return err
	}
	if c := float64(p.MessageFlits) * q.LinkBytesPerSecond / q.DiskBytesPerSecond; !(c <= MaxDiskCycles) {
		return fmt.Errorf("disk speed %v bytes/s: a %d-flit message takes %.3g cycles to write at link bandwidth %v bytes/s, more than %d; the disk must write at least %.4g bytes/s",
			q.DiskBytesPerSecond, p.MessageFlits, c, q.LinkBytesPerSecond, MaxDiskCycles, q.MinDiskBytesPerSecond(p))
	}
	return nil
}

// MinDiskBytesPerSecond is the slowest disk ValidateFor accepts with p and q's link
// bandwidth.
func (q IOParams) MinDiskBytesPerSecond(p Params) float64 {
	return max(MinBytesPerSecond, float64(p.MessageFlits)*q.LinkBytesPerSecond/MaxDiskCycles)
}

// CycleSeconds is the length of one cycle in seconds: one flit over one link.
func (q IOParams) CycleSeconds(p Params) float64 {
	return float64(p.FlitBytes) / q.LinkBytesPerSecond
}

// DiskCycles is the time in cycles a disk takes to write one message, rounded to the
// nearest cycle and at least 1: S flits x link bandwidth / disk speed.
func (q IOParams) DiskCycles(p Params) int64 {
	return max(1, int64(math.Round(float64(p.MessageFlits)*q.LinkBytesPerSecond/q.DiskBytesPerSecond)))
}

// Disks are the I/O nodes' disks: each writes the messages delivered to its I/O node
// one after the other, in arrival order, each taking a fixed number of cycles; a
// message that arrives while the disk is busy waits in an unbounded queue.
type Disks struct {
	write int64
	busy  []int64 // time at which each disk has written everything it was given
}

// NewDisks returns k idle disks that take write cycles per message.
func NewDisks(k int, write int64) *Disks { return &Disks{write: write, busy: make([]int64, k)} }

// Write queues a message that arrived at disk j at time t and returns the time its
// write completes.
func (d *Disks) Write(j int, t int64) int64 {
	d.busy[j] = max(d.busy[j], t) + d.write
	return d.busy[j]
}
