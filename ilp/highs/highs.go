//go:build highs

package highs

/*
#cgo pkg-config: highs
#include <stdint.h>
#include <stdlib.h>
#include "lp_data/HighsCallbackStruct.h"

// highs_c_api.h defines its constants as (non-static) C globals, so it can be included
// in one C file only (callback.c, which also sees these prototypes through
// _cgo_export.h, so the compiler checks them against the real header). The prototypes
// below are the part of the C API this binding uses.
void* Highs_create(void);
void Highs_destroy(void* highs);
const char* Highs_version(void);
HighsInt Highs_run(void* highs);
HighsInt Highs_passLp(void* highs, const HighsInt num_col, const HighsInt num_row, const HighsInt num_nz,
	const HighsInt a_format, const HighsInt sense, const double offset, const double* col_cost,
	const double* col_lower, const double* col_upper, const double* row_lower, const double* row_upper,
	const HighsInt* a_start, const HighsInt* a_index, const double* a_value);
HighsInt Highs_passMip(void* highs, const HighsInt num_col, const HighsInt num_row, const HighsInt num_nz,
	const HighsInt a_format, const HighsInt sense, const double offset, const double* col_cost,
	const double* col_lower, const double* col_upper, const double* row_lower, const double* row_upper,
	const HighsInt* a_start, const HighsInt* a_index, const double* a_value, const HighsInt* integrality);
HighsInt Highs_setBoolOptionValue(void* highs, const char* option, const HighsInt value);
HighsInt Highs_setIntOptionValue(void* highs, const char* option, const HighsInt value);
HighsInt Highs_setDoubleOptionValue(void* highs, const char* option, const double value);
HighsInt Highs_setStringOptionValue(void* highs, const char* option, const char* value);
HighsInt Highs_getIntInfoValue(const void* highs, const char* info, HighsInt* value);
HighsInt Highs_getDoubleInfoValue(const void* highs, const char* info, double* value);
HighsInt Highs_getInt64InfoValue(const void* highs, const char* info, int64_t* value);
HighsInt Highs_getSolution(const void* highs, double* col_value, double* col_dual, double* row_value, double* row_dual);
HighsInt Highs_getModelStatus(const void* highs);
double Highs_getObjectiveValue(const void* highs);
HighsInt Highs_setSolution(void* highs, const double* col_value, const double* row_value,
	const double* col_dual, const double* row_dual);
HighsInt Highs_startCallback(void* highs, const int callback_type);

HighsInt procallocSetCallback(void* highs, uintptr_t handle);
void procallocConstants(HighsInt* out);
*/
import "C"

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime/cgo"
	"sync"
	"time"
	"unsafe"
)

// Constants of highs_c_api.h (HiGHS 1.10).
const (
	statusError             = -1
	statusOk                = 0
	cbLogging               = 0
	cbSimplexInterrupt      = 1
	cbIpmInterrupt          = 2
	cbMipInterrupt          = 6
	msOptimal               = 7
	msInfeasible            = 8
	msUnboundedOrInfeasible = 9
	msUnbounded             = 10
	msTimeLimit             = 13
	msInterrupt             = 17
	solFeasible             = 2
	varInteger              = 1
	senseMin                = 1
	senseMax                = -1
	formatRowwise           = 2
)

// Available reports whether HiGHS is compiled in (build tag "highs").
func Available() bool { return true }

// Version returns the HiGHS version string, e.g. "1.10.0".
func Version() string { return C.GoString(C.Highs_version()) }

// solveState is what the callback sees of a running solve.
type solveState struct {
	ctx         context.Context
	opt         *Options
	mu          sync.Mutex
	last        time.Time
	logBuf      []byte
	interrupted bool
	// abandoned is set (under mu) when Solve returned without the run (abandon):
	// from then on the callback only asks HiGHS to stop. Log and Progress are the
	// caller's again (order's progress bar): calling them from the run's thread
	// after Solve returned was a data race with the caller, and a time-limited run
	// logged its whole report into whatever the caller had moved on to.
	abandoned bool
}

//export goHighsCallback
func goHighsCallback(kind C.int, message *C.char, out *C.HighsCallbackDataOut, in *C.HighsCallbackDataIn, handle C.uintptr_t) {
	st := cgo.Handle(handle).Value().(*solveState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.abandoned {
		if kind != cbLogging && in != nil {
			in.user_interrupt = 1 // its result is dropped: stop it early
		}
		return
	}
	switch kind {
	case cbLogging:
		if st.opt.Log != nil && message != nil {
			st.opt.Log.Write([]byte(C.GoString(message)))
		}
	case cbMipInterrupt, cbSimplexInterrupt, cbIpmInterrupt:
		if st.ctx.Err() != nil {
			st.interrupted = true
			if in != nil {
				in.user_interrupt = 1
			}
			return
		}
		if kind == cbMipInterrupt && st.opt.Progress != nil && out != nil {
			now := time.Now()
			if now.Sub(st.last) >= 100*time.Millisecond {
				st.last = now
				st.opt.Progress(Progress{
					Incumbent: float64(out.mip_primal_bound),
					Bound:     float64(out.mip_dual_bound),
					Gap:       float64(out.mip_gap),
					Nodes:     int64(out.mip_node_count),
					Seconds:   float64(out.running_time),
				})
			}
		}
	}
}

func cstr(s string) *C.char { return C.CString(s) }

func setOpt(h unsafe.Pointer, name string, v any) error {
	cs := cstr(name)
	defer C.free(unsafe.Pointer(cs))
	var st C.HighsInt
	switch x := v.(type) {
	case bool:
		b := C.HighsInt(0)
		if x {
			b = 1
		}
		st = C.Highs_setBoolOptionValue(h, cs, b)
	case int:
		st = C.Highs_setIntOptionValue(h, cs, C.HighsInt(x))
	case float64:
		st = C.Highs_setDoubleOptionValue(h, cs, C.double(x))
	case string:
		cv := cstr(x)
		defer C.free(unsafe.Pointer(cv))
		st = C.Highs_setStringOptionValue(h, cs, cv)
	default:
		return fmt.Errorf("highs: option %s: unsupported type %T", name, v)
	}
	if st == statusError {
		return fmt.Errorf("highs: cannot set option %s = %v", name, v)
	}
	return nil
}

func infoDouble(h unsafe.Pointer, name string) float64 {
	cs := cstr(name)
	defer C.free(unsafe.Pointer(cs))
	var v C.double
	if C.Highs_getDoubleInfoValue(h, cs, &v) != statusOk {
		return math.NaN()
	}
	return float64(v)
}

func infoInt(h unsafe.Pointer, name string) (int, bool) {
	cs := cstr(name)
	defer C.free(unsafe.Pointer(cs))
	var v C.HighsInt
	if C.Highs_getIntInfoValue(h, cs, &v) != statusOk {
		return 0, false
	}
	return int(v), true
}

func infoInt64(h unsafe.Pointer, name string) int64 {
	cs := cstr(name)
	defer C.free(unsafe.Pointer(cs))
	var v C.int64_t
	if C.Highs_getInt64InfoValue(h, cs, &v) != statusOk {
		return 0
	}
	return int64(v)
}

func finite(v float64) C.double {
	switch {
	case math.IsInf(v, 1):
		return C.double(math.Inf(1))
	case math.IsInf(v, -1):
		return C.double(math.Inf(-1))
	}
	return C.double(v)
}

// abandonGrace is how long Solve waits for HiGHS to notice an interrupt or its time
// limit before it returns without it.
const abandonGrace = 800 * time.Millisecond

// abandon returns the result of a run that did not stop in time, and lets the run free
// its HiGHS instance when it ends: no solution, no bound. The run calls none of the
// caller's Options (Log, Progress) after abandon returns (solveState.abandoned).
func abandon(h unsafe.Pointer, handle cgo.Handle, st *solveState, done <-chan C.HighsInt, owned *bool, status Status, t0 time.Time, m *Model) *Result {
	*owned = false
	st.mu.Lock()
	st.abandoned = true
	st.mu.Unlock()
	go func() {
		<-done
		C.Highs_destroy(h)
		handle.Delete()
	}()
	res := &Result{Status: status, Seconds: time.Since(t0).Seconds(), ModelStatus: "abandoned (HiGHS was still in presolve or setup)", DualBound: math.Inf(-1)}
	if m.Maximize {
		res.DualBound = math.Inf(1)
	}
	return res
}

// Solve runs HiGHS on m. start, when not nil, is a starting solution (one value per
// column) handed to HiGHS. Cancelling ctx interrupts the solve; the result then has
// status StatusInterrupted and the best solution found so far (if any). An error is
// returned only when HiGHS rejects the model or options.
func Solve(ctx context.Context, m *Model, start []float64, opt Options) (*Result, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	if start != nil && len(start) != m.NumCols() {
		return nil, fmt.Errorf("highs: starting solution has %d values for %d columns", len(start), m.NumCols())
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	h := C.Highs_create()
	if h == nil {
		return nil, fmt.Errorf("highs: Highs_create failed")
	}
	st := &solveState{ctx: ctx, opt: &opt}
	handle := cgo.NewHandle(st)
	owned := true // false once an abandoned run frees h itself
	defer func() {
		if owned {
			C.Highs_destroy(h)
			handle.Delete()
		}
	}()

	if err := configure(h, &opt); err != nil {
		return nil, err
	}
	if err := pass(h, m, opt.Relax); err != nil {
		return nil, err
	}
	if start != nil && !opt.Relax {
		cs := make([]C.double, len(start))
		for i, v := range start {
			cs[i] = C.double(v)
		}
		if C.Highs_setSolution(h, &cs[0], nil, nil, nil) == statusError {
			return nil, fmt.Errorf("highs: starting solution rejected")
		}
	}
	if C.procallocSetCallback(h, C.uintptr_t(handle)) == statusError {
		return nil, fmt.Errorf("highs: cannot install callback")
	}
	kinds := []C.int{cbMipInterrupt, cbSimplexInterrupt, cbIpmInterrupt}
	if opt.Log != nil {
		kinds = append(kinds, cbLogging)
	}
	for _, k := range kinds {
		// In a MIP the LP interrupt callbacks fire inside the root LP and every
		// sub-solve too; they only interrupt once ctx has ended, when the whole solve
		// must stop anyway, so that Ctrl-C does not wait for a long root LP.
		if C.Highs_startCallback(h, k) == statusError {
			return nil, fmt.Errorf("highs: cannot start callback %d", int(k))
		}
	}

	t0 := time.Now()
	// HiGHS polls the interrupt callbacks in its LPs and its search, but not in
	// presolve or its MIP setup, which take tens of seconds on large models. So the
	// run goes on its own thread: once ctx has ended (or the time limit passed) and
	// HiGHS has not returned within abandonGrace, Solve returns without it, and the
	// run frees its memory when it finishes.
	done := make(chan C.HighsInt, 1)
	go func() { done <- C.Highs_run(h) }()
	var limit <-chan time.Time
	if opt.TimeLimit > 0 {
		// The time limit should hold within a few percent: HiGHS gets 2 % of it
		// (at most abandonGrace) to notice it before it is abandoned.
		tm := time.NewTimer(opt.TimeLimit + min(abandonGrace, opt.TimeLimit/50))
		defer tm.Stop()
		limit = tm.C
	}
	var runStatus C.HighsInt
	select {
	case runStatus = <-done:
	case <-ctx.Done():
		select {
		case runStatus = <-done:
		case <-time.After(abandonGrace):
			return abandon(h, handle, st, done, &owned, StatusInterrupted, t0, m), nil
		}
	case <-limit:
		return abandon(h, handle, st, done, &owned, StatusTimeLimit, t0, m), nil
	}
	res := &Result{Seconds: time.Since(t0).Seconds()}
	ms := C.Highs_getModelStatus(h)
	res.ModelStatus = modelStatusName(int(ms))
	if runStatus == statusError && ms != msInterrupt {
		switch ms {
		case msTimeLimit, msInfeasible, msOptimal:
		default:
			return nil, fmt.Errorf("highs: run failed (model status %s)", res.ModelStatus)
		}
	}
	switch ms {
	case msOptimal:
		res.Status = StatusOptimal
	case msTimeLimit:
		res.Status = StatusTimeLimit
	case msInterrupt:
		res.Status = StatusInterrupted
	case msInfeasible:
		res.Status = StatusInfeasible
	case msUnbounded, msUnboundedOrInfeasible:
		res.Status = StatusUnbounded
	default:
		res.Status = StatusOther
	}
	st.mu.Lock()
	if st.interrupted && res.Status != StatusOptimal {
		res.Status = StatusInterrupted
	}
	st.mu.Unlock()

	res.Objective = float64(C.Highs_getObjectiveValue(h))
	isMIP := !opt.Relax && hasInteger(m)
	if isMIP {
		res.DualBound = infoDouble(h, "mip_dual_bound")
		res.Gap = infoDouble(h, "mip_gap")
		res.Nodes = infoInt64(h, "mip_node_count")
	} else if res.Status == StatusOptimal {
		res.DualBound = res.Objective
	} else {
		res.DualBound = math.Inf(-1)
		if m.Maximize {
			res.DualBound = math.Inf(1)
		}
	}
	if ps, ok := infoInt(h, "primal_solution_status"); ok && ps == int(solFeasible) && m.NumCols() > 0 {
		x := make([]C.double, m.NumCols())
		if C.Highs_getSolution(h, &x[0], nil, nil, nil) != statusError {
			res.X = make([]float64, len(x))
			for i, v := range x {
				res.X[i] = float64(v)
			}
		}
	}
	return res, nil
}

func hasInteger(m *Model) bool {
	for _, b := range m.Integer {
		if b {
			return true
		}
	}
	return false
}

func configure(h unsafe.Pointer, opt *Options) error {
	if err := setOpt(h, "output_flag", opt.Log != nil); err != nil {
		return err
	}
	if err := setOpt(h, "log_to_console", false); err != nil {
		return err
	}
	if opt.Log != nil {
		// HiGHS hands log lines to the callback only when they also go to a console or
		// a file; a file that discards them keeps the console quiet.
		if err := setOpt(h, "log_file", os.DevNull); err != nil {
			return err
		}
	}
	if opt.TimeLimit > 0 {
		if err := setOpt(h, "time_limit", opt.TimeLimit.Seconds()); err != nil {
			return err
		}
	}
	if opt.RelGap < 0 || math.IsNaN(opt.RelGap) {
		return fmt.Errorf("highs: relative gap %g must be >= 0", opt.RelGap)
	}
	if err := setOpt(h, "mip_rel_gap", opt.RelGap); err != nil {
		return err
	}
	if opt.AbsGap > 0 {
		if err := setOpt(h, "mip_abs_gap", opt.AbsGap); err != nil {
			return err
		}
	}
	if opt.Threads > 0 {
		if err := setOpt(h, "threads", opt.Threads); err != nil {
			return err
		}
	}
	return setOpt(h, "random_seed", opt.Seed)
}

func pass(h unsafe.Pointer, m *Model, relax bool) error {
	nc, nr := m.NumCols(), m.NumRows()
	cost := make([]C.double, nc+1)
	lo := make([]C.double, nc+1)
	hi := make([]C.double, nc+1)
	integ := make([]C.HighsInt, nc+1)
	for j := 0; j < nc; j++ {
		cost[j], lo[j], hi[j] = C.double(m.Cost[j]), finite(m.ColLower[j]), finite(m.ColUpper[j])
		if m.Integer[j] && !relax {
			integ[j] = varInteger
		}
	}
	rlo := make([]C.double, nr+1)
	rhi := make([]C.double, nr+1)
	for r := 0; r < nr; r++ {
		rlo[r], rhi[r] = finite(m.RowLower[r]), finite(m.RowUpper[r])
	}
	start := make([]C.HighsInt, nr+1)
	for r := 0; r < nr && r < len(m.rowStart); r++ {
		start[r] = C.HighsInt(m.rowStart[r])
	}
	nz := len(m.rowIndex)
	index := make([]C.HighsInt, nz+1)
	value := make([]C.double, nz+1)
	for k := 0; k < nz; k++ {
		index[k], value[k] = C.HighsInt(m.rowIndex[k]), C.double(m.rowValue[k])
	}
	sense := C.HighsInt(senseMin)
	if m.Maximize {
		sense = senseMax
	}
	var st C.HighsInt
	if relax || !hasInteger(m) {
		st = C.Highs_passLp(h, C.HighsInt(nc), C.HighsInt(nr), C.HighsInt(nz), formatRowwise, sense,
			C.double(m.Offset), &cost[0], &lo[0], &hi[0], &rlo[0], &rhi[0], &start[0], &index[0], &value[0])
	} else {
		st = C.Highs_passMip(h, C.HighsInt(nc), C.HighsInt(nr), C.HighsInt(nz), formatRowwise, sense,
			C.double(m.Offset), &cost[0], &lo[0], &hi[0], &rlo[0], &rhi[0], &start[0], &index[0], &value[0], &integ[0])
	}
	if st == statusError {
		return fmt.Errorf("highs: model rejected (%d columns, %d rows, %d nonzeros)", nc, nr, nz)
	}
	return nil
}

func modelStatusName(s int) string {
	names := map[int]string{
		0: "not set", 1: "load error", 2: "model error", 3: "presolve error", 4: "solve error",
		5: "postsolve error", 6: "model empty", 7: "optimal", 8: "infeasible",
		9: "unbounded or infeasible", 10: "unbounded", 11: "objective bound", 12: "objective target",
		13: "time limit", 14: "iteration limit", 15: "unknown", 16: "solution limit", 17: "interrupt",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("status %d", s)
}

// checkConstants compares the constants above with the installed header's values.
func checkConstants() error {
	var got [17]C.HighsInt
	C.procallocConstants(&got[0])
	want := [17]int{statusError, statusOk, cbLogging, cbSimplexInterrupt, cbIpmInterrupt, cbMipInterrupt,
		msOptimal, msInfeasible, msUnboundedOrInfeasible, msUnbounded, msTimeLimit, msInterrupt,
		solFeasible, varInteger, senseMin, senseMax, formatRowwise}
	for i, w := range want {
		if int(got[i]) != w {
			return fmt.Errorf("highs: constant %d is %d in the header, %d in the binding", i, int(got[i]), w)
		}
	}
	return nil
}
