// Package highs is procalloc's own cgo binding of the HiGHS C API (HiGHS 1.10, header
// highs/interfaces/highs_c_api.h), behind the build tag "highs".
//
// It covers what the ordering and subset integer programs need: a MIP given by sparse
// rows, column bounds and integrality (Model), options (time limit, relative and
// absolute gap, threads, seed, log to an io.Writer or off), a starting solution,
// cancellation from a context.Context through HiGHS's MIP interrupt callback, and a
// Result with status, objective, dual bound, gap and solution. Every HiGHS instance is
// destroyed on every path before Solve returns.
//
// Without the tag the same API compiles, Available reports false and Solve returns
// ErrNotAvailable, which says how to build with HiGHS. Why a binding of our own:
// the published Go wrappers are not reachable from this project's module proxy, and
// the binding needs little of the API. It follows no paper: it binds HiGHS's C API.
package highs
