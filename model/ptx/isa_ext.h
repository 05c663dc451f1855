// Extensions of the machine ISA that mechanisms add (docs/mechanisms.md,
// "ISA extensions"): instructions, and per-instruction control fields. A
// mechanism registers them once, from its MechanismInfo, before the first
// module is compiled; the front end, the back end's printer, the functional
// model, the SM timing model and the statistics then know them by their
// table entry -- nothing else names them, so a new one is one registration,
// not an enum entry in several places.
//
// - An extension instruction is `Op::Ext` with `Instr::ext` its id here: a
//   register stack's push and pop (Kang et al. §III-A), a working-set
//   prefetch whose 256-bit register set is four 64-bit immediates
//   (Sadrosadati et al. §3.1), .... Its operands are ordinary ones
//   (registers are read and written through the banks and the scoreboard
//   like any other instruction's). It changes no architectural value in
//   the functional model -- what it does is the mechanism's hardware's, seen
//   through the SM's hooks (an issue gate flags it, SmEventHook, ...); a
//   computation goes in ordinary instructions.
// - A register class is a set of registers outside R0..RZ and P0..P6 (the
//   thread-index %tr, block-index %br and coefficient %cr registers of Ha
//   et al. §4): a range of machine register ids (mach::kExtRegBase..), spelled
//   with the class's prefix ("TR3"). Operands name them like any register,
//   so the checker follows their values, the scoreboard and the banks see
//   them, and the functional model reads and writes them; the allocator
//   never chooses them and a launch does not count them. Where their values
//   live is the mechanism's: its register translator gives every one a row
//   of the register file (Ha et al. Fig. 11's physical-ID calculation, shared rows for
//   registers a block or an SM shares); without a translator each warp holds
//   its own, by name. A PTX-level pass pins a virtual register to one
//   (RegInfo::ext_reg) and the back end keeps it there.
// - A control field is a named bit field (up to 32 bits) of the 64-bit `Instr::ctrl` word,
//   e.g. Maxwell-style dependency barriers and stall counts (Sakdhnagool et
//   al. §2): `ControlField::get(in)` / `set(in, v)`. The printer shows the
//   non-zero fields after the instruction.
//
// The tables are type tables filled at program start (like the mechanism
// registry), identical in every simulation of the process; registering the
// same name again with the same description returns the same entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptx/ir.h"

namespace rfsim::ptx {

// Where the SM times an extension instruction.
enum class ExtTiming : uint8_t {
  Issue,  // an issue slot and the integer pipeline's latency, no memory (push, pop, prefetch request)
  Ldst,   // the LDST pipeline, as a constant-bank access (no trip to memory)
};

// What an extension instruction does to register names, for the back end's
// value-following checker (backend/check.h). A register stack's push gives
// the n registers R16..R16+n-1 (n: the first immediate operand) new,
// undefined names and keeps their values aside; its pop gives the last n
// pushed back (Kang et al. §III-A: push and pop move no data, they rename).
enum class ExtRegEffect : uint8_t { None, StackPush, StackPop };

struct ExtOpDesc {
  std::string name;      // "<mechanism>.<mnemonic>", unique: "<mechanism>.push"
  std::string mnemonic;  // how it is printed: "push"
  std::string summary;   // one line, for `rfsim mechanisms --isa`
  ExtTiming timing = ExtTiming::Issue;
  uint8_t max_src = 5;   // operands it may have (checked when made)
  ExtRegEffect reg_effect = ExtRegEffect::None;
};

// Registers an instruction; returns its id (>= 1). Throws rfsim::Error for
// a malformed name, or the same name registered with another description.
uint16_t registerExtOp(const ExtOpDesc& d);
// The description of id `id` (throws rfsim::Error for an unknown id).
const ExtOpDesc& extOp(uint16_t id);
// nullptr when no instruction of that name is registered.
const ExtOpDesc* findExtOp(const std::string& name, uint16_t* id = nullptr);
// Every registered instruction, in id order (id = index + 1).
const std::vector<ExtOpDesc>& extOps();
// An instruction of kind `id` with the given immediate sources (a
// prefetch's register set, a push's count).
Instr makeExtInstr(uint16_t id, const std::vector<uint64_t>& imms);

// A register class (docs/mechanisms.md, "ISA extensions").
struct ExtRegClassDesc {
  std::string name;     // "<mechanism>.<class>", unique: "<mechanism>.tr"
  std::string prefix;   // how its registers are spelled, upper case: "TR" -> TR0, TR1, ...
  std::string summary;  // one line, for `rfsim mechanisms`
  uint32_t count = 0;   // registers in the class (ids first .. first + count - 1)
  uint32_t first = 0;   // set by registerExtRegClass: the machine id of register 0
};

// Registers a class; returns the machine id of its register 0. Throws
// rfsim::Error for a malformed name or prefix, a prefix another class or
// the machine's own names (R, RZ, P) use, a name registered again with
// another description, or when the kNumExtRegs ids are used up.
uint32_t registerExtRegClass(const ExtRegClassDesc& d);
// The class machine register `id` belongs to; nullptr for none.
const ExtRegClassDesc* extRegClassOf(uint32_t id);
// nullptr when no class of that name is registered.
const ExtRegClassDesc* findExtRegClass(const std::string& name);
// Every registered class, in order.
const std::vector<ExtRegClassDesc>& extRegClasses();
// Register n of class `name` (throws when there is no such class or n is
// outside it).
uint32_t extReg(const std::string& name, uint32_t n);

// A named field of Instr::ctrl.
struct ControlField {
  std::string name;
  uint8_t offset = 0, bits = 0;
  uint32_t get(const Instr& in) const {
    return bits ? static_cast<uint32_t>((in.ctrl >> offset) & ((uint64_t{1} << bits) - 1u)) : 0;
  }
  // Throws rfsim::Error when `v` does not fit.
  void set(Instr& in, uint32_t v) const;
};

// Registers `bits` bits named `name` ("<mechanism>.<field>") in the control
// word; returns the field (the same one for the same name and width).
// Throws rfsim::Error when the word is full or the name is taken with
// another width.
ControlField registerControlField(const std::string& name, uint8_t bits);
const std::vector<ControlField>& controlFields();
// "{<mechanism>.stall=4 <mechanism>.wbar=2}" for the non-zero fields of `ctrl`; "".
std::string spellControl(uint64_t ctrl);

}  // namespace rfsim::ptx
