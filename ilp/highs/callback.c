//go:build highs

// The C side of the HiGHS callback: HiGHS calls procallocHighsCallback, which hands
// the event to Go (goHighsCallback, exported from highs.go) with the cgo.Handle that
// identifies the solve.
#include <stdint.h>
#include "interfaces/highs_c_api.h"
#include "_cgo_export.h"

void procallocHighsCallback(int type, const char* message,
                            const HighsCallbackDataOut* out,
                            HighsCallbackDataIn* in, void* user) {
	goHighsCallback(type, (char*)message, (HighsCallbackDataOut*)out, in, (uintptr_t)user);
}

HighsInt procallocSetCallback(void* highs, uintptr_t handle) {
	return Highs_setCallback(highs, procallocHighsCallback, (void*)handle);
}

// procallocConstants writes the header's values of the constants highs.go mirrors, in
// the order of checkConstants.
void procallocConstants(HighsInt* out) {
	const HighsInt v[17] = {kHighsStatusError, kHighsStatusOk, kHighsCallbackLogging,
		kHighsCallbackSimplexInterrupt, kHighsCallbackIpmInterrupt, kHighsCallbackMipInterrupt,
		kHighsModelStatusOptimal, kHighsModelStatusInfeasible, kHighsModelStatusUnboundedOrInfeasible,
		kHighsModelStatusUnbounded, kHighsModelStatusTimeLimit, kHighsModelStatusInterrupt,
		kHighsSolutionStatusFeasible, kHighsVarTypeInteger, kHighsObjSenseMinimize,
		kHighsObjSenseMaximize, kHighsMatrixFormatRowwise};
	for (int i = 0; i < 17; i++) out[i] = v[i];
}
