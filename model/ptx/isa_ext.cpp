#include "ptx/isa_ext.h"

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::ptx {

namespace {

// Type tables, filled at program start by the mechanisms' registrations.
std::vector<ExtOpDesc>& opTable() {
  static std::vector<ExtOpDesc> t;
  return t;
}
std::vector<ControlField>& fieldTable() {
  static std::vector<ControlField> t;
  return t;
}

std::vector<ExtRegClassDesc>& classTable() {
  static std::vector<ExtRegClassDesc> t;
  return t;
}

void checkName(const std::string& name, const char* what) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size())
    throw Error(fmt::format("ISA extension: {} name '{}' must be <mechanism>.<name>", what, name));
}

}  // namespace

uint16_t registerExtOp(const ExtOpDesc& d) {
  checkName(d.name, "instruction");
  if (d.mnemonic.empty()) throw Error(fmt::format("ISA extension: instruction '{}' has no mnemonic", d.name));
  if (d.max_src > 5) throw Error(fmt::format("ISA extension: instruction '{}': at most 5 operands", d.name));
  auto& t = opTable();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name == d.name) {
      if (t[i].mnemonic != d.mnemonic || t[i].timing != d.timing || t[i].max_src != d.max_src ||
          t[i].reg_effect != d.reg_effect)
        throw Error(fmt::format("ISA extension: instruction '{}' registered twice, differently", d.name));
      return static_cast<uint16_t>(i + 1);
    }
  if (t.size() >= 0xfffe) throw Error("ISA extension: too many instructions");
  t.push_back(d);
  return static_cast<uint16_t>(t.size());
}

const ExtOpDesc& extOp(uint16_t id) {
  const auto& t = opTable();
  if (id == 0 || id > t.size()) throw Error(fmt::format("ISA extension: no instruction with id {}", id));
  return t[id - 1];
}

const ExtOpDesc* findExtOp(const std::string& name, uint16_t* id) {
  const auto& t = opTable();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name == name) {
      if (id) *id = static_cast<uint16_t>(i + 1);
      return &t[i];
    }
  return nullptr;
}

const std::vector<ExtOpDesc>& extOps() { return opTable(); }

Instr makeExtInstr(uint16_t id, const std::vector<uint64_t>& imms) {
  const ExtOpDesc& d = extOp(id);
  if (imms.size() > d.max_src)
    throw Error(fmt::format("ISA extension: {} takes at most {} operands, given {}", d.name, d.max_src, imms.size()));
  Instr in;
  in.op = Op::Ext;
  in.ext = id;
  in.type = Type::B64;
  in.nsrc = static_cast<uint8_t>(imms.size());
  for (size_t i = 0; i < imms.size(); ++i) {
    in.src[i].kind = OperandKind::Imm;
    in.src[i].imm = static_cast<int64_t>(imms[i]);
  }
  return in;
}

uint32_t registerExtRegClass(const ExtRegClassDesc& d) {
  checkName(d.name, "register class");
  bool ok = !d.prefix.empty();
  for (char c : d.prefix) ok = ok && c >= 'A' && c <= 'Z';
  if (!ok) throw Error(fmt::format("ISA extension: register class '{}': prefix '{}' must be upper-case letters",
                                   d.name, d.prefix));
  if (d.prefix == "R" || d.prefix == "RZ" || d.prefix == "P")
    throw Error(fmt::format("ISA extension: register class '{}': prefix '{}' names the machine's own registers",
                            d.name, d.prefix));
  if (d.count == 0) throw Error(fmt::format("ISA extension: register class '{}' has no registers", d.name));
  auto& t = classTable();
  uint32_t next = mach::kExtRegBase;
  for (const ExtRegClassDesc& c : t) {
    if (c.name == d.name) {
      if (c.prefix != d.prefix || c.count != d.count)
        throw Error(fmt::format("ISA extension: register class '{}' registered twice, differently", d.name));
      return c.first;
    }
    if (c.prefix == d.prefix)
      throw Error(fmt::format("ISA extension: register class '{}': prefix '{}' is class '{}''s", d.name, d.prefix,
                              c.name));
    next = c.first + c.count;
  }
  if (next + d.count > mach::kNumRegIds)
    throw Error(fmt::format("ISA extension: register class '{}' asks {} registers, {} of the {} extension ids are "
                            "left",
                            d.name, d.count, mach::kNumRegIds - next, mach::kNumExtRegs));
  ExtRegClassDesc c = d;
  c.first = next;
  t.push_back(c);
  return c.first;
}

const ExtRegClassDesc* extRegClassOf(uint32_t id) {
  for (const ExtRegClassDesc& c : classTable())
    if (id >= c.first && id < c.first + c.count) return &c;
  return nullptr;
}

const ExtRegClassDesc* findExtRegClass(const std::string& name) {
  for (const ExtRegClassDesc& c : classTable())
    if (c.name == name) return &c;
  return nullptr;
}

const std::vector<ExtRegClassDesc>& extRegClasses() { return classTable(); }

uint32_t extReg(const std::string& name, uint32_t n) {
  const ExtRegClassDesc* c = findExtRegClass(name);
  if (!c) throw Error(fmt::format("ISA extension: no register class named '{}'", name));
  if (n >= c->count)
    throw Error(fmt::format("ISA extension: register class '{}' has {} registers, asked for number {}", name, c->count,
                            n));
  return c->first + n;
}

void ControlField::set(Instr& in, uint32_t v) const {
  const uint64_t mask = (uint64_t{1} << bits) - 1u;
  if (v & ~mask) throw Error(fmt::format("control field {}: value {} does not fit in {} bits", name, v, bits));
  in.ctrl = (in.ctrl & ~(mask << offset)) | (uint64_t{v} << offset);
}

ControlField registerControlField(const std::string& name, uint8_t bits) {
  checkName(name, "control field");
  if (bits == 0 || bits > 32) throw Error(fmt::format("control field {}: {} bits", name, bits));
  auto& t = fieldTable();
  uint32_t used = 0;
  for (const ControlField& f : t) {
    if (f.name == name) {
      if (f.bits != bits) throw Error(fmt::format("control field {} registered twice, differently", name));
      return f;
    }
    used = f.offset + f.bits;
  }
  if (used + bits > 64)
    throw Error(fmt::format("control field {}: the 64-bit control word has {} bits left, {} asked", name, 64 - used,
                            bits));
  ControlField f{name, static_cast<uint8_t>(used), bits};
  t.push_back(f);
  return f;
}

const std::vector<ControlField>& controlFields() { return fieldTable(); }

std::string spellControl(uint64_t ctrl) {
  if (!ctrl) return "";
  std::string s;
  Instr probe;
  probe.ctrl = ctrl;
  for (const ControlField& f : fieldTable())
    if (const uint32_t v = f.get(probe)) s += fmt::format("{}{}={}", s.empty() ? "" : " ", f.name, v);
  return "{" + s + "}";
}

}  // namespace rfsim::ptx
