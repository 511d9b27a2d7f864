package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// GridResult is one replay of a grid: its report, or why there is none.
type GridResult struct {
	Report *Report // the replay's report; nil when Err is set
	Err    error   // why the replay gave no report
}

// Runner is a replay ready to run: a *Spec, or a *Replay (prepared once, its trace
// shared by several runners).
type Runner interface {
	// Run replays, stopping early when ctx ends (the report then says Interrupted).
	Run(ctx context.Context) (*Report, error)
}

// Grid runs many replays on one pool of workers: compare's allocators and load
// factors, a sweep's items. Replays are built when a worker takes them (Task), so
// that a grid of a million items holds only the running ones, and each result is
// handed to Done as it ends, so that nothing is kept that the caller does not keep.
type Grid struct {
	// Workers is the number of replays run at once (<= 0: one per core).
	Workers int
	// Task builds replay i (0 <= i < n); an error is that replay's result.
	Task func(i int) (Runner, error)
	// Done, when set, receives each replay's result as it ends, one call at a time,
	// except replays cancelled by ctx. When it returns an error, replays not started
	// are not started and the running ones are cancelled; Run returns that error.
	Done func(i int, r GridResult) error
}

// Run runs replays 0..n-1. Replays are deterministic, so the results do not depend
// on Workers or on the order they end in. When ctx is cancelled the running replays
// stop within a second (sim.Run checks ctx every 1,024 jobs) and no more start.
func (g *Grid) Run(ctx context.Context, n int) error {
	var mu sync.Mutex
	stopped := false
	return pool(ctx, n, g.Workers, func() struct{} { return struct{}{} }, func(ctx context.Context, _ struct{}, i int) error {
		var r GridResult
		if t, err := g.Task(i); err != nil {
			r.Err = err
		} else {
			r.Report, r.Err = t.Run(ctx)
		}
		if r.Err != nil && ctx.Err() != nil && errors.Is(r.Err, ctx.Err()) {
			return nil // cancelled: not a result
		}
		if g.Done == nil {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return nil
		}
		if err := g.Done(i, r); err != nil {
			stopped = true
			return err
		}
		return nil
	})
}

// pool calls do(ctx, w, i) for i = 0..n-1, in that order, on workers goroutines
// (<= 0: one per core), w being the state of the goroutine (newState's, one each:
// scratch a task reuses). The first error do returns cancels the ctx the others see,
// no index is taken after it, and pool returns it; once ctx is cancelled no index is
// taken either. Grid (compare, sweep) and Batch run on it.
func pool[W any](ctx context.Context, n, workers int, newState func() W, do func(ctx context.Context, w W, i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		wg       sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newState()
			for {
				mu.Lock()
				if next == n || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := doRecovered(ctx, w, i, do); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// doRecovered is do(ctx, w, i) with a panic, a bug, turned into its error: on a
// worker goroutine it killed the process (exit status 2, which procalloc uses for
// usage errors) and lost what the other workers were finishing.
func doRecovered[W any](ctx context.Context, w W, i int, do func(ctx context.Context, w W, i int) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (a bug: please report it) in task %d: %v\n%s", i, r, debug.Stack())
		}
	}()
	return do(ctx, w, i)
}

// RunGrid runs the replays of specs on workers goroutines (<= 0: one per core) and
// returns their results in the order of specs, whatever order they ended in. When
// ctx is cancelled the replays running stop and no more start: the results of those
// that did not finish carry ctx's error.
func RunGrid(ctx context.Context, specs []Spec, workers int) []GridResult {
	out := make([]GridResult, len(specs))
	ended := make([]bool, len(specs))
	g := Grid{Workers: workers,
		Task: func(i int) (Runner, error) { return &specs[i], nil },
		Done: func(i int, r GridResult) error { out[i], ended[i] = r, true; return nil }}
	g.Run(ctx, len(specs))
	for i := range out {
		if !ended[i] {
			out[i].Err = context.Cause(ctx)
		}
	}
	return out
}
