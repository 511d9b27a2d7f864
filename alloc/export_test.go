package alloc

// forceLists makes an MC1x1 allocator work tied node sets out on lists, as on
// machines too large for the ball-mask table, however small its machine: the tests
// run both paths against the reference.
func forceLists(a Allocator) {
	a.(*mc1x1).x.maskWords = 0
}
