#include "cost/vcd_toggles.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cost {

namespace {

// `$var type width code name [range] $end`, the keyword already read; the
// name without the backslash of an escaped identifier.
struct VarDecl {
  unsigned width = 0;
  std::string code, name, range;
};
VarDecl readVar(std::istringstream& ss) {
  VarDecl d;
  std::string type;
  ss >> type >> d.width >> d.code >> d.name >> d.range;
  if (d.range == "$end") d.range.clear();
  if (!d.name.empty() && d.name[0] == '\\') d.name.erase(0, 1);
  return d;
}

struct Var {
  std::vector<std::vector<BitToggles>*> bits;  // index 0 = least significant bit; one per alias set
  std::string value;                           // current value, most significant bit first
};

}  // namespace

VcdToggles countToggles(const std::filesystem::path& path, const std::vector<uint64_t>& bounds) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cost: cannot read {}", path.string()));
  if (bounds.size() < 2) throw Error("cost: countToggles needs at least one window");
  const size_t windows = bounds.size() - 1;
  VcdToggles out;
  std::unordered_map<std::string, Var> vars;  // by identifier code
  auto fail = [&](uint64_t line, const std::string& what) {
    throw Error(fmt::format("{}:{}: VCD: {}", path.string(), line, what));
  };

  std::string line;
  uint64_t lineno = 0;
  int depth = 0;
  bool header = true, dumpvars = false;
  uint64_t now = 0;
  long window = -1;  // -1: outside every window
  auto setValue = [&](Var& v, std::string nv, uint64_t ln) {
    const size_t w = v.bits.size();
    if (nv.size() < w) nv.insert(0, w - nv.size(), nv[0] == 'x' || nv[0] == 'z' ? nv[0] : '0');
    if (nv.size() > w) fail(ln, fmt::format("value of {} bits for a {}-bit variable", nv.size(), w));
    if (!dumpvars && window >= 0 && v.value.size() == w) {
      for (size_t i = 0; i < w; ++i) {
        const char a = v.value[w - 1 - i], b = nv[w - 1 - i];
        if (a == '0' && b == '1') ++(*v.bits[i])[static_cast<size_t>(window)].rises;
        if (a == '1' && b == '0') ++(*v.bits[i])[static_cast<size_t>(window)].falls;
      }
    }
    v.value = std::move(nv);
  };

  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    if (header) {
      std::istringstream ss(line);
      std::string kw;
      ss >> kw;
      if (kw == "$scope") {
        ++depth;
      } else if (kw == "$upscope") {
        --depth;
      } else if (kw == "$enddefinitions") {
        header = false;
      } else if (kw == "$var" && depth == 1) {
        VarDecl d = readVar(ss);
        if (d.width == 0 || d.code.empty() || d.name.empty()) fail(lineno, "malformed $var");
        int lsb = 0;
        if (!d.range.empty() && d.range[0] == '[') {
          const size_t colon = d.range.find(':');
          lsb = std::stoi(d.range.substr(colon == std::string::npos ? 1 : colon + 1));
          if (d.width == 1 && colon == std::string::npos) d.name += d.range;  // "bus [3]" -> "bus[3]"
        }
        Var& v = vars[d.code];
        if (!v.bits.empty() && v.bits.size() != d.width) fail(lineno, "an identifier code reused with another width");
        if (v.bits.empty()) v.bits.resize(d.width, nullptr);
        for (unsigned i = 0; i < d.width; ++i) {
          const std::string key = d.width == 1 ? d.name : fmt::format("{}[{}]", d.name, lsb + static_cast<int>(i));
          auto& slot = out.bits[key];
          if (slot.empty()) slot.resize(windows);
          if (!v.bits[i]) v.bits[i] = &slot;  // aliases of one code count once, under the first name
        }
      }
      continue;
    }
    const char c = line[0];
    if (c == '#') {
      now = std::stoull(line.substr(1));
      out.end_time = std::max(out.end_time, now);
      const auto it = std::upper_bound(bounds.begin(), bounds.end(), now);
      window = (it == bounds.begin() || it == bounds.end()) ? -1 : static_cast<long>(it - bounds.begin()) - 1;
    } else if (c == '$') {
      if (line.rfind("$dumpvars", 0) == 0) dumpvars = true;
      else if (line.rfind("$end", 0) == 0) dumpvars = false;
    } else if (c == 'b' || c == 'B') {
      const size_t sp = line.find(' ');
      if (sp == std::string::npos) fail(lineno, "vector change without an identifier");
      auto it = vars.find(line.substr(sp + 1));
      if (it != vars.end()) setValue(it->second, line.substr(1, sp - 1), lineno);
    } else if (c == '0' || c == '1' || c == 'x' || c == 'X' || c == 'z' || c == 'Z') {
      auto it = vars.find(line.substr(1));
      if (it != vars.end()) setValue(it->second, std::string(1, static_cast<char>(std::tolower(c))), lineno);
    } else if (c == 'r' || c == 'R') {
      // real values: not bits
    } else {
      fail(lineno, fmt::format("unexpected '{}'", line.substr(0, 20)));
    }
  }
  if (header) fail(lineno, "no $enddefinitions");
  return out;
}

void filterVcd(const std::filesystem::path& in_path, const std::filesystem::path& out_path,
               const std::vector<std::string>& keep) {
  std::ifstream in(in_path);
  if (!in) throw Error(fmt::format("cost: cannot read {}", in_path.string()));
  std::ofstream out(out_path);
  if (!out) throw Error(fmt::format("cost: cannot write {}", out_path.string()));
  const std::set<std::string> names(keep.begin(), keep.end());
  std::set<std::string> codes;
  std::string line;
  int depth = 0;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      std::istringstream ss(line);
      std::string kw;
      ss >> kw;
      if (kw == "$scope") {
        ++depth;
        if (depth > 1) continue;
      } else if (kw == "$upscope") {
        if (depth-- > 1) continue;
      } else if (kw == "$enddefinitions") {
        header = false;
      } else if (kw == "$var") {
        const VarDecl d = readVar(ss);
        if (depth != 1 || !names.count(d.name)) continue;
        codes.insert(d.code);
      } else if (depth > 1) {
        continue;
      }
      out << line << '\n';
      continue;
    }
    if (line.empty()) continue;
    const char c = line[0];
    if (c == '#' || c == '$') {
      out << line << '\n';
    } else if (c == 'b' || c == 'B' || c == 'r' || c == 'R') {
      const size_t sp = line.find(' ');
      if (sp != std::string::npos && codes.count(line.substr(sp + 1))) out << line << '\n';
    } else if (codes.count(line.substr(1))) {
      out << line << '\n';
    }
  }
  if (!out) throw Error(fmt::format("cost: cannot write {}", out_path.string()));
}

}  // namespace rfsim::cost
