#include "runtime/fatbin.h"

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/error.h"

namespace rfsim::rt {
namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr size_t kEntryMinHeader = 64;

std::string decompress(const FatbinEntry& e, const uint8_t* p, uint64_t stored, uint64_t compressed, uint64_t plain,
                       const std::string& where) {
  if (e.compression == "none") return std::string(reinterpret_cast<const char*>(p), stored);
  if (compressed == 0 || compressed > stored)
    throw Error(
        fmt::format("{}: {} entry of {} bytes says {} compressed bytes", where, e.compression, stored, compressed));
  std::string out(plain, '\0');
  if (e.compression == "zstd") {
    const size_t n = ZSTD_decompress(out.data(), out.size(), p, compressed);
    if (ZSTD_isError(n)) throw Error(fmt::format("{}: zstd: {}", where, ZSTD_getErrorName(n)));
    out.resize(n);
  } else {
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(p), out.data(), static_cast<int>(compressed),
                                      static_cast<int>(out.size()));
    if (n < 0) throw Error(fmt::format("{}: LZ4 data is corrupt", where));
    out.resize(static_cast<size_t>(n));
  }
  if (out.size() != plain)
    throw Error(fmt::format("{}: decompressed to {} bytes, the header says {}", where, out.size(), plain));
  return out;
}

}  // namespace

Fatbin parseFatbin(const void* data, size_t limit, const std::string& what) {
  const auto* base = static_cast<const uint8_t*>(data);
  if (!base) throw Error(what + ": null fatbin");
  if (limit < 16) throw Error(fmt::format("{}: truncated fatbin ({} bytes, the header alone is 16)", what, limit));
  if (load<uint32_t>(base) != kFatbinMagic)
    throw Error(fmt::format("{}: not a CUDA fatbin (magic {:#010x}, expected {:#010x})", what, load<uint32_t>(base),
                            kFatbinMagic));
  const uint16_t header = load<uint16_t>(base + 6);
  const uint64_t body = load<uint64_t>(base + 8);
  if (header < 16 || header + body > limit)
    throw Error(
        fmt::format("{}: truncated fatbin: header says {} + {} bytes, {} available", what, header, body, limit));
  Fatbin fb;
  fb.size = header + body;
  size_t off = header;
  while (off < fb.size) {
    const std::string where = fmt::format("{}: fatbin entry {} at byte {}", what, fb.entries.size(), off);
    if (fb.size - off < kEntryMinHeader) throw Error(where + ": truncated entry header");
    const uint8_t* e = base + off;
    FatbinEntry ent;
    ent.offset = off;
    const uint16_t kind = load<uint16_t>(e);
    const uint32_t ehead = load<uint32_t>(e + 4);
    const uint64_t stored = load<uint64_t>(e + 8);
    const uint32_t compressed = load<uint32_t>(e + 16);
    const uint16_t minor = load<uint16_t>(e + 24), major = load<uint16_t>(e + 26);
    ent.arch = load<uint32_t>(e + 28);
    ent.flags = load<uint64_t>(e + 40);
    const uint64_t plain = load<uint64_t>(e + 56);
    if (ehead < kEntryMinHeader || ehead > fb.size - off || stored > fb.size - off - ehead)
      throw Error(fmt::format("{}: truncated entry ({} header + {} payload bytes, {} left in the fatbin)", where, ehead,
                              stored, fb.size - off));
    if (kind != 1 && kind != 2) {
      off += ehead + stored;  // a kind this model does not run (e.g. LTO IR)
      continue;
    }
    ent.kind = static_cast<FatbinKind>(kind);
    ent.ptx_version = major * 10u + minor;
    if ((ent.flags & kFlagZstd) && (ent.flags & kFlagLz4))
      throw Error(fmt::format("{}: flags {:#x} name two compressions", where, ent.flags));
    ent.compression = ent.flags & kFlagZstd ? "zstd" : ent.flags & kFlagLz4 ? "lz4" : "none";
    // Only the PTX is read; an ELF entry's payload is kept compressed aside.
    if (ent.kind == FatbinKind::Ptx) {
      ent.payload = decompress(ent, e + ehead, stored, compressed, plain, where);
      while (!ent.payload.empty() && ent.payload.back() == '\0') ent.payload.pop_back();
    }
    fb.entries.push_back(std::move(ent));
    off += ehead + stored;
  }
  return fb;
}

const FatbinEntry* Fatbin::choosePtx() const {
  const FatbinEntry* best = nullptr;
  for (const FatbinEntry& e : entries) {
    if (e.kind != FatbinKind::Ptx) continue;
    auto rank = [](const FatbinEntry& x) {
      return std::make_pair(x.ptx_version <= kMaxPtxVersion ? x.ptx_version : 0u, x.arch);
    };
    if (!best || rank(e) > rank(*best)) best = &e;
  }
  return best;
}

std::string Fatbin::elfArchs() const {
  std::string s;
  for (const FatbinEntry& e : entries)
    if (e.kind == FatbinKind::Elf) s += fmt::format("{}sm_{}", s.empty() ? "" : ", ", e.arch);
  return s;
}

std::vector<Fatbin> parseFatbinWrapper(const void* wrapper, const std::string& what) {
  if (!wrapper) throw Error(what + ": null fatbin wrapper");
  const auto* w = static_cast<const uint8_t*>(wrapper);
  const uint32_t magic = load<uint32_t>(w), version = load<uint32_t>(w + 4);
  if (magic != kFatbinWrapperMagic)
    throw Error(fmt::format("{}: not a CUDA fatbin wrapper (magic {:#010x}, expected {:#010x})", what, magic,
                            kFatbinWrapperMagic));
  if (version != 1 && version != 2)
    throw Error(fmt::format("{}: fatbin wrapper version {} (this runtime reads 1 and 2)", what, version));
  std::vector<Fatbin> out;
  // The header states the size; the section is mapped, so reading the
  // header first and then that many bytes stays inside it.
  auto one = [&](const void* p, const std::string& name) {
    const auto* b = static_cast<const uint8_t*>(p);
    if (!b) return;
    const size_t size = load<uint32_t>(b) == kFatbinMagic ? load<uint16_t>(b + 6) + load<uint64_t>(b + 8) : 16;
    out.push_back(parseFatbin(p, size, name));
  };
  one(load<const void*>(w + 8), what);
  if (version == 2) {
    // Relocatable device code (-rdc=true): the pre-linked fatbins, one per
    // translation unit, each with its own PTX.
    const auto* list = load<const void* const*>(w + 16);
    for (size_t i = 0; list && list[i]; ++i) one(list[i], fmt::format("{} (pre-linked fatbin {})", what, i));
  }
  return out;
}

std::vector<std::string> ptxModules(const std::vector<Fatbin>& fatbins, const std::string& what) {
  std::vector<std::string> mods;
  std::string sass;
  uint32_t newest = 0;
  for (const Fatbin& fb : fatbins) {
    if (const FatbinEntry* e = fb.choosePtx()) {
      if (e->ptx_version > kMaxPtxVersion)
        newest = std::max(newest, e->ptx_version);
      else
        mods.push_back(e->payload);
    } else if (!fb.elfArchs().empty()) {
      sass += (sass.empty() ? "" : ", ") + fb.elfArchs();
    }
  }
  if (mods.empty() && newest)
    throw Error(fmt::format(
        "{}: the executable's PTX is ISA {}.{}, newer than the {}.{} this model reads; build it with CUDA 13.0's nvcc",
        what, newest / 10, newest % 10, kMaxPtxVersion / 10, kMaxPtxVersion % 10));
  if (mods.empty() && !sass.empty())
    throw Error(fmt::format(
        "{}: the executable holds only SASS ({}), which this model cannot run: rebuild it with PTX, e.g. nvcc -gencode arch=compute_75,code=compute_75 (or add -gencode arch=compute_XX,code=compute_XX for the arch you build for)",
        what, sass));
  return mods;
}

namespace {

// The names a PTX text defines at module scope, read off the declaration
// lines without parsing the module: kernels and functions (`.visible .entry
// k(`, `.visible .entry _Z4initv()` for a kernel without parameters,
// `.visible .func (.param .b32 r) name(`, `.weak .func f()`) and variables
// (`.visible .global .b32 g[4];`, `.global .align 4 .b8 data[256];`,
// `.const .f32 c = 1.0;`).
std::vector<std::string> definedNames(const std::string& text) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  std::vector<std::string> names;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    line = line.substr(first);
    static const char* const starts[] = {".visible", ".entry", ".weak", ".func", ".global", ".const"};
    if (std::none_of(std::begin(starts), std::end(starts), [&](const char* d) { return line.rfind(d, 0) == 0; }))
      continue;
    const size_t fn = line.find_first_of("(");
    const bool function = line.find(".entry") < fn || line.find(".func") < fn;
    if (function) {
      // After the directive: an optional return-parameter list, then the name.
      size_t i = line.find(line.find(".entry") < fn ? ".entry" : ".func");
      i = line.find_first_of(" \t(", i);
      if (i == std::string::npos) continue;
      i = line.find_first_not_of(" \t", i);
      if (i != std::string::npos && line[i] == '(') {
        i = line.find(')', i);
        if (i == std::string::npos) continue;
        i = line.find_first_not_of(" \t", i + 1);
      }
      if (i == std::string::npos) continue;
      size_t j = i;
      while (j < line.size() && ident(line[j])) ++j;
      if (j > i) names.push_back(line.substr(i, j - i));
      continue;
    }
    // A variable: the last word before its array bounds, initializer or `;`.
    const size_t cut = line.find_first_of("[=;");
    if (cut != std::string::npos) line.erase(cut);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    const size_t sp = line.find_last_of(" \t");
    const std::string name = line.substr(sp == std::string::npos ? 0 : sp + 1);
    if (!name.empty() && name[0] != '.') names.push_back(name);
  }
  return names;
}

bool mentions(const std::string& text, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  for (size_t p = text.find(name); p != std::string::npos; p = text.find(name, p + 1)) {
    const bool left = p == 0 || !ident(text[p - 1]);
    const bool right = p + name.size() >= text.size() || !ident(text[p + name.size()]);
    if (left && right) return true;
  }
  return false;
}

}  // namespace

bool isDeviceRuntime(const std::string& module) { return module.find("_cuda_device_runtime_cu_") != std::string::npos; }

std::vector<size_t> linkedModules(const std::vector<std::string>& modules, const std::vector<std::string>& roots) {
  std::vector<std::vector<std::string>> defs;
  for (const std::string& m : modules) defs.push_back(definedNames(m));
  std::vector<bool> kept(modules.size(), false);
  for (size_t i = 0; i < modules.size(); ++i)
    if (!isDeviceRuntime(modules[i]))
      for (const std::string& d : defs[i])
        if (std::find(roots.begin(), roots.end(), d) != roots.end()) kept[i] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < modules.size(); ++i) {
      if (kept[i]) continue;
      for (size_t k = 0; k < modules.size() && !kept[i]; ++k)
        if (kept[k])
          for (const std::string& d : defs[i])
            if (mentions(modules[k], d)) {
              kept[i] = changed = true;
              break;
            }
    }
  }
  std::vector<size_t> out;
  for (size_t i = 0; i < modules.size(); ++i)
    if (kept[i]) out.push_back(i);
  return out;
}

}  // namespace rfsim::rt
