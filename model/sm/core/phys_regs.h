// The physical register file's contents (SmHooks::physical_rows): a
// mechanism that renames or calculates register indices keeps the functional
// values of the registers in the register file's rows, so the functional
// model reads and writes exactly the rows its hardware named at issue. The
// values of every general (and extension-class) register live in `rows`
// warp-registers of 32 lanes, indexed by physical row; at issue each register
// the instruction reads or writes is translated once (the installed
// RegTranslator) and the instruction executes on that row -- the same row
// the banks are timed with -- so a wrong index corrupts the kernel's output.
// A warp's R1 (its stack pointer) is copied into its row before its first
// instruction. Predicates stay per warp. Machine programs only.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/zero_pages.h"
#include "func/decode.h"
#include "func/stepper.h"
#include "sm/opcoll/bank_map.h"

namespace rfsim::sm {

// What a mechanism sees of the register file (Sm::registerRows): its rows,
// for a mechanism whose hardware keeps state of its own in the register file
// (saved frame pointers, computed register values).
class RegisterRows {
 public:
  // Rows in the file; 0: registers are held by name in the functional warps.
  uint32_t count() const { return rows_; }
  // Row `row` (32 lanes). Throws rfsim::Error for a row outside the file.
  uint64_t* row(uint32_t row) {
    if (row >= rows_) outside(row);
    return data_.data() + size_t{row} * 32;
  }

 protected:
  [[noreturn]] void outside(uint32_t row) const;
  uint32_t rows_ = 0;
  ZeroPages data_;  // rows_ x 32 lanes, zeroed as the rows are first touched
};

// The Sm's part: the warps' register columns pointed at the rows an issuing
// instruction names, and back.
class PhysRegFile : public RegisterRows {
 public:
  PhysRegFile(const func::Program& program, uint32_t max_warps) : program_(program), max_warps_(max_warps) {}
  // `rows` rows; `t`: the installed translator (asked which registers are
  // views, RegTranslator::isView). Throws rfsim::Error for 0 rows.
  void configure(uint32_t rows, const RegTranslator& t);
  bool on() const { return rows_ != 0; }

  // At launch: warp `w`'s columns go through slot `slot`'s table.
  void bind(uint32_t slot, func::Warp& w);
  // At issue, before `d` of warp `local` of `st` in slot `slot` executes:
  // its registers' columns point at the rows `t` gives (bank-file reads into
  // rrows, writes into wrows, in the order of the registers the banks see).
  void map(uint32_t slot, func::BlockStepper& st, uint32_t local, const func::DInstr& d, uint32_t pc,
           RegTranslator& t, uint32_t* rrows, uint32_t* wrows);
  // After it executed with `active` lanes (the instruction map() was last
  // called with): a view register's latch goes back
  // (RegTranslator::scatter), the columns back at the poison column.
  void unmap(uint32_t slot, const func::DInstr& d, uint32_t active, RegTranslator& t);
  // The slot holds a new warp: its stack pointer is copied again.
  void launched(uint32_t slot) { sp_copied_[slot] = false; }

 private:
  uint32_t translateChecked(uint32_t slot, const func::BlockStepper& st, uint32_t local, RegTranslator& t,
                            uint32_t reg, uint32_t pc);
  // The error of a translation that failed (`what`) or named a row outside
  // the file, with where it happened.
  [[noreturn]] void translateFailed(uint32_t slot, const func::BlockStepper& st, uint32_t local, uint32_t reg,
                                    uint32_t row, uint32_t pc, const char* what) const;
  // A view register's lanes, gathered once per instruction (map).
  uint64_t* latch(uint32_t slot, RegTranslator& t, uint16_t reg, uint32_t row, const func::DInstr& d, uint32_t pc);

  const func::Program& program_;
  uint32_t max_warps_;
  std::vector<std::vector<uint64_t*>> rowtab_;  // per warp slot: func::Warp::rows
  std::vector<bool> sp_copied_;                 // per warp slot: R1 was copied into its row
  std::array<uint64_t, 32> poison_{};           // where a register not translated this issue points
  // Registers the translator serves as views (RegTranslator::isView), and
  // the lanes of those the issuing instruction names: (register, row).
  std::vector<bool> view_;
  bool any_view_ = false;
  std::array<std::array<uint64_t, 32>, 16> latch_{};
  std::array<std::pair<uint16_t, uint32_t>, 16> latched_{};
  unsigned nlatched_ = 0;
  // The column entries map() pointed at rows, which unmap() points back at
  // the poison column.
  std::array<uint64_t**, 40> mapped_{};
  unsigned nmapped_ = 0;
};

}  // namespace rfsim::sm
