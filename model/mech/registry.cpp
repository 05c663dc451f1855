#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "mech/mechanism.h"

namespace rfsim::mech {

namespace {
std::vector<MechanismInfo>& table() {
  static std::vector<MechanismInfo> t;
  return t;
}
}  // namespace

void add(MechanismInfo info) {
  if (find(info.name)) return;
  // Its ISA extensions (ptx/isa_ext.h) are named after it: checked before
  // anything is registered, so a refused mechanism leaves no trace.
  const auto own = [&](const std::string& n, const char* what) {
    if (n.rfind(info.name + ".", 0) != 0)
      throw Error(fmt::format("mechanism {}: {} '{}' must be named {}.<name>", info.name, what, n, info.name));
  };
  for (const auto& op : info.isa_ops) own(op.name, "instruction");
  for (const auto& f : info.control_fields) own(f.first, "control field");
  for (const auto& c : info.reg_classes) own(c.name, "register class");
  config::registerMechanismSection(info.section);
  for (const auto& op : info.isa_ops) ptx::registerExtOp(op);
  for (const auto& [f, bits] : info.control_fields) ptx::registerControlField(f, bits);
  for (auto& c : info.reg_classes) c.first = ptx::registerExtRegClass(c);
  table().push_back(std::move(info));
}

const std::vector<MechanismInfo>& all() { return table(); }

const MechanismInfo* find(const std::string& name) {
  for (const auto& m : table())
    if (m.name == name) return &m;
  return nullptr;
}

std::string knownNames() {
  std::string s;
  for (const auto& m : table()) s += (s.empty() ? "" : ", ") + m.name;
  return s.empty() ? "none registered" : s;
}

std::vector<std::unique_ptr<Mechanism>> instantiate(const config::GpuConfig& cfg) {
  const std::vector<std::string> names = cfg.mechanisms.enabledList();
  std::vector<const MechanismInfo*> infos;
  for (const auto& n : names) {
    const MechanismInfo* m = find(n);
    if (!m) throw Error(fmt::format("mechanism '{}': no such mechanism (known: {})", n, knownNames()));
    if (std::find(infos.begin(), infos.end(), m) != infos.end())
      throw Error(fmt::format("mechanism '{}' is named twice in mechanisms.enabled / --mech", n));
    infos.push_back(m);
  }
  for (const MechanismInfo* a : infos)
    for (const auto& [other, why] : a->conflicts)
      for (const MechanismInfo* b : infos)
        if (b->name == other)
          throw Error(fmt::format("mechanisms '{}' and '{}' cannot be combined: {}", a->name, b->name, why));
  // A mechanism composing after another goes after it, whatever the order
  // given (stable otherwise: the given order decides who chooses first).
  for (size_t i = 0; i < infos.size(); ++i)
    for (size_t j = i + 1; j < infos.size(); ++j)
      if (composesAfter(infos[i]->name, infos[j]->name)) {
        const MechanismInfo* m = infos[j];
        infos.erase(infos.begin() + static_cast<std::ptrdiff_t>(j));
        infos.insert(infos.begin() + static_cast<std::ptrdiff_t>(i), m);
        j = i;
      }
  std::vector<std::unique_ptr<Mechanism>> out;
  for (const MechanismInfo* m : infos) out.push_back(m->make(cfg));
  return out;
}

bool composesAfter(const std::string& later, const std::string& earlier) {
  const MechanismInfo* m = find(later);
  if (!m) return false;
  for (const auto& [name, how] : m->composes_after)
    if (name == earlier) return true;
  return false;
}

std::vector<backend::Variant> variantsOf(const std::vector<Mechanism*>& mechanisms) {
  std::vector<backend::Variant> out;
  std::vector<std::vector<backend::Variant>> own;
  for (const Mechanism* m : mechanisms) {
    own.push_back(m->variants());
    for (const auto& v : own.back()) out.push_back(v);
  }
  for (size_t i = 0; i < mechanisms.size(); ++i)
    for (size_t j = i + 1; j < mechanisms.size(); ++j) {
      if (!composesAfter(mechanisms[j]->name(), mechanisms[i]->name())) continue;
      for (const backend::Variant& a : own[i])
        for (const backend::Variant& b : own[j]) {
          backend::Variant c;
          c.name = a.name + "+" + b.name;
          c.description = a.description + "; then " + b.description;
          c.pre = a.pre;
          c.pre.insert(c.pre.end(), b.pre.begin(), b.pre.end());
          c.post = a.post;
          c.post.insert(c.post.end(), b.post.begin(), b.post.end());
          if (a.reg_limit && b.reg_limit)
            c.reg_limit = [ra = a.reg_limit, rb = b.reg_limit](const ptx::Function& fn, uint32_t regs) {
              const uint32_t x = ra(fn, regs), y = rb(fn, regs);
              return x && y ? std::min(x, y) : std::max(x, y);
            };
          else
            c.reg_limit = a.reg_limit ? a.reg_limit : b.reg_limit;
          out.push_back(std::move(c));
        }
    }
  return out;
}

VariantTable variantsAfter(const std::string& chosen, const VariantTable& compiled) {
  if (chosen.empty()) return compiled;
  VariantTable view = compiled;
  for (auto& [name, code] : view) {
    const std::string n = variantName(chosen, name, compiled);
    if (!n.empty()) code = compiled.at(n);
  }
  return view;
}

std::string variantName(const std::string& chosen, const std::string& own, const VariantTable& compiled) {
  if (chosen.empty()) return own;
  if (own == "base") return chosen;  // no code of its own: the earlier choice's
  const std::string c = chosen + "+" + own;
  return compiled.count(c) ? c : std::string();
}

void select(config::GpuConfig& cfg, const std::string& mech_option) {
  config::GpuConfig c = cfg;
  c.mechanisms.enabled = (mech_option == "none" || mech_option == "base") ? "" : mech_option;
  for (const auto& n : c.mechanisms.enabledList())
    if (!find(n)) throw Error(fmt::format("--mech: no mechanism named '{}' (known: {})", n, knownNames()));
  cfg.mechanisms.enabled = c.mechanisms.enabled;
}

std::string optionKey(const CommandOption& o) {
  std::string n = o.names.substr(o.names.rfind(',') + 1);
  return n.substr(std::min(n.find_first_not_of('-'), n.size()));
}

std::function<std::vector<sm::UnitInfo>(uint32_t)> smUnitsOf(const std::vector<Mechanism*>& mechanisms) {
  if (mechanisms.empty()) return {};
  return [mechanisms](uint32_t sm_id) {
    std::vector<sm::UnitInfo> units;
    for (const Mechanism* m : mechanisms)
      for (sm::UnitInfo& u : m->smUnits(sm_id)) units.push_back(std::move(u));
    return units;
  };
}

}  // namespace rfsim::mech
