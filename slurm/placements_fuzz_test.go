package slurm

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzParsePlacements fuzzes curve's --placements for torus3d on a small torus: an
// accepted list has one box per item, each fitting the torus, sizes distinct and
// sorted; a shape item is written exactly as its box (String) and a size item is its
// CompactBox; the boxes written back as shapes read back equal. A refusal names an
// item of the input.
func FuzzParsePlacements(f *testing.F) {
	for _, s := range []string{"8,2x2x1,2", "1", "16", "4x2x2", "5", "4,2x2x1", "5x1x1", "x", "0", "2x2", "2x2x1x1", "", "+2x1x1", "02x1x1",
		"2x 1x1", "2x1x1\n4", " 2 , 4 ", "1x1x1,1", "-1", "2x1x1junk", "9999999999999999999x1x1"} {
		f.Add(s, uint8(4), uint8(2), uint8(2))
	}
	f.Fuzz(func(t *testing.T, s string, x, y, z uint8) {
		dims := [3]int{1 + int(x)%6, 1 + int(y)%6, 1 + int(z)%6}
		boxes, err := ParsePlacements(s, dims)
		items := strings.Split(s, ",")
		for i := range items {
			items[i] = strings.TrimSpace(items[i])
		}
		if err != nil {
			if boxes != nil {
				t.Fatalf("%q: refused (%v) but returned %v", s, err, boxes)
			}
			named := false
			for _, it := range items {
				named = named || strings.Contains(err.Error(), "placement "+strconv.Quote(it)) || strings.Contains(err.Error(), "placement "+it+" ") ||
					strings.Contains(err.Error(), "placement "+it+":")
			}
			if !named {
				t.Fatalf("%q on %v: error %q names no item", s, dims, err)
			}
			return
		}
		if len(boxes) != len(items) {
			t.Fatalf("%q: %d boxes for %d items", s, len(boxes), len(items))
		}
		sizes := map[int]bool{}
		for i, b := range boxes {
			if b.X < 1 || b.Y < 1 || b.Z < 1 || b.X > dims[0] || b.Y > dims[1] || b.Z > dims[2] {
				t.Fatalf("%q: box %v does not fit %v", s, b, dims)
			}
			if sizes[b.Size()] || i > 0 && boxes[i-1].Size() > b.Size() {
				t.Fatalf("%q: sizes repeated or unsorted: %v", s, boxes)
			}
			sizes[b.Size()] = true
		}
		for _, it := range items {
			var want Box
			if strings.Contains(it, "x") {
				i := slices.IndexFunc(boxes, func(b Box) bool { return b.String() == it })
				if i < 0 {
					t.Fatalf("%q: shape %q is not written as any box of %v", s, it, boxes)
				}
				continue
			}
			k, err := strconv.Atoi(it)
			if err != nil || strconv.Itoa(k) != it {
				t.Fatalf("%q: item %q accepted as a size", s, it)
			}
			want, _ = CompactBox(dims, k)
			if !slices.Contains(boxes, want) {
				t.Fatalf("%q: size %d's box %v not among %v", s, k, want, boxes)
			}
		}
		shapes := make([]string, len(boxes))
		for i, b := range boxes {
			shapes[i] = b.String()
		}
		back, err := ParsePlacements(strings.Join(shapes, ","), dims)
		if err != nil || !slices.Equal(back, boxes) {
			t.Fatalf("%q: %v written back reads as %v, %v", s, boxes, back, err)
		}
	})
}
