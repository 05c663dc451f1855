#include "common/sc_kernel.h"

#include <systemc>

namespace rfsim {

ScKernel::ScKernel() : ctx_(new sc_core::sc_simcontext()) {}

ScKernel::~ScKernel() {
  // If this kernel is still current (a Scope of it was leaked), leave none
  // current: the next SystemC call makes a fresh default one.
  if (sc_core::sc_curr_simcontext == ctx_) sc_core::sc_curr_simcontext = nullptr;
  if (sc_core::sc_default_global_context == ctx_) sc_core::sc_default_global_context = nullptr;
  delete ctx_;
}

ScKernel::Scope::Scope(ScKernel& k)
    : prev_curr_(sc_core::sc_curr_simcontext), prev_default_(sc_core::sc_default_global_context) {
  sc_core::sc_curr_simcontext = k.ctx_;
  sc_core::sc_default_global_context = k.ctx_;
}

ScKernel::Scope::~Scope() {
  sc_core::sc_curr_simcontext = prev_curr_;
  sc_core::sc_default_global_context = prev_default_;
}

}  // namespace rfsim
