#include "func/all_lanes.h"

namespace rfsim::func {

namespace {
bool hostAvx2() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}
}  // namespace

const bool kHostAvx2 = hostAvx2();

}  // namespace rfsim::func
