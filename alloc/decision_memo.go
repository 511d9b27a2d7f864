package alloc

import "encoding/binary"

// decisionMemo remembers a deterministic allocator's decisions by request and free
// set. A replay meets the same free set and request again and again (44% of MM's
// decisions on the LLNL-T3D 16x16 replay, 44% of its search time): the decision is
// then looked up instead of searched for again. The key is the whole free bitmap,
// compared exactly.
type decisionMemo struct {
	off   bool // Options.NoMemo: lookup finds nothing, store keeps nothing
	key   []byte
	m     map[string]decision
	bytes int
}

// decision is a remembered answer: the nodes, and for allocators that count ties
// (TieReporter) the tie count and what the decision added to the statistics.
type decision struct {
	nodes []int32
	ties  int32
	stats TieStats
}

// decisionMemoBytes bounds a memo's keys and answers; a full memo starts afresh.
const decisionMemoBytes = 4 << 20

// lookup returns the decision remembered for k nodes from st's free set; variant
// separates decisions that differ in something besides the two (tie counting on or
// off).
func (d *decisionMemo) lookup(k int, variant bool, st *State) (nodes []int, dec decision, ok bool) {
	if d.off {
		return nil, decision{}, false
	}
	key := uint64(k) << 1
	if variant {
		key |= 1
	}
	d.key = binary.LittleEndian.AppendUint64(d.key[:0], key)
	for _, w := range st.free {
		d.key = binary.LittleEndian.AppendUint64(d.key, w)
	}
	dec, ok = d.m[string(d.key)]
	if !ok {
		return nil, decision{}, false
	}
	nodes = make([]int, len(dec.nodes))
	for i, x := range dec.nodes {
		nodes[i] = int(x)
	}
	return nodes, dec, true
}

// store remembers the decision for the key of the last lookup.
func (d *decisionMemo) store(nodes []int, ties int, stats TieStats) {
	if d.off {
		return
	}
	size := len(d.key) + 4*len(nodes) + 96 // the map's own cost, roughly
	if d.m == nil || d.bytes+size > decisionMemoBytes {
		d.m, d.bytes = map[string]decision{}, 0
	}
	v := make([]int32, len(nodes))
	for i, x := range nodes {
		v[i] = int32(x)
	}
	d.m[string(d.key)] = decision{nodes: v, ties: int32(ties), stats: stats}
	d.bytes += size
}
