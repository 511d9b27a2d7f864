package ctxtest

import (
	"bytes"
	"runtime"
	"strconv"
	"time"
)

// module marks the goroutines Leaked looks at: those running procalloc's code or
// started by it (their "created by" line). The runtime's and the standard
// library's own (os/signal's loop, started once per process) are not leaks of a
// solve.
const module = "github.com/procalloc/procalloc/"

// Goroutines returns the ids of the goroutines running now, for Leaked.
func Goroutines() map[int64]bool {
	ids := map[int64]bool{}
	for _, g := range stacks() {
		ids[g.id] = true
	}
	return ids
}

// Leaked waits up to grace for the goroutines of procalloc's code started since
// before (Goroutines) to end and returns the stacks of those still running, none
// when every one ended. A solve stopped by its context returns before the
// goroutines it waited for have quite finished (a worker's deferred Done runs
// first), and a search it left behind by design ends on its own a little later
// (an abandoned HiGHS run, a curve still being generated): grace covers both, so
// what is left after it is a goroutine that nothing will end (blocked on a
// channel nobody reads, a loop that does not look at ctx).
func Leaked(before map[int64]bool, grace time.Duration) []string {
	deadline := time.Now().Add(grace)
	for {
		var left []string
		for _, g := range stacks() {
			if !before[g.id] && bytes.Contains(g.stack, []byte(module)) {
				left = append(left, string(g.stack))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type goroutine struct {
	id    int64
	stack []byte
}

// stacks lists every goroutine with its stack (runtime.Stack's text, a block per
// goroutine headed "goroutine ID [state]:").
func stacks() []goroutine {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []goroutine
	for _, block := range bytes.Split(buf, []byte("\n\n")) {
		rest, ok := bytes.CutPrefix(block, []byte("goroutine "))
		if !ok {
			continue
		}
		id, _, ok := bytes.Cut(rest, []byte(" "))
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(string(id), 10, 64)
		if err != nil {
			continue
		}
		out = append(out, goroutine{n, block})
	}
	return out
}
