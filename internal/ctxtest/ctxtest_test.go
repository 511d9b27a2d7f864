package ctxtest

import (
	"context"
	"errors"
	"sync"
	"testing"
)

func TestStopAfter(t *testing.T) {
	c := StopAfter(3)
	for i := range 3 {
		if err := c.Err(); err != nil {
			t.Fatalf("look %d: %v, want nil", i+1, err)
		}
	}
	for i := range 2 {
		if err := c.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("look %d after the countdown: %v, want Canceled", i+4, err)
		}
	}
}

func TestCountingConcurrent(t *testing.T) {
	c := NewCounting()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				if c.Err() != nil {
					t.Error("Counting ended")
				}
			}
		})
	}
	wg.Wait()
	if got := c.Looks(); got != 8000 {
		t.Errorf("Looks = %d, want 8000", got)
	}
}
