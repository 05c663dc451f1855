// The fetch stage (fetch_stage.h).
#include "sm/core/fetch_stage.h"

namespace rfsim::sm {

void FetchStage::afterIssue(uint32_t slot, const func::BlockStepper& st, uint32_t local, const func::StepInfo& info) {
  IBuffer& b = ib_[slot];
  const func::WarpStatus fs = st.status(local);
  if (fs == func::WarpStatus::Ready) {
    const bool seq = st.peekFunc(local) == info.func && st.peekPc(local) == info.pc + 1;
    if (!seq || info.divergent) {
      if (b.valid || b.pending) ++stats_.ibuffer_flushes;
      b.valid = 0;
      b.pending = 0;
    }
  }
  if (fs == func::WarpStatus::Done) {
    b.valid = 0;
    b.pending = 0;
  }
}

}  // namespace rfsim::sm
