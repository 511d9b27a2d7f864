package curves

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// FuzzReadRankingDetected fuzzes a ranking file read without its format (standard
// input, a name without the format's extension: ReadRankingFrom with no format,
// DetectFormat). Every format's writer's file, of an order made from the input,
// is detected and read back to that order, but for one number per line, refused
// as ErrRanksOrOrder; any input read so is a permutation, the one read with the
// format DetectFormat names.
func FuzzReadRankingDetected(f *testing.F) {
	hosts := []string{"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"}
	f.Add([]byte{3, 1, 4, 1, 5}, 5, true, true)
	f.Add([]byte{0}, 1, false, true)
	f.Add([]byte("0 1\n1 0\n"), 2, false, false)
	f.Add([]byte("h1\nh0\nh2\n"), 3, true, false)
	f.Add([]byte("h[1,0]\n"), 2, true, false)
	f.Add([]byte(`{"order":[1,0]}`), 2, false, false)
	f.Add([]byte("rank 0=h1 slot=0\nrank 1=h0 slot=0\n"), 2, true, false)
	f.Add([]byte("1,0\n"), 2, false, false)
	f.Add([]byte("\ufeff1\n0\n"), 2, false, false)
	f.Fuzz(func(t *testing.T, data []byte, n int, named, write bool) {
		n = 1 + (n%8+8)%8
		var hs []string
		if named {
			hs = hosts[:n]
		}
		m := topo.Mesh(n)
		if write {
			// An order from the input's bytes (Fisher-Yates), written in every format.
			o := RowMajor(n)
			for i := n - 1; i > 0 && len(data) > 0; i-- {
				j := int(data[0]) % (i + 1)
				data = data[1:]
				o[i], o[j] = o[j], o[i]
			}
			for _, ft := range Formats() {
				var buf bytes.Buffer
				if err := WriteRanking(&buf, ft, o, RankingMeta{}, hs); err != nil {
					continue // a format that needs the names
				}
				back, err := ReadRankingFrom(bytes.NewReader(buf.Bytes()), "x", "", m, hs)
				if errors.Is(err, ErrRanksOrOrder) {
					if f, ferr := DetectFormat(buf.Bytes()); ferr == nil {
						t.Fatalf("%s of %v: ErrRanksOrOrder from the reader, %s from DetectFormat", ft, o, f)
					}
					continue
				}
				if err != nil || !slices.Equal(back, o) {
					t.Fatalf("%s of %v (%q) detected and read: %v, %v", ft, o, buf.Bytes(), back, err)
				}
			}
			return
		}
		o, err := ReadRankingFrom(bytes.NewReader(data), "x", "", m, hs)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if err := o.Validate(n); err != nil {
			t.Fatalf("%q read as %v: %v", data, o, err)
		}
		ft, err := DetectFormat(bytes.TrimPrefix(data, []byte("\ufeff")))
		if err != nil {
			t.Fatalf("%q read as %v, but DetectFormat says %v", data, o, err)
		}
		named2, err := ReadRankingOf(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))), ft, m, hs)
		if err != nil || !slices.Equal(named2, o) {
			t.Fatalf("%q read as %v detected, as %v with its format (%s) named: %v", data, o, named2, ft, err)
		}
	})
}
