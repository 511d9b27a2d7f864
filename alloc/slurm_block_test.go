package alloc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

func newSlurmBlockT(t *testing.T, n int, weights []uint32, conf string) *SlurmAllocator {
	t.Helper()
	m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
	if err != nil {
		t.Fatal(err)
	}
	b, err := slurm.ParseBlocks(strings.NewReader(conf))
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewSlurm(m, SlurmConfig{Names: slurmNames(n), Weights: weights, Blocks: b})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var slurmSingleBlocks = func() string {
	var b strings.Builder
	for i := 1; i <= 16; i++ {
		fmt.Fprintf(&b, "BlockName=s%d Nodes=n%d\n", i, i)
	}
	return b.String()
}()

const slurmTestBlocks = "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockName=b3 Nodes=n[9-12]\nBlockName=b4 Nodes=n[13-16]\n"

// TestSlurmBlockHand checks eval_nodes_block's rules on hand-worked cases (16 nodes
// n1..n16, base blocks of 4).
func TestSlurmBlockHand(t *testing.T) {
	w := func(def uint32, set map[int]uint32) []uint32 {
		out := make([]uint32, 16)
		for i := range out {
			out[i] = def
			if v, ok := set[i+1]; ok {
				out[i] = v
			}
		}
		return out
	}
	cases := []struct {
		name    string
		conf    string
		weights []uint32
		busy    []int
		k       int
		want    []int // nil: the job waits
	}{
		// Level 0 (k <= 4): the base block with the fewest free nodes that holds k.
		// Free: b1 3, b2 2, b3 3, b4 4.
		{"fewest free", slurmTestBlocks + "BlockSizes=4,8,16\n", nil, []int{1, 5, 6, 9}, 2, []int{7, 8}},
		{"tie to the later block", slurmTestBlocks + "BlockSizes=4,8,16\n", nil, []int{1, 5, 6, 9}, 3, []int{10, 11, 12}},
		// Level 1 (k 5-8): aligned pairs b1+b2 (5 free) and b3+b4 (7); b1+b2 is the
		// tighter. Inside: neither base block holds 5: the larger (b1), then the one
		// that holds the rest (b2).
		{"aligned pair", slurmTestBlocks + "BlockSizes=4,8,16\n", nil, []int{1, 5, 6, 9}, 5, []int{2, 3, 4, 7, 8}},
		// k=6: only b3+b4; the larger first (b4), then b3 holds 2.
		{"pair, largest first", slurmTestBlocks + "BlockSizes=4,8,16\n", nil, []int{1, 5, 6, 9}, 6, []int{10, 11, 13, 14, 15, 16}},
		// Level 2 (k 9-16): the whole; largest base blocks first, ties to the later,
		// then of two that hold the rest the smaller, ties to the later.
		{"level 2", slurmTestBlocks + "BlockSizes=4,8,16\n", nil, []int{1, 5, 6, 9}, 9, []int{7, 8, 10, 11, 12, 13, 14, 15, 16}},
		// BlockSizes=4,16: k=5 goes to level 2 (no level 1) and may use 2 base blocks
		// (llblocks of level 0): the largest llblock b4 first, then of the llblocks that
		// hold the 1 left the smallest (b2), in index order (n7).
		{"llblocks", slurmTestBlocks + "BlockSizes=4,16\n", nil, []int{1, 5, 6, 9}, 5, []int{7, 13, 14, 15, 16}},
		// Larger than the top level (BlockSizes=4,8, k=12): the whole topology.
		{"above the top level", slurmTestBlocks + "BlockSizes=4,8\n", nil, nil, 12, []int{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
		// Three blocks, BlockSizes=4,8, k=9: above the top level, llblocks of 2 base
		// blocks and at most 2 of them; the whole topology of 3 base blocks counts
		// 3/2 = 1 llblock (integer division): 8 < 9 nodes, the job waits (n13-16 are
		// in no block).
		{"odd block count", "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockName=b3 Nodes=n[9-12]\nBlockSizes=4,8\n", nil, nil, 9, nil},
		{"odd block count, level 1", "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockName=b3 Nodes=n[9-12]\nBlockSizes=4,8\n", nil, nil, 8, []int{1, 2, 3, 4, 5, 6, 7, 8}},
		// No block at the level holds k: the job waits though 6 nodes are free.
		{"no block", slurmTestBlocks + "BlockSizes=4,8\n", nil, []int{1, 2, 3, 5, 6, 7, 9, 10, 11, 13}, 3, []int{14, 15, 16}},
		{"no block, waits", slurmTestBlocks + "BlockSizes=4,8\n", nil, []int{1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14}, 3, nil},
		// Weights: the block with the lowest weight wins over the tighter one; the
		// lighter node is taken whole, its base block filled first in index order.
		{"lowest weight block", slurmTestBlocks + "BlockSizes=4,8,16\n", w(10, map[int]uint32{14: 5}), []int{1}, 2, []int{13, 14}},
		{"same without weights", slurmTestBlocks + "BlockSizes=4,8,16\n", nil, []int{1}, 2, []int{2, 3}},
		// The lightest nodes n1, n5, n9 touch 3 base blocks; k=5 may use 2: the pass
		// fails (ESLURM_TOPO_WEIGHT_NO_FIT) and the retry takes out the first free node
		// (n1): n5 and n9 are taken, b2 filled first.
		{"weights over the llblock limit", slurmTestBlocks + "BlockSizes=4,16\n", w(10, map[int]uint32{1: 1, 5: 1, 9: 1}), nil, 5, []int{5, 6, 7, 8, 9}},
		// Nodes inside a block in index order, whatever the line's order; the default
		// BlockSizes (levels 0-4) from a base of 4.
		{"index order", "BlockName=b1 Nodes=n4,n2,n3,n1\nBlockName=b2 Nodes=n[5-8]\n", nil, nil, 2, []int{5, 6}},
		// One node: never the block plugin (_get_one_res): the lightest free node,
		// first in index order, though b2 has the fewest free nodes.
		{"one node", slurmTestBlocks + "BlockSizes=4,8,16\n", nil, []int{1, 5, 6, 9}, 1, []int{2}},
		{"one node, weights", slurmTestBlocks + "BlockSizes=4,8,16\n", w(10, map[int]uint32{16: 1, 12: 1}), []int{1, 5, 6, 9}, 1, []int{12}},
		// A stalled pass: single-node blocks, llblocks of 4, at most 2 for k=5. Free
		// n1-3 (llblock A) and n5-6 (B): A first (the fullest), its nodes n3, n2, n1,
		// then n4, busy but in the llblock already used, is preferred to B: nothing
		// taken, the pass stalls; the retry takes n1 out and no block holds 5: the job
		// waits though 5 nodes are free.
		{"stalled pass", slurmSingleBlocks + "BlockSizes=1,2,4,16\n", nil, []int{4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 5, nil},
		// With n4 free, A is used up and the last node comes from B: of n5 and n6, which
		// both hold it, the later.
		{"no stall", slurmSingleBlocks + "BlockSizes=1,2,4,16\n", nil, []int{7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 5, []int{1, 2, 3, 4, 6}},
		// No free node in any block: Slurm's common selection (best fit on runs).
		{"outside the blocks", "BlockName=b1 Nodes=n[1-4]\n", nil, []int{1, 2, 3, 4, 8}, 4, []int{9, 10, 11, 12}},
	}
	for _, c := range cases {
		a := newSlurmBlockT(t, 16, c.weights, c.conf)
		occupy(t, a, slices.Clone(c.busy)...)
		got, err := a.Allocate(c.k)
		if c.want == nil {
			if err == nil || !errors.Is(err, ErrFragmented) {
				t.Errorf("%s: k=%d got %v (err %v), want the job to wait", c.name, c.k, oneBased(got), err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: k=%d: %v", c.name, c.k, err)
			continue
		}
		slices.Sort(got)
		if !slices.Equal(oneBased(got), c.want) {
			t.Errorf("%s: k=%d got %v, want %v", c.name, c.k, oneBased(got), c.want)
		}
	}
}

// TestSlurmBlockErrors: bad configurations are refused with the line named.
func TestSlurmBlockErrors(t *testing.T) {
	m, _ := topo.ParseSpec("mesh:8")
	b, err := slurm.ParseBlocks(strings.NewReader("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-9]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSlurm(m, SlurmConfig{Names: slurmNames(8), Blocks: b}); err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "n9") {
		t.Errorf("unknown node: %v", err)
	}
	tr, _ := slurm.ParseTree(strings.NewReader("SwitchName=s Nodes=n[1-8]\n"))
	b, _ = slurm.ParseBlocks(strings.NewReader("BlockName=b1 Nodes=n[1-8]\n"))
	if _, err := NewSlurm(m, SlurmConfig{Names: slurmNames(8), Blocks: b, Tree: tr}); err == nil {
		t.Error("tree and blocks accepted together")
	}
	if _, err := Parse("slurm:block:x.conf", m, Options{}); err == nil || !strings.Contains(err.Error(), "SlurmBlocks") {
		t.Errorf("no reader: %v", err)
	}
	if _, err := Parse("slurm:block", m, Options{SlurmBlocks: func(string, string) (*slurm.Blocks, error) { return b, nil }}); err == nil {
		t.Error("slurm:block without a file accepted")
	}
	opt := Options{SlurmBlocks: func(p, _ string) (*slurm.Blocks, error) {
		return slurm.ParseBlocks(strings.NewReader("BlockName=b1 Nodes=0,1,2,3\nBlockName=b2 Nodes=4,5,6,7\n"))
	}}
	a, err := Parse("slurm:block:x.conf:snake", m, opt)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() != "slurm:block:x.conf:snake" {
		t.Errorf("name %q", a.Name())
	}
}

// slurmBlockInfo restates the parts of the rules that the contract test checks.
type slurmBlockInfo struct {
	bpb, nblk, bpll, maxLL int
	useLL                  bool
}

func slurmBlockLevels(b *slurm.Blocks, k int) slurmBlockInfo {
	nb := len(b.Blocks)
	need := (k + b.Base - 1) / b.Base
	L := 0
	for 1<<L < need {
		L++
	}
	var in slurmBlockInfo
	ll := 0
	for l := L - 1; l >= 0; l-- {
		if b.LevelAllowed(l) {
			ll = l
			break
		}
	}
	in.bpb, in.nblk = nb, 1
	for l := L; l <= slurm.MaxBlockLevel; l++ {
		if b.LevelAllowed(l) {
			in.bpb = 1 << l
			in.nblk = (nb + in.bpb - 1) / in.bpb
			break
		}
	}
	in.bpll = 1 << ll
	in.maxLL = (k + in.bpll*b.Base - 1) / (in.bpll * b.Base)
	in.useLL = in.bpb != in.bpll*in.maxLL
	return in
}

// randomSlurmBlocks returns a seeded random block file over n1..nN: a random
// permutation cut into blocks of random sizes (some nodes in no block when drop),
// a random BlockSizes or none; when overlap, one more block holding a node of the
// first.
func randomSlurmBlocks(rng *rand.Rand, n int, drop, overlap bool, name func(i int) string) string {
	perm := rng.Perm(n)
	var b strings.Builder
	base := 1 + rng.IntN(4)
	for pos, i := 0, 0; pos < n; i++ {
		size := max(1, base+rng.IntN(3)-1)
		size = min(size, n-pos)
		var names []string
		for _, v := range perm[pos : pos+size] {
			names = append(names, name(v))
		}
		pos += size
		if drop && i > 0 && rng.IntN(6) == 0 {
			continue
		}
		fmt.Fprintf(&b, "BlockName=blk%d Nodes=%s\n", i, strings.Join(names, ","))
	}
	if overlap {
		fmt.Fprintf(&b, "BlockName=last Nodes=%s\n", name(perm[0]))
	}
	if rng.IntN(4) > 0 {
		sizes := []string{fmt.Sprint(base)}
		for l := 1; l <= 5; l++ {
			if rng.IntN(2) == 0 {
				sizes = append(sizes, fmt.Sprint(base<<l))
			}
		}
		fmt.Fprintf(&b, "BlockSizes=%s\n", strings.Join(sizes, ","))
	}
	return b.String()
}

// TestSlurmBlockContract replays random sequences on random block files and checks
// what holds for every placement: k distinct free nodes inside one block of the
// job's level using at most max_llblock llblocks; and, without weights (no retries
// then), that the job waits exactly when no block is eligible, that the block is the
// eligible one with the fewest free nodes (ties to the later), and that at most one
// base block is used in part, by its lowest-index free nodes. With distinct weights,
// a placement never skips a free node of the block lighter than one it takes.
func TestSlurmBlockContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 11))
	nExact, nRetried := 0, 0
	defer func() { t.Logf("%d placements checked in full, %d after retried passes", nExact, nRetried) }()
	for trial := range 90 {
		n := 6 + rng.IntN(40)
		overlap := trial%4 == 3
		conf := randomSlurmBlocks(rng, n, trial%2 == 1, overlap, func(i int) string { return fmt.Sprintf("n%d", i+1) })
		w := randomSlurmWeights(rng, n, trial%3) // none, few, distinct
		a := newSlurmBlockT(t, n, w, conf)
		b := a.blk.cfg
		// A twin without the retry shortcut must place every job alike.
		twin := newSlurmBlockT(t, n, w, conf)
		twin.blk.noSkip = true
		// Block membership by node (n1..nN: Slurm index = node); with overlap one node
		// is in two blocks, and only the first checks below apply (Slurm counts it
		// twice: a pass can stall and be retried).
		blockOf := make([][]int, n)
		for i, nodes := range a.blk.bb {
			for _, s := range nodes {
				blockOf[s] = append(blockOf[s], i)
			}
		}
		var live [][]int
		for step := range 120 {
			if a.NumFree() == 0 || (len(live) > 0 && rng.IntN(2) == 0) {
				live = releaseInLockstep(t, []Allocator{a, twin}, live, rng.IntN(len(live)), nil)
				continue
			}
			k := 1 + rng.IntN(a.NumFree())
			free := make([]bool, n)
			anyInBlock := false
			for i := range free {
				free[i] = a.st.IsFree(i)
				anyInBlock = anyInBlock || (free[i] && len(blockOf[i]) > 0)
			}
			in := slurmBlockLevels(b, k)
			// Eligibility (no weights, no retries): free per base block.
			fb := make([]int, len(a.blk.bb))
			for i, nodes := range a.blk.bb {
				for _, s := range nodes {
					if free[s] {
						fb[i]++
					}
				}
			}
			eligible := func(blk int) (bool, int) {
				lo, hi := blk*in.bpb, min(len(fb), (blk+1)*in.bpb)
				cnt, distinct := 0, map[int32]bool{}
				var lls []int
				for i := lo; i < hi; i++ {
					cnt += fb[i]
					if (i-lo)%in.bpll == 0 {
						lls = append(lls, 0)
					}
					lls[len(lls)-1] += fb[i]
					for _, s := range a.blk.bb[i] {
						if free[s] {
							distinct[s] = true
						}
					}
				}
				avail := cnt
				if in.useLL {
					per := min(in.bpb/in.bpll, len(lls))
					lls = lls[:per]
					slices.Sort(lls)
					slices.Reverse(lls)
					avail = 0
					for _, c := range lls[:min(in.maxLL, per)] {
						avail += c
					}
				}
				return avail >= k && len(distinct) >= k, cnt
			}
			wantBlk, wantCnt := -1, 0
			for blk := range in.nblk {
				if ok, cnt := eligible(blk); ok && (wantBlk < 0 || cnt <= wantCnt) {
					wantBlk, wantCnt = blk, cnt
				}
			}
			got, err := a.Allocate(k)
			where := fmt.Sprintf("trial %d step %d k=%d\n%s", trial, step, k, conf)
			tgot, terr := twin.Allocate(k)
			if !slices.Equal(got, tgot) || (err == nil) != (terr == nil) || a.blk.retries != twin.blk.retries {
				t.Fatalf("%s: %v (%v, %d retries), without the shortcut %v (%v, %d retries)", where, got, err, a.blk.retries, tgot, terr, twin.blk.retries)
			}
			if k == 1 {
				// One node: the lightest free node, the first in index order.
				want := slices.IndexFunc(free, func(f bool) bool { return f })
				for s := range n {
					if free[s] && w != nil && w[s] < w[want] {
						want = s
					}
				}
				if err != nil || !slices.Equal(got, []int{want}) {
					t.Fatalf("%s: got %v (%v), want [%d]", where, got, err, want)
				}
				live = append(live, got)
				continue
			}
			if !anyInBlock {
				if err != nil {
					t.Fatalf("%s: no free node in a block: %v", where, err)
				}
				live = append(live, got)
				continue
			}
			if err != nil {
				if !errors.Is(err, ErrFragmented) {
					t.Fatalf("%s: %v", where, err)
				}
				if w == nil && !overlap && wantBlk >= 0 && a.blk.retries == 0 {
					t.Fatalf("%s: waits, but block %d is eligible (free per base block %v, %d retries): %v", where, wantBlk, fb, a.blk.retries, err)
				}
				continue
			}
			if len(got) != k {
				t.Fatalf("%s: %d nodes", where, len(got))
			}
			seen := map[int]bool{}
			for _, v := range got {
				if !free[v] || seen[v] || len(blockOf[v]) == 0 {
					t.Fatalf("%s: node %d busy, twice or in no block: %v", where, v, got)
				}
				seen[v] = true
			}
			// One block of the job's level for all (a node in two blocks: either).
			gotBlk := -1
			for _, blk := range blockOf[got[0]] {
				ok := true
				for _, v := range got {
					if !slices.ContainsFunc(blockOf[v], func(i int) bool { return i/in.bpb == blk/in.bpb }) {
						ok = false
					}
				}
				if ok {
					gotBlk = blk / in.bpb
				}
			}
			if gotBlk < 0 {
				t.Fatalf("%s: %v spans blocks of level size %d", where, got, in.bpb)
			}
			retried := a.blk.retries > 0
			if overlap {
				live = append(live, got)
				continue
			}
			if retried {
				// The pass failed (a stall: the loop prefers a base block of an llblock
				// already used even when it has no free node) and Slurm retried with
				// fewer candidates: the checks below are of one pass.
				nRetried++
				live = append(live, got)
				continue
			}
			lls := map[int]bool{}
			for _, v := range got {
				lls[blockOf[v][0]/in.bpll] = true
			}
			if len(lls) > in.maxLL {
				t.Fatalf("%s: %v uses %d llblocks, at most %d", where, got, len(lls), in.maxLL)
			}
			nExact++
			if w == nil {
				if ok, _ := eligible(gotBlk); !ok || gotBlk != wantBlk {
					t.Fatalf("%s: block %d, want %d (eligible: %v)", where, gotBlk, wantBlk, ok)
				}
				partial := 0
				for i, nodes := range a.blk.bb {
					if i/in.bpb != gotBlk {
						continue
					}
					var fr []int32
					used := 0
					for _, s := range nodes {
						if free[s] {
							fr = append(fr, s)
							if seen[int(s)] {
								used++
							}
						}
					}
					if used > 0 && used < len(fr) {
						partial++
						for _, s := range fr[:used] {
							if !seen[int(s)] {
								t.Fatalf("%s: base block %d used in part, not by its first free nodes: %v", where, i, got)
							}
						}
					}
				}
				if partial > 1 {
					t.Fatalf("%s: %d base blocks used in part: %v", where, partial, got)
				}
			}
			if w != nil {
				maxW := uint32(0)
				for _, v := range got {
					maxW = max(maxW, w[v])
				}
				for s := range n {
					if free[s] && !seen[s] && w[s] < maxW && slices.ContainsFunc(blockOf[s], func(i int) bool { return i/in.bpb == gotBlk }) {
						t.Fatalf("%s: node %d (weight %d) of the block skipped for weight %d: %v", where, s, w[s], maxW, got)
					}
				}
			}
			live = append(live, got)
		}
	}
}

// BenchmarkSlurmBlock: one allocate/release decision on a 16384-node machine half
// busy, jobs of 1 to 256 nodes, weights in three groups; 512 base blocks of 32 nodes,
// BlockSizes=32,128,1024 (llblocks below the missing levels). A job that waits keeps
// its slot empty.
func BenchmarkSlurmBlock(b *testing.B) {
	const n = 16384
	var cb strings.Builder
	for l := 0; l < n/32; l++ {
		fmt.Fprintf(&cb, "BlockName=b%d Nodes=n[%d-%d]\n", l, 32*l+1, 32*l+32)
	}
	cb.WriteString("BlockSizes=32,128,1024\n")
	w := make([]uint32, n)
	for i := range w {
		w[i] = uint32(1 + i%3)
	}
	a := newSlurmBlockT(&testing.T{}, n, w, cb.String())
	rng := rand.New(rand.NewPCG(1, 1))
	var live [][]int
	for a.NumFree() > n/2 {
		if got, err := a.Allocate(1 + rng.IntN(256)); err == nil {
			live = append(live, got)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := rng.IntN(len(live))
		if err := a.Release(live[j]); err != nil {
			b.Fatal(err)
		}
		live[j] = nil
		if got, err := a.Allocate(1 + rng.IntN(min(256, a.NumFree()))); err == nil {
			live[j] = got
		}
	}
}

// TestSlurmBlockNoNodes: a topology.conf whose blocks have no nodes (accepted by
// Slurm when BlockSizes is set, with the warning "Blocks do not contain any nodes")
// places every job as slurm:consec does: topology_block.c's topology_p_eval_nodes
// skips eval_nodes_block when no candidate node is in a block (and one-node jobs
// take Slurm 26.05's path of their own, OneNodeByWeight, as slurm:block always does).
func TestSlurmBlockNoNodes(t *testing.T) {
	const n = 16
	rng := rand.New(rand.NewPCG(3, 5))
	weights := make([]uint32, n)
	for i := range weights {
		weights[i] = uint32(1 + rng.IntN(3))
	}
	a := newSlurmBlockT(t, n, weights, "BlockName=b0\nBlockName=b1\nBlockSizes=4\n")
	m, _ := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
	twin, err := NewSlurm(m, SlurmConfig{Names: slurmNames(n), Weights: weights, OneNodeByWeight: true})
	if err != nil {
		t.Fatal(err)
	}
	var live [][]int
	for step := range 300 {
		if len(live) > 0 && rng.IntN(3) == 0 {
			live = releaseInLockstep(t, []Allocator{a, twin}, live, rng.IntN(len(live)), nil)
			continue
		}
		k := 1 + rng.IntN(6)
		got, err := a.Allocate(k)
		want, werr := twin.Allocate(k)
		if (err == nil) != (werr == nil) || !slices.Equal(got, want) {
			t.Fatalf("step %d, k=%d: blocks without nodes give %v (%v), slurm:consec %v (%v)", step, k, got, err, want, werr)
		}
		if err == nil {
			live = append(live, got)
		}
	}
}

// Nodes of the machine that no block lists are named in the warning slurmctld
// starts with (block_record.c, block_record_validate: "Blocks lack access to %d
// nodes: %s"), in Slurm's node order; blocks that list every node, or none (the
// slurm package warns about those), give no such warning.
func TestSlurmBlockWarnsNodesInNoBlock(t *testing.T) {
	a := newSlurmBlockT(t, 16, nil, "BlockName=b0 Nodes=n[1-4]\nBlockName=b1 Nodes=n[5-6],n10,n[7-8]\nBlockSizes=4,8\n")
	ws := a.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0], "7 of the machine's 16 nodes are in no block (n[9,11-16])") || !strings.Contains(ws[0], `"Blocks lack access to 7 nodes"`) {
		t.Errorf("warnings %q", ws)
	}
	for _, conf := range []string{"BlockName=b0 Nodes=n[1-8]\nBlockName=b1 Nodes=n[9-16]\n", "BlockName=b0\nBlockName=b1\nBlockSizes=4\n"} {
		if ws := newSlurmBlockT(t, 16, nil, conf).Warnings(); len(ws) != 0 {
			t.Errorf("%q: warnings %q", conf, ws)
		}
	}
}

// A job that takes every base block of its block examines each base block a few
// times, not once per base block chosen (_choose_best_bblock's scan: 64 base blocks
// of 4 nodes, 2,080 looks for a 256-node job).
func TestSlurmBlockChoiceLooksLinear(t *testing.T) {
	var conf strings.Builder
	const bbs, base = 64, 4
	for i := range bbs {
		fmt.Fprintf(&conf, "BlockName=b%d Nodes=n[%d-%d]\n", i, i*base+1, (i+1)*base)
	}
	fmt.Fprintf(&conf, "BlockSizes=%d,%d\n", base, bbs*base)
	for _, k := range []int{bbs * base, bbs*base - 3} {
		a := newSlurmBlockT(t, bbs*base, nil, conf.String())
		a.blk.looks = 0
		nodes, err := a.Allocate(k)
		if err != nil || len(nodes) != k {
			t.Fatalf("k=%d: %d nodes, %v", k, len(nodes), err)
		}
		if limit := bbs + (k+base-1)/base*(base+1); a.blk.looks > limit {
			t.Errorf("k=%d: %d base blocks examined, want at most %d", k, a.blk.looks, limit)
		}
	}
}
