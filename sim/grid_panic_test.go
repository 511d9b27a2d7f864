package sim

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
)

// A task that panics (a bug) is the pool's error, its stack included, and the
// process goes on: on a worker goroutine the panic killed it.
func TestPoolPanicIsError(t *testing.T) {
	var done atomic.Int64
	err := pool(context.Background(), 8, 2, func() int { return 0 }, func(_ context.Context, _ int, i int) error {
		if i == 3 {
			panic("task 3 failed on purpose")
		}
		done.Add(1)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "internal error (a bug: please report it) in task 3: task 3 failed on purpose") || !strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("error %v", err)
	}
	if done.Load() < 3 {
		t.Errorf("%d tasks done before the panic's", done.Load())
	}
}
