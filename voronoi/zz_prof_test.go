package voronoi

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

func TestZZProf(t *testing.T) {
	path := os.Getenv("VOR_PTS")
	if path == "" {
		t.Skip()
	}
	f, _ := os.Open(path)
	defer f.Close()
	var pts []geom.Point
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		x, _ := strconv.Atoi(fs[0])
		y, _ := strconv.Atoi(fs[1])
		pts = append(pts, geom.Point{x, y})
	}
	k, _ := strconv.Atoi(os.Getenv("VOR_K"))
	s, err := KNearestSets(pts, k, 0)
	t.Log(len(s), err)
}
