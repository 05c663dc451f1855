// A SystemC simulation kernel of one's own.
//
// SystemC 2.3 keeps its simulation kernel (sc_simcontext: the object
// hierarchy, the processes, simulated time, the elaboration/running/paused
// state) in a process-wide "current" pointer, and a kernel cannot elaborate
// twice, take new modules once started, or restart after sc_stop(). So that
// a simulation owns everything it simulates -- two simulations in one
// process, even interleaved, give the results of two processes -- each
// owner of SystemC modules (gpu::Simulation, a mechanism's demo) makes
// its own kernel with ScKernel and enters it (ScKernel::Scope) around
// everything that touches SystemC: building its modules, sc_start(),
// sc_time_stamp(). The Scope restores the kernel that was current before,
// so scopes nest. Modules must be destroyed inside a Scope of their own
// kernel and before it (their destructors unregister from it); ScKernel's
// destructor deletes the kernel.
//
// The two SystemC globals switched (sc_curr_simcontext and
// sc_default_global_context) are public in SystemC 2.3's headers
// (sysc/kernel/sc_simcontext.h); the library's own reset between test
// cases uses the same pair. What stays process-wide in SystemC is only the
// report handler's configuration and TLM-2.0's global quantum
// (tlm_global_quantum), which a simulation sets before each sc_start().
#pragma once

namespace sc_core {
class sc_simcontext;
}

namespace rfsim {

class ScKernel {
 public:
  ScKernel();
  ~ScKernel();
  ScKernel(const ScKernel&) = delete;
  ScKernel& operator=(const ScKernel&) = delete;

  // Makes the kernel current for its lifetime (not thread-safe: SystemC is
  // single-threaded).
  class Scope {
   public:
    explicit Scope(ScKernel& k);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    sc_core::sc_simcontext* prev_curr_;
    sc_core::sc_simcontext* prev_default_;
  };

  sc_core::sc_simcontext* context() const { return ctx_; }

 private:
  sc_core::sc_simcontext* ctx_;
};

}  // namespace rfsim
