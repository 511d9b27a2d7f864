package netsim

import (
	"math"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

func TestIORouterRoutes(t *testing.T) {
	g, err := topo.ParseSpec("mesh:4x4:io=left")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewIORouter(g)
	if err != nil {
		t.Fatal(err)
	}
	if r.Endpoints() != 20 || r.IONodes() != 4 || r.IONode(0) != 16 {
		t.Fatalf("endpoints %d, I/O nodes %d", r.Endpoints(), r.IONodes())
	}
	mesh := NewGridRouter(topo.Mesh(4, 4))
	// Every route is the x-y route to the attachment node plus the I/O link; no
	// channel repeats; the I/O links are distinct channels above the mesh's.
	seen := map[int32]bool{}
	for src := range 16 {
		for j := range 4 {
			rt := r.Route(src, r.IONode(j), nil)
			want := append(mesh.Route(src, g.IO().Attach(j), nil), int32(mesh.Channels()+2*j))
			if !slices.Equal(rt, want) {
				t.Fatalf("route %d -> io %d = %v, want %v", src, j, rt, want)
			}
			back := r.Route(r.IONode(j), src, nil)
			if back[0] != int32(mesh.Channels()+2*j+1) || len(back) != 1+g.Dist(g.IO().Attach(j), src) {
				t.Fatalf("route io %d -> %d = %v", j, src, back)
			}
			seen[rt[len(rt)-1]], seen[back[0]] = true, true
		}
	}
	if len(seen) != 8 {
		t.Errorf("%d distinct I/O link channels, want 8", len(seen))
	}
	// Node (3,2) writing to I/O node 0 (row 0) goes left along row 2, then down
	// column 0: 3 + 2 mesh hops and the link.
	if rt := r.Route(3+2*4, 16, nil); len(rt) != 6 {
		t.Errorf("route length %d, want 6", len(rt))
	}
	if _, err := NewIORouter(topo.Mesh(4, 4)); err == nil {
		t.Error("a mesh without I/O nodes accepted")
	}
}

// TestIOEngineAndDisks sends every compute node's message to one I/O node through
// the engine: the ejection channel delivers them one per S cycles at best, and the
// disk, 82 cycles per message with Liu's speeds, is the bottleneck, finishing the
// n-th write at exactly first arrival + n x 82 when messages arrive faster.
func TestIOEngineAndDisks(t *testing.T) {
	g, _ := topo.ParseSpec("mesh:4x4:io=left")
	r, _ := NewIORouter(g)
	p := DefaultParams()
	q := LiuIOParams()
	if w := q.DiskCycles(p); w != 82 {
		t.Fatalf("disk cycles %d, want round(32 x 11.65/4.545) = 82", w)
	}
	disks := NewDisks(r.IONodes(), q.DiskCycles(p))
	var arrivals, done []int64
	eng, err := NewEngine(r, p, func(d *Delivery) {
		arrivals = append(arrivals, d.Arrived)
		done = append(done, disks.Write(int(d.Dst)-16, d.Arrived))
	})
	if err != nil {
		t.Fatal(err)
	}
	for v := range 16 {
		eng.Send(Message{Src: int32(v), Dst: 16})
	}
	if err := eng.Run(1 << 20); err != nil {
		t.Fatal(err)
	}
	if len(done) != 16 {
		t.Fatalf("%d deliveries", len(done))
	}
	for i := 1; i < 16; i++ {
		if arrivals[i]-arrivals[i-1] < p.MessageFlits {
			t.Errorf("arrivals %d and %d only %d cycles apart", i-1, i, arrivals[i]-arrivals[i-1])
		}
		if done[i] != done[0]+int64(i)*82 {
			t.Errorf("write %d done at %d, want %d", i, done[i], done[0]+int64(i)*82)
		}
	}
	if done[0] != arrivals[0]+82 {
		t.Errorf("first write done at %d, arrival %d", done[0], arrivals[0])
	}
	if err := (IOParams{LinkBytesPerSecond: -1, DiskBytesPerSecond: 1}).Validate(); err == nil {
		t.Error("negative bandwidth accepted")
	}
}

// A disk so slow that a message's write time overflows (1e-300 MB/s gave one cycle
// per message) or exceeds MaxDiskCycles is refused; the slowest accepted disk takes
// at most MaxDiskCycles.
func TestIOParamsRange(t *testing.T) {
	p := DefaultParams()
	for _, disk := range []float64{1e-300, 1e-3, 0.5, math.NaN(), math.Inf(1), 1e300} {
		q := IOParams{LinkBytesPerSecond: 11.65e6, DiskBytesPerSecond: disk}
		if err := q.ValidateFor(p); err == nil {
			t.Errorf("disk %v bytes/s accepted (%d cycles per message)", disk, q.DiskCycles(p))
		}
	}
	q := LiuIOParams()
	if err := q.ValidateFor(p); err != nil {
		t.Fatal(err)
	}
	q.DiskBytesPerSecond = q.MinDiskBytesPerSecond(p)
	if err := q.ValidateFor(p); err != nil {
		t.Fatalf("the slowest accepted disk: %v", err)
	}
	if c := q.DiskCycles(p); c < MaxDiskCycles-1 || c > MaxDiskCycles {
		t.Errorf("slowest disk: %d cycles per message, want about %d", c, MaxDiskCycles)
	}
	q.DiskBytesPerSecond *= 0.99
	if err := q.ValidateFor(p); err == nil {
		t.Error("a disk 1% slower than the slowest accepted one passed")
	}
}

// TestEngineResetIsNew: an engine reset after a busy run delivers the next workload
// exactly as a new engine does (same times, same order).
func TestEngineResetIsNew(t *testing.T) {
	g, _ := topo.ParseSpec("mesh:8x8:io=left")
	r, _ := NewIORouter(g)
	type rec struct {
		src, dst int32
		at       int64
	}
	run := func(eng *Engine, got *[]rec, seed uint64) {
		rng := NewRand(seed, 1)
		for range 300 {
			s := int32(rng.Uint64n(64))
			d := int32(rng.Uint64n(uint64(r.Endpoints())))
			eng.Send(Message{Src: s, Dst: d})
		}
		if err := eng.Run(1 << 30); err != nil {
			t.Fatal(err)
		}
	}
	var a, b []rec
	reused, _ := NewEngine(r, DefaultParams(), func(d *Delivery) { a = append(a, rec{d.Src, d.Dst, d.Arrived}) })
	run(reused, &a, 1)
	reused.Reset()
	a = a[:0]
	run(reused, &a, 2)
	fresh, _ := NewEngine(r, DefaultParams(), func(d *Delivery) { b = append(b, rec{d.Src, d.Dst, d.Arrived}) })
	run(fresh, &b, 2)
	if !slices.Equal(a, b) || len(a) != 300 {
		t.Fatalf("after Reset: %d deliveries, new engine %d; equal %v", len(a), len(b), slices.Equal(a, b))
	}
	if reused.Stats() != fresh.Stats() || reused.Now() != fresh.Now() {
		t.Errorf("stats %+v vs %+v, now %d vs %d", reused.Stats(), fresh.Stats(), reused.Now(), fresh.Now())
	}
}
