#include "backend/ptxas_report.h"

#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::backend {

const PtxasFunction* PtxasReport::find(const std::string& name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

// ptxas's own, stable phrasing (CUDA 11-13): the report is a tool's output,
// so it is read by pattern, line by line.
const std::regex kProperties(R"(Function properties for (\S+))");
const std::regex kFrame(R"(^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
const std::regex kCompilingEntry(R"(Compiling entry function '([^']+)')");
const std::regex kUsed(R"(Used (\d+) registers(?:, used (\d+) barriers)?)");
const std::regex kCumulative(R"((\d+) bytes cumulative stack size)");
const std::regex kSmem(R"((\d+) bytes smem)");

uint32_t num(const std::string& s, const std::string& file, size_t line) {
  try {
    return static_cast<uint32_t>(std::stoul(s));
  } catch (const std::exception&) {
    throw Error(fmt::format("{}:{}: number '{}' out of range", file, line, s));
  }
}

}  // namespace

PtxasReport parsePtxasReport(const std::string& text, const std::string& file) {
  PtxasReport r;
  r.file = file;
  std::istringstream in(text);
  std::string line;
  size_t lineno = 0;
  PtxasFunction* last = nullptr;   // the function whose "properties" came last
  PtxasFunction* entry = nullptr;  // the entry being compiled
  auto get = [&](const std::string& name) -> PtxasFunction* {
    for (auto& f : r.functions)
      if (f.name == name) return &f;
    r.functions.push_back(PtxasFunction{});
    r.functions.back().name = name;
    return &r.functions.back();
  };
  std::smatch m;
  while (std::getline(in, line)) {
    ++lineno;
    if (lineno == 1 && line.rfind("# ", 0) == 0) {
      r.command = line.substr(2);
      continue;
    }
    if (std::regex_search(line, m, kCompilingEntry)) {
      entry = get(m[1]);
      entry->entry = true;
    } else if (std::regex_search(line, m, kProperties)) {
      last = get(m[1]);
    } else if (std::regex_search(line, m, kFrame)) {
      if (!last) throw Error(fmt::format("{}:{}: stack-frame line before any 'Function properties'", file, lineno));
      last->stack_frame = num(m[1], file, lineno);
      last->spill_stores = num(m[2], file, lineno);
      last->spill_loads = num(m[3], file, lineno);
    } else if (std::regex_search(line, m, kUsed)) {
      // "Used N registers" belongs to the entry being compiled, or (without
      // an entry, as for -rdc device functions on some versions) to the
      // function whose properties came last.
      PtxasFunction* f = entry ? entry : last;
      if (!f) throw Error(fmt::format("{}:{}: 'Used N registers' before any function", file, lineno));
      f->registers = static_cast<int32_t>(num(m[1], file, lineno));
      if (m[2].matched) f->barriers = num(m[2], file, lineno);
      std::smatch x;
      if (std::regex_search(line, x, kCumulative)) f->cumulative_stack = num(x[1], file, lineno);
      if (std::regex_search(line, x, kSmem)) f->shared = num(x[1], file, lineno);
      entry = nullptr;
    }
  }
  return r;
}

PtxasReport readPtxasReport(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(fmt::format("{}: cannot open the ptxas report", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return parsePtxasReport(ss.str(), file.string());
}

}  // namespace rfsim::backend
