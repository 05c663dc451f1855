// The physical register file's contents (phys_regs.h).
#include "sm/core/phys_regs.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "func/program.h"
#include "ptx/machine.h"

namespace rfsim::sm {

namespace mach = ptx::mach;

void RegisterRows::outside(uint32_t row) const {
  throw Error(fmt::format("register file: row {} outside the {} rows of the SM's register file", row, rows_));
}

void PhysRegFile::configure(uint32_t rows, const RegTranslator& t) {
  if (rows == 0) throw Error("Sm::install: a register file of 0 rows");
  rows_ = rows;
  data_ = ZeroPages(size_t{rows} * 32);
  rowtab_.assign(max_warps_, {});
  sp_copied_.assign(max_warps_, false);
  // What an unmapped register reads: a pattern no kernel computes by chance.
  poison_.fill(0xdeadbeefu);
  view_.assign(mach::kNumRegIds, false);
  for (uint32_t r = 0; r < mach::kNumRegIds; ++r) view_[r] = mach::isRowReg(r) && t.isView(r);
  any_view_ = std::find(view_.begin(), view_.end(), true) != view_.end();
}

void PhysRegFile::bind(uint32_t slot, func::Warp& w) {
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

void PhysRegFile::translateFailed(uint32_t slot, const func::BlockStepper& st, uint32_t local, uint32_t reg,
                                  uint32_t row, uint32_t pc, const char* what) const {
  const func::Warp& w = st.warpState(local);
  const std::string fn = w.frames.empty() || !w.frames.back().fn || !w.frames.back().fn->fn
                             ? std::string("?")
                             : w.frames.back().fn->fn->name;
  const std::string where = fmt::format("register translation of warp slot {} (block ({},{},{}) warp {}), {} pc {}",
                                        slot, st.ctaid().x, st.ctaid().y, st.ctaid().z, local, fn, pc);
  if (what) throw Error(fmt::format("{}: {}", where, what));
  throw Error(fmt::format("{}: {} maps to row {}, outside the register file's {} rows", where, mach::regName(reg), row,
                          rows_));
}

// Called for every register of every issued instruction: the messages are
// built only when the translation fails (translateFailed).
inline uint32_t PhysRegFile::translateChecked(uint32_t slot, const func::BlockStepper& st, uint32_t local,
                                              RegTranslator& t, uint32_t reg, uint32_t pc) {
  uint32_t row = 0;
  try {
    row = t.translate(slot, reg);
  } catch (const Error& e) {  // a mechanism's translator refusing the register: say where
    translateFailed(slot, st, local, reg, 0, pc, e.what());
  }
  if (row >= rows_) translateFailed(slot, st, local, reg, row, pc, nullptr);
  return row;
}

uint64_t* PhysRegFile::latch(uint32_t s, RegTranslator& t, uint16_t r, uint32_t row, const func::DInstr& d,
                             uint32_t pc) {
  for (unsigned i = 0; i < nlatched_; ++i)
    if (latched_[i].first == r) return latch_[i].data();
  if (nlatched_ == latch_.size())
    throw Error(fmt::format("warp slot {} pc {}: more than {} view registers in one instruction", s, pc,
                            latch_.size()));
  latched_[nlatched_] = {r, row};
  uint64_t* l = latch_[nlatched_++].data();
  t.gather(s, r, row, d.in, l);
  return l;
}

void PhysRegFile::map(uint32_t s, func::BlockStepper& st, uint32_t local, const func::DInstr& d, uint32_t pc,
                      RegTranslator& t, uint32_t* rrows, uint32_t* wrows) {
  func::Warp& w = st.warpState(local);
  uint64_t** tab = rowtab_[s].data();
  if (!sp_copied_[s]) {
    // The launch set R1 to the top of the thread's stack (func::BlockExecutor):
    // the warp's first register write, into the row R1 has now.
    const uint32_t r = translateChecked(s, st, local, t, mach::kSP, pc);
    std::copy_n(w.regs.data() + size_t{mach::kSP} * 32, 32, row(r));
    sp_copied_[s] = true;
  }
  const func::MachineColumns& cols = program_.machineColumns();
  uint64_t* const data = data_.data();
  // A view register's lanes: gathered once per instruction into a latch that
  // a read and a write of the same register share.
  nlatched_ = 0;
  nmapped_ = 0;
  unsigned k = 0;
  for (unsigned i = 0; i < d.nreads; ++i) {
    const uint16_t r = d.reads[i];
    if (!mach::isRowReg(r)) continue;
    const uint32_t row = translateChecked(s, st, local, t, r, pc);
    rrows[k++] = row;
    uint64_t** col = &tab[cols.of(r)];
    *col = any_view_ && view_[r] ? latch(s, t, r, row, d, pc) : data + size_t{row} * 32;
    mapped_[nmapped_++] = col;
  }
  k = 0;
  for (unsigned i = 0; i < d.nwrites; ++i) {
    const uint16_t r = d.writes[i];
    if (!mach::isRowReg(r)) continue;
    const uint32_t row = translateChecked(s, st, local, t, r, pc);
    wrows[k++] = row;
    uint64_t** col = &tab[cols.of(r)];
    *col = any_view_ && view_[r] ? latch(s, t, r, row, d, pc) : data + size_t{row} * 32;
    mapped_[nmapped_++] = col;
  }
}

void PhysRegFile::unmap(uint32_t s, const func::DInstr& d, uint32_t active, RegTranslator& t) {
  // What the instruction wrote into a view register's latch goes back.
  if (nlatched_)
    for (unsigned i = 0; i < d.nwrites; ++i) {
      const uint16_t r = d.writes[i];
      if (!mach::isRowReg(r) || !view_[r]) continue;
      for (unsigned j = 0; j < nlatched_; ++j)
        if (latched_[j].first == r) t.scatter(s, r, latched_[j].second, latch_[j].data(), active);
    }
  for (unsigned i = 0; i < nmapped_; ++i) *mapped_[i] = poison_.data();
  nmapped_ = 0;
}

}  // namespace rfsim::sm
