// What a call this library does not implement does (the stubs are generated
// from api_names.txt): one line naming it, the application's call site and
// the table's note, once per name; then cudaErrorNotSupported, which the
// next cudaGetLastError also returns. The call site is the stub's return
// address (call_site.cpp).
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "cudart/api.h"

namespace rfsim::cudart {

cudaError_t unsupported(const char* name, const char* note, const void* caller) {
  Session& s = Session::get();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  static std::set<std::string> told;
  if (told.insert(name).second)
    std::fprintf(stderr,
                 "rfsim cudart: %s is not implemented by the model's CUDA runtime%s%s%s; called from %s; it returns "
                 "cudaErrorNotSupported (docs/cudart.md lists every call)\n",
                 name, note && *note ? " (" : "", note && *note ? note : "", note && *note ? ")" : "",
                 callSite(caller).c_str());
  s.last_error = cudaErrorNotSupported;
  return cudaErrorNotSupported;
}

}  // namespace rfsim::cudart

extern "C" int rfsim_cudart_unsupported(const char* name, const char* note, const void* caller) {
  return rfsim::cudart::unsupported(name, note, caller);
}
