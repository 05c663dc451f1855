// Sm::install: a mechanism's hook bundle into the SM, by the rules of
// sm_hooks.h (one per SM, stacked, summed, chained), all of them here.
#include <memory>

#include "common/error.h"
#include "sm/core/sm.h"
#include "sm/core/stacked_hooks.h"

namespace rfsim::sm {

SmInstalled Sm::install(const SmHooks& h) {
  if (stats_->blocks_launched.get() != 0) throw Error("Sm::install: only before the first launch");
  InstalledHooks& in = hooks_;
  SmInstalled r;
  if (h.bank_index && *h.bank_index != oc_cfg_.bank_index) {
    // The bank map is the collector's: a new collector with the index applied.
    if (opc_->translating())
      throw Error("Sm::install: the bank index is set before any register translator is installed");
    oc_cfg_.bank_index = *h.bank_index;
    const uint32_t delay = opc_->stageDelay();
    RegFileLevel* level = opc_->mechanismLevel();
    opc_ = std::make_unique<OperandCollector>(oc_cfg_);
    bindCollector();
    opc_->setStageDelay(delay);
    opc_->setLevel(level);
  }
  r.stacked = h.translator && h.registers == SmHooks::Registers::kGeneral && opc_->translating();
  if (r.stacked) {
    // The earlier bundle keeps every register but the general ones.
    in.translators.push_back(std::make_unique<StackedTranslator>(*h.translator, opc_->translator()));
    opc_->setTranslator(nullptr);
    opc_->setTranslator(in.translators.back().get());
    if (h.allocator) {
      if (in.baseAlloc())
        throw Error("a mechanism installed a register translator without a warp register allocator: the general "
                    "registers cannot be stacked over it");
      in.allocators.push_back(std::make_unique<StackedAllocator>(*in.alloc, *h.allocator));
      in.alloc = in.allocators.back().get();
    }
    if (h.launch && in.launch) {
      in.launches.push_back(std::make_unique<StackedLaunchHook>(*in.launch, *h.launch));
      in.launch = in.launches.back().get();
    } else if (h.launch) {
      in.launch = h.launch;
    }
    if (h.level) {
      r.level_under = opc_->mechanismLevel();
      opc_->setLevel(nullptr);
    }
  } else {
    if (h.allocator) {
      if (!in.baseAlloc() && in.alloc != h.allocator)
        throw Error("the SM's warp register allocator is already installed by another mechanism");
      in.alloc = h.allocator;
    }
    if (h.launch) {
      if (in.launch && in.launch != h.launch)
        throw Error("the SM's warp launch hook is already installed by another mechanism");
      in.launch = h.launch;
    }
    if (h.translator) opc_->setTranslator(h.translator);  // throws when another is installed
  }
  if (h.level) opc_->setLevel(h.level);  // throws when another is installed (not stacked)
  if (h.physical_rows) {
    if (!setup_.kernel || !setup_.kernel->machine)
      throw Error("Sm::install: registers held by physical row need a machine program (the back end's output), not "
                  "PTX virtual registers");
    if (!opc_->translating())
      throw Error("Sm::install: physical registers need a register translator (SmHooks::translator)");
    regs_.configure(h.physical_rows, opc_->translator());
  }
  if (h.activation) {
    if (in.activation && in.activation != h.activation)
      throw Error("the schedulers' activation hook is already installed by another mechanism");
    in.activation = h.activation;
    issue_.setActivationHook(h.activation);
  }
  if (h.stage_delay) opc_->setStageDelay(opc_->stageDelay() + h.stage_delay);
  in.issue_latency += h.issue_latency;
  for (IssueGate* g : h.gates) {
    if (!g) throw Error("Sm::install: a null issue gate");
    if (!in.gate) {
      in.gate = g;
      continue;
    }
    if (!in.gate_chain) {
      in.gate_chain = std::make_unique<IssueGateChain>();
      in.gate_chain->add(in.gate);
      in.gate = in.gate_chain.get();
    }
    in.gate_chain->add(g);
  }
  for (SmEventHook* e : h.events) in.events.push_back(e);
  for (InstrObserver* o : h.observers) {
    // The first observer also brings the scalar pipelines it may use
    // (InstrObserver::scalar): one per scheduler, after the unit types.
    exec_.addScalarPipelines();
    in.observers.push_back(o);
  }
  return r;
}

}  // namespace rfsim::sm
