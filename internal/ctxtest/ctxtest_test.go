package ctxtest

import (
	"context"
	"errors"
	"slices"
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

// Stops gives a cancelled context, then one ending after each of 0, step,
// 2 step, ... looks below the count (step looks/parts, at least 1).
func TestStops(t *testing.T) {
	for _, c := range []struct {
		looks, parts int64
		want         []int64
	}{
		{0, 40, []int64{-1}},
		{3, 40, []int64{-1, 0, 1, 2}},
		{100, 40, []int64{-1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62, 64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88, 90, 92, 94, 96, 98}},
		{10, 3, []int64{-1, 0, 3, 6, 9}},
	} {
		var got []int64
		for k, ctx := range Stops(c.looks, c.parts) {
			got = append(got, k)
			// k looks pass, the next is Canceled (the first for the cancelled one)
			for i := range max(k, 0) {
				if err := ctx.Err(); err != nil {
					t.Fatalf("Stops(%d, %d) at %d: look %d: %v", c.looks, c.parts, k, i+1, err)
				}
			}
			if err := ctx.Err(); !errors.Is(err, context.Canceled) {
				t.Fatalf("Stops(%d, %d) at %d: look %d: %v, want Canceled", c.looks, c.parts, k, max(k, 0)+1, err)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Stops(%d, %d): %v, want %v", c.looks, c.parts, got, c.want)
		}
	}
}
