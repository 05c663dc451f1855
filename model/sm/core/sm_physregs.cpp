// The register file's contents (Sm::setPhysicalRegisters): a mechanism that
// renames or calculates register indices keeps the functional values of the
// general registers in the register file's rows, so the functional model
// reads and writes exactly the rows its hardware named at issue.
#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm.h"

namespace rfsim::sm {

namespace mach = ptx::mach;

void Sm::setPhysicalRegisters(uint32_t rows) {
  if (stats_->blocks_launched.get() != 0) throw Error("Sm::setPhysicalRegisters: only before the first launch");
  if (!setup_.kernel || !setup_.kernel->machine)
    throw Error("Sm::setPhysicalRegisters: registers held by physical row need a machine program (the back end's "
                "output), not PTX virtual registers");
  if (!opc_->translating())
    throw Error("Sm::setPhysicalRegisters: install the register translator first (OperandCollector::setTranslator)");
  if (rows == 0) throw Error("Sm::setPhysicalRegisters: a register file of 0 rows");
  phys_rows_ = rows;
  phys_.assign(size_t{rows} * 32, 0);
  rowtab_.assign(cfg_.sm.max_warps, {});
  // What an unmapped register reads: a pattern no kernel computes by chance.
  poison_.fill(0xdeadbeefu);
  RegTranslator& t = opc_->translator();
  view_.assign(mach::kNumRegIds, false);
  for (uint32_t r = 0; r < mach::kNumRegIds; ++r) view_[r] = mach::isRowReg(r) && t.isView(r);
}

uint64_t* Sm::physicalRow(uint32_t row) {
  if (row >= phys_rows_)
    throw Error(fmt::format("register file: row {} outside the {} rows of the SM's register file", row, phys_rows_));
  return phys_.data() + size_t{row} * 32;
}

void Sm::bindRegisters(uint32_t slot, func::Warp& w) {
  // The warp's columns are R0..R<top> by number and the extension-class
  // registers the program names, then RZ, the predicates and the sinks
  // (func::compactMachineColumns): the first are unmapped until an issue
  // translates them; the rest stay the warp's.
  const size_t ids = w.regs.size() / 32;
  const size_t rows = program_.machineColumns().row_cols;
  std::vector<uint64_t*>& tab = rowtab_[slot];
  tab.assign(ids, nullptr);
  for (size_t r = 0; r < ids; ++r) tab[r] = r < rows ? poison_.data() : w.regs.data() + r * 32;
  w.rows = tab.data();
}

uint32_t Sm::translateChecked(uint32_t slot, uint32_t reg, uint32_t pc) {
  auto where = [&] {
    const WarpSlot& ws = slots_[slot];
    const func::BlockStepper& st = *blocks_[ws.block]->stepper;
    const func::Warp& w = blocks_[ws.block]->stepper->warpState(ws.local);
    const std::string fn = w.frames.empty() || !w.frames.back().fn || !w.frames.back().fn->fn
                               ? std::string("?")
                               : w.frames.back().fn->fn->name;
    return fmt::format("register translation of warp slot {} (block ({},{},{}) warp {}), {} pc {}", slot, st.ctaid().x,
                       st.ctaid().y, st.ctaid().z, ws.local, fn, pc);
  };
  uint32_t row = 0;
  try {
    row = opc_->translate(slot, reg);
  } catch (const Error& e) {  // a mechanism's translator refusing the register: say where
    throw Error(fmt::format("{}: {}", where(), e.what()));
  }
  if (row >= phys_rows_)
    throw Error(fmt::format("{}: {} maps to row {}, outside the register file's {} rows", where(), mach::regName(reg),
                            row, phys_rows_));
  return row;
}

void Sm::mapRegisters(uint32_t s, WarpSlot& ws, const func::DInstr& d, uint32_t pc, uint32_t* rrows,
                      uint32_t* wrows) {
  func::Warp& w = blocks_[ws.block]->stepper->warpState(ws.local);
  uint64_t** tab = rowtab_[s].data();
  if (!ws.sp_copied) {
    // The launch set R1 to the top of the thread's stack (func::BlockExecutor):
    // the warp's first register write, into the row R1 has now.
    const uint32_t row = translateChecked(s, mach::kSP, pc);
    std::copy_n(w.regs.data() + size_t{mach::kSP} * 32, 32, physicalRow(row));
    ws.sp_copied = true;
  }
  const func::MachineColumns& cols = program_.machineColumns();
  // A view register's lanes: gathered once per instruction into a latch that
  // a read and a write of the same register share.
  nlatched_ = 0;
  auto latch = [&](uint16_t r, uint32_t row) -> uint64_t* {
    for (unsigned i = 0; i < nlatched_; ++i)
      if (latched_[i].first == r) return latch_[i].data();
    if (nlatched_ == latch_.size())
      throw Error(fmt::format("warp slot {} pc {}: more than {} view registers in one instruction", s, pc,
                              latch_.size()));
    latched_[nlatched_] = {r, row};
    uint64_t* l = latch_[nlatched_++].data();
    opc_->translator().gather(s, r, row, d.in, l);
    return l;
  };
  unsigned k = 0;
  for (unsigned i = 0; i < d.nreads; ++i) {
    const uint16_t r = d.reads[i];
    if (!mach::isRowReg(r)) continue;
    rrows[k] = translateChecked(s, r, pc);
    tab[cols.of(r)] = view_[r] ? latch(r, rrows[k]) : phys_.data() + size_t{rrows[k]} * 32;
    ++k;
  }
  k = 0;
  for (unsigned i = 0; i < d.nwrites; ++i) {
    const uint16_t r = d.writes[i];
    if (!mach::isRowReg(r)) continue;
    wrows[k] = translateChecked(s, r, pc);
    tab[cols.of(r)] = view_[r] ? latch(r, wrows[k]) : phys_.data() + size_t{wrows[k]} * 32;
    ++k;
  }
}

void Sm::unmapRegisters(uint32_t s, const func::DInstr& d, uint32_t active) {
  const func::MachineColumns& cols = program_.machineColumns();
  uint64_t** tab = rowtab_[s].data();
  // What the instruction wrote into a view register's latch goes back.
  if (nlatched_)
    for (unsigned i = 0; i < d.nwrites; ++i) {
      const uint16_t r = d.writes[i];
      if (!mach::isRowReg(r) || !view_[r]) continue;
      for (unsigned j = 0; j < nlatched_; ++j)
        if (latched_[j].first == r) opc_->translator().scatter(s, r, latched_[j].second, latch_[j].data(), active);
    }
  for (unsigned i = 0; i < d.nreads; ++i)
    if (mach::isRowReg(d.reads[i])) tab[cols.of(d.reads[i])] = poison_.data();
  for (unsigned i = 0; i < d.nwrites; ++i)
    if (mach::isRowReg(d.writes[i])) tab[cols.of(d.writes[i])] = poison_.data();
}

}  // namespace rfsim::sm
