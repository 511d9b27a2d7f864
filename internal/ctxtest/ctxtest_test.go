package ctxtest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
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

// Leaked reports a goroutine blocked on a channel nobody closes, with its stack,
// and nothing once it has ended; goroutines running before are not its business.
func TestLeaked(t *testing.T) {
	old := make(chan struct{})
	go func() { <-old }()
	defer close(old)
	time.Sleep(10 * time.Millisecond) // let it start
	before := Goroutines()
	stuck := make(chan struct{})
	go blockedOn(stuck)
	left := Leaked(before, 50*time.Millisecond)
	if len(left) != 1 || !strings.Contains(left[0], "ctxtest.blockedOn") {
		t.Fatalf("a goroutine blocked on a channel: got %d left: %q", len(left), left)
	}
	close(stuck)
	if left := Leaked(before, 5*time.Second); len(left) != 0 {
		t.Fatalf("after it ended: %q", left)
	}
}

func blockedOn(c chan struct{}) { <-c }
