#include "ptx/analysis/shared_layout.h"

#include <algorithm>

namespace rfsim::ptx {
namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

bool isShared(const Symbol& s) { return s.space == Space::Shared && !s.is_function; }
bool isDynamic(const Symbol& s) { return s.is_extern || s.size == 0; }

}  // namespace

uint64_t symbolAlignment(const Symbol& s) {
  if (s.align) return s.align;
  const unsigned bytes = typeBits(s.type) / 8;
  return bytes ? bytes : 1;
}

SharedLayout layoutShared(const Module& m, const CallGraph& cg) {
  const size_t nsym = m.symbols.size(), nfn = m.functions.size();
  // The shared variables each function names: its own declarations and the
  // operands of its instructions.
  std::vector<std::vector<uint32_t>> names(nfn);
  for (uint32_t s = 0; s < nsym; ++s)
    if (isShared(m.symbols[s]) && m.symbols[s].owner >= 0 && static_cast<size_t>(m.symbols[s].owner) < nfn)
      names[static_cast<size_t>(m.symbols[s].owner)].push_back(s);
  for (uint32_t f = 0; f < nfn; ++f)
    for (const auto& bb : m.functions[f].blocks)
      for (const auto& in : bb.instrs)
        for (uint8_t k = 0; k < in.nsrc; ++k)
          if (in.src[k].sym < nsym && isShared(m.symbols[in.src[k].sym])) names[f].push_back(in.src[k].sym);
  // Which kernels reach each variable.
  std::vector<uint32_t> kernels;
  for (uint32_t f = 0; f < nfn; ++f)
    if (m.functions[f].is_entry) kernels.push_back(f);
  std::vector<std::vector<bool>> reached_by(nsym);  // per symbol, per kernels[] position
  for (size_t ki = 0; ki < kernels.size(); ++ki) {
    const std::vector<bool> reach = reachable(cg, kernels[ki]);
    for (uint32_t f = 0; f < nfn; ++f)
      if (reach[f])
        for (uint32_t s : names[f]) {
          if (reached_by[s].empty()) reached_by[s].assign(kernels.size(), false);
          reached_by[s][ki] = true;
        }
  }
  auto together = [&](uint32_t a, uint32_t b) {
    if (reached_by[a].empty() || reached_by[b].empty()) return false;
    for (size_t ki = 0; ki < kernels.size(); ++ki)
      if (reached_by[a][ki] && reached_by[b][ki]) return true;
    return false;
  };

  SharedLayout out;
  out.offset.assign(nsym, 0);
  out.static_bytes.assign(nfn, 0);
  out.uses_dynamic.assign(nfn, false);
  std::vector<uint32_t> placed;
  std::vector<uint64_t> kernel_end(kernels.size(), 0);
  for (uint32_t s = 0; s < nsym; ++s) {
    const Symbol& sym = m.symbols[s];
    if (!isShared(sym) || isDynamic(sym) || reached_by[s].empty()) continue;
    uint64_t at = 0;
    for (uint32_t t : placed)
      if (together(s, t)) at = std::max(at, out.offset[t] + m.symbols[t].size);
    at = alignUp(at, symbolAlignment(sym));
    out.offset[s] = at;
    placed.push_back(s);
    for (size_t ki = 0; ki < kernels.size(); ++ki)
      if (reached_by[s][ki]) kernel_end[ki] = std::max(kernel_end[ki], at + sym.size);
  }
  for (size_t ki = 0; ki < kernels.size(); ++ki)
    out.static_bytes[kernels[ki]] = static_cast<uint32_t>(kernel_end[ki]);
  // Dynamic arrays: after the static variables of every kernel that reaches
  // one (16-byte aligned, as the window is).
  for (uint32_t s = 0; s < nsym; ++s) {
    const Symbol& sym = m.symbols[s];
    if (!isShared(sym) || !isDynamic(sym) || reached_by[s].empty()) continue;
    for (size_t ki = 0; ki < kernels.size(); ++ki)
      if (reached_by[s][ki]) {
        out.uses_dynamic[kernels[ki]] = true;
        out.dynamic_offset = std::max(out.dynamic_offset, alignUp(kernel_end[ki], 16));
      }
  }
  for (uint32_t s = 0; s < nsym; ++s)
    if (isShared(m.symbols[s]) && isDynamic(m.symbols[s])) out.offset[s] = out.dynamic_offset;
  return out;
}

}  // namespace rfsim::ptx
