// guarded(): the boundary between the application and the model.
#pragma once

#include <cstdio>
#include <exception>

#include "common/error.h"

namespace rfsim::cudart {

void reportError(const char* fn, cudaError_t code, const std::string& message);

template <class F>
cudaError_t guarded(const char* fn, F&& body) {
  Session& s = Session::get();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  cudaError_t code = cudaSuccess;
  try {
    if (s.sticky != cudaSuccess) return s.sticky;
    body(s);
    return cudaSuccess;
  } catch (const CudaError& e) {
    code = e.code;
    reportError(fn, code, e.message);
  } catch (const Error& e) {
    code = cudaErrorInvalidValue;
    reportError(fn, code, e.what());
  } catch (const std::exception& e) {
    code = cudaErrorUnknown;
    reportError(fn, code, e.what());
  }
  s.last_error = code;
  return code;
}

}  // namespace rfsim::cudart
