package alloc

import "encoding/binary"

// decisionMemo remembers a deterministic allocator's answers by request size and
// free set. A replay meets the same free set and request again and again (41% of
// MM's decisions on the LLNL-T3D 16x16 replay, 44% of its search time): the
// allocator's answer is then looked up instead of searched for again. The key is
// the whole free bitmap, compared exactly.
type decisionMemo struct {
	key   []byte
	m     map[string][]int32
	bytes int
}

// decisionMemoBytes bounds a memo's keys and answers; a full memo starts afresh.
const decisionMemoBytes = 16 << 20

// lookup returns the answer remembered for k nodes from st's free set.
func (d *decisionMemo) lookup(k int, st *State) ([]int, bool) {
	d.key = binary.LittleEndian.AppendUint64(d.key[:0], uint64(k))
	for _, w := range st.free {
		d.key = binary.LittleEndian.AppendUint64(d.key, w)
	}
	v, ok := d.m[string(d.key)]
	if !ok {
		return nil, false
	}
	nodes := make([]int, len(v))
	for i, x := range v {
		nodes[i] = int(x)
	}
	return nodes, true
}

// store remembers nodes as the answer for the key of the last lookup.
func (d *decisionMemo) store(nodes []int) {
	size := len(d.key) + 4*len(nodes) + 64 // the map's own cost, roughly
	if d.m == nil || d.bytes+size > decisionMemoBytes {
		d.m, d.bytes = map[string][]int32{}, 0
	}
	v := make([]int32, len(nodes))
	for i, x := range nodes {
		v[i] = int32(x)
	}
	d.m[string(d.key)] = v
	d.bytes += size
}
