package exact

import (
	"context"
	"testing"
)

func TestProbeAll(t *testing.T) {
	all, _ := Clusters(context.Background(), 2, 200)
	if !all[199].Optimal {
		t.Fatal()
	}
}
