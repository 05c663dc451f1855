#include "config/mechanisms_config.h"

#include <algorithm>
#include <sstream>

namespace rfsim::config {

namespace {
std::vector<SectionType>& table() {
  static std::vector<SectionType> t;
  return t;
}
}  // namespace

const std::vector<SectionType>& mechanismSectionTypes() { return table(); }

void registerMechanismSection(SectionType t) {
  auto& tb = table();
  if (std::any_of(tb.begin(), tb.end(), [&](const SectionType& x) { return x.name == t.name; })) return;
  tb.push_back(std::move(t));
}

std::vector<std::string> MechanismsConfig::enabledList() const {
  std::vector<std::string> out;
  std::stringstream ss(enabled);
  for (std::string part; std::getline(ss, part, ',');) {
    const auto b = part.find_first_not_of(" \t");
    const auto e = part.find_last_not_of(" \t");
    if (b == std::string::npos) continue;
    out.push_back(part.substr(b, e - b + 1));
  }
  return out;
}

bool MechanismsConfig::isEnabled(const std::string& name) const {
  const auto l = enabledList();
  return std::find(l.begin(), l.end(), name) != l.end();
}

std::vector<std::string> MechanismsConfig::keysOfDisabled() const {
  std::vector<std::string> out;
  for (const auto& k : given) {
    // "mechanisms.<name>.<key>"
    const auto a = k.find('.');
    const auto b = k.find('.', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    if (!isEnabled(k.substr(a + 1, b - a - 1))) out.push_back(k);
  }
  return out;
}

}  // namespace rfsim::config
