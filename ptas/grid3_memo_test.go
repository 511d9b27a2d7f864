package ptas

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// memoSequence plays a random allocate/release sequence on a W x H x L box (free
// nodes in free-list order, at offset off; each request given MM's or Gen-Alg's
// answer, random jobs released) and calls step at every request with the points,
// k, and the cells (box indices) of the points.
func memoSequence(r *rand.Rand, W, H, L, steps int, off [3]int, step func(pts [][]int, k int, cells []int) []int) {
	free := make([]bool, W*H*L)
	for i := range free {
		free[i] = r.IntN(8) != 0 // a few busy from the start
	}
	var jobs [][]int
	for range steps {
		nfree := releaseRandomJobs(r, free, &jobs)
		if nfree < 2 {
			return
		}
		var pts [][]int
		var cells []int
		for c, f := range free {
			if f {
				pts = append(pts, []int{c/(H*L) + off[0], c/L%H + off[1], c%L + off[2]})
				cells = append(cells, c)
			}
		}
		var k int
		switch r.IntN(4) {
		case 0:
			k = nfree - 1 - r.IntN(min(3, nfree-1))
		case 1: // a few sizes repeat, as in a trace
			k = min([]int{4, 7, 16}[r.IntN(3)], nfree-1)
		default:
			k = 1 + r.IntN(min(nfree-1, 1+W*H*L/3))
		}
		job := make([]int, 0, k)
		for _, i := range step(pts, k, cells) {
			free[cells[i]] = false
			job = append(job, cells[i])
		}
		jobs = append(jobs, job)
	}
}

// TestGrid3MemoLockstep checks that grid3Search with a CenterMemo kept across an
// allocator's decisions returns exactly the plain searcher's subset and center
// (MM and Gen-Alg, ties included, with and without the best total as the floor),
// on random allocate/release sequences where a box's free set changes a job at a
// time and request sizes repeat.
func TestGrid3MemoLockstep(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 7))
	seqs, steps := 120, 25
	if testing.Short() {
		seqs = 50
	}
	decisions, dropped, grown := 0, 0, 0
	var memos [2]CenterMemo
	defer func(on, nested bool) { grid3SameOn, grid3NestedOn = on, nested }(grid3SameOn, grid3NestedOn)
	for seq := range seqs {
		grid3SameOn = seq%3 != 1   // sameAsBelow's shortcut (and its kept values) on and off
		grid3NestedOn = seq%5 != 2 // sameAsNested's too
		W, H, L := 2+r.IntN(8), 2+r.IntN(8), 2+r.IntN(8)
		if seq%4 == 0 {
			// A fresh memo; otherwise the previous sequence's, on another box
			// (a memo taken to other points: covered afresh or kept where its
			// box holds them).
			memos = [2]CenterMemo{}
		}
		off := [3]int{r.IntN(3) - 1, r.IntN(3), 0}
		memoSequence(r, W, H, L, steps, off, func(pts [][]int, k int, cells []int) []int {
			pr, err := newProblem(pts, k)
			if err != nil {
				t.Fatal(err)
			}
			var answers [][]int
			for m, onPoints := range []bool{false, true} {
				want, wc, wantTot := plainAnswer(t, pr, pts, onPoints)
				floor := 0.0
				if r.IntN(4) == 0 {
					floor = wantTot
				}
				before, box := memos[m].dropped, memos[m].w*memos[m].h*memos[m].l
				got, gc, tot, ok, err := grid3Search(context.Background(), pr, floor, onPoints, &memos[m])
				if box > 0 && memos[m].w*memos[m].h*memos[m].l > box {
					grown++
				}
				if err != nil || !ok {
					t.Fatalf("sequence %d: grid3Search: ok %v, %v", seq, ok, err)
				}
				dropped += memos[m].dropped - before
				if !slices.Equal(got, want) || !slices.Equal(gc, wc) || float64(tot) != wantTot {
					t.Fatalf("sequence %d (%dx%dx%d), decision %d, k = %d of %d, Gen-Alg %v, floor %v: with the memo %v at %v total %d, plain %v at %v total %v", seq, W, H, L, decisions, k, len(pts), onPoints, floor, got, gc, tot, want, wc, wantTot)
				}
				answers = append(answers, got)
				decisions++
			}
			return answers[r.IntN(2)]
		})
	}
	if dropped == 0 || grown == 0 {
		t.Fatalf("the memo dropped %d centers and grew %d times: the test does not reach it", dropped, grown)
	}
	t.Logf("%d decisions compared, %d centers dropped by kept values, %d memos grown to a new box", decisions, dropped, grown)
}

// TestCenterMemoBoundsBelowTotal checks every value a CenterMemo holds as valid
// against the definition after each decision of random sequences: for the kept
// k and for a larger one, the total of the k nearest of the current points by
// (distance, index) around the cell is at least the kept value; and every cell's
// distance is at most the L1 distance to the nearest cell changed since its value
// was kept.
func TestCenterMemoBoundsBelowTotal(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 8))
	seqs, steps := 60, 20
	if testing.Short() {
		seqs = 25
	}
	checked := 0
	for seq := range seqs {
		W, H, L := 2+r.IntN(7), 2+r.IntN(7), 2+r.IntN(7)
		var memo CenterMemo
		onPoints := r.IntN(2) == 0 // Gen-Alg leaves the memo alone
		var prev []bool
		keptAt := make([]int, W*H*L) // decision at which each cell's value was kept
		changedAt := make([][]int, 0)
		decision := 0
		memoSequence(r, W, H, L, steps, [3]int{}, func(pts [][]int, k int, cells []int) []int {
			pr, err := newProblem(pts, k)
			if err != nil {
				t.Fatal(err)
			}
			now := make([]bool, W*H*L)
			for _, c := range cells {
				now[c] = true
			}
			var ch []int
			for c := range now {
				if prev == nil || now[c] != prev[c] {
					ch = append(ch, c)
				}
			}
			changedAt = append(changedAt, ch)
			prev = now
			before := slices.Clone(memo.val)
			beforeK := slices.Clone(memo.kk)
			beforeT := slices.Clone(memo.thr)
			got, _, _, ok, err := grid3Search(context.Background(), pr, 0, onPoints, &memo)
			if err != nil || !ok {
				t.Fatalf("sequence %d: ok %v, %v", seq, ok, err)
			}
			if onPoints {
				if memo.occ != nil {
					t.Fatalf("sequence %d: Gen-Alg prepared the memo", seq)
				}
				return got
			}
			if memo.w != W || memo.h != H || memo.l != L || memo.lo != [3]int{} {
				t.Fatalf("sequence %d: memo box %v %dx%dx%d, want the whole %dx%dx%d", seq, memo.lo, memo.w, memo.h, memo.l, W, H, L)
			}
			for c := range memo.kk {
				if memo.near[c] == memoFar || len(before) != len(memo.val) || before[c] != memo.val[c] || beforeK[c] != memo.kk[c] || beforeT[c] != memo.thr[c] {
					if memo.near[c] == memoFar && memo.kk[c] != 0 {
						keptAt[c] = decision
					}
				}
			}
			decision++
			for c := range memo.kk {
				if memo.kk[c] == 0 {
					continue
				}
				x, y, z := c/(H*L), c/L%H, c%L
				// The distance kept is at most the distance to every change since.
				for d := keptAt[c] + 1; d < len(changedAt); d++ {
					for _, e := range changedAt[d] {
						if dist := abs(e/(H*L)-x) + abs(e/L%H-y) + abs(e%L-z); int(memo.near[c]) > dist {
							t.Fatalf("sequence %d, cell (%d,%d,%d): distance %d, a change at %d", seq, x, y, z, memo.near[c], dist)
						}
					}
				}
				if memo.near[c] <= memo.thr[c] {
					continue
				}
				dist := make([]int, len(pts))
				for i, p := range pts {
					dist[i] = abs(p[0]-x) + abs(p[1]-y) + abs(p[2]-z)
				}
				kept := int(memo.kk[c])
				for _, k2 := range []int{kept, kept + r.IntN(len(pts)-kept+1)} {
					if k2 < 1 || k2 > len(pts) {
						continue
					}
					sel := nearestByIndex(dist, k2)
					var tot int64
					for i, a := range sel {
						for _, b := range sel[i+1:] {
							tot += int64(abs(pts[a][0]-pts[b][0]) + abs(pts[a][1]-pts[b][1]) + abs(pts[a][2]-pts[b][2]))
						}
					}
					if memo.val[c] > tot {
						t.Fatalf("sequence %d, cell (%d,%d,%d), kept k %d thr %d value %d: the %d nearest total %d", seq, x, y, z, kept, memo.thr[c], memo.val[c], k2, tot)
					}
					checked++
				}
			}
			return got
		})
	}
	t.Logf("%d kept values checked", checked)
}
