package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// A shared router whose build a replay's context stopped is not kept: the
// stopped replay gets context.Canceled, the next one (its own context) the
// router, built then and kept for the ones after.
func TestSharedRouterKeepsNoStoppedBuild(t *testing.T) {
	m, err := topo.ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9")
	if err != nil {
		t.Fatal(err)
	}
	var s sharedRouter
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := s.get(ctx, m); r != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped build: %v, %v; want no router and context.Canceled", r, err)
	}
	r, err := s.get(context.Background(), m)
	if err != nil || r == nil || r.Endpoints() != m.N() {
		t.Fatalf("the build after: %v, %v; want the machine's router", r, err)
	}
	if again, err := s.get(ctx, m); again != r || err != nil {
		t.Errorf("a third get: %v, %v; want the kept router, built once", again, err)
	}
}
