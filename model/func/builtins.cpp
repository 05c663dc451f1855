// The device runtime's extern functions that PTX calls without a body:
// malloc/free (a device heap of Limits::device_heap_bytes, each block its own
// global allocation, so heap overruns are caught like any other) and vprintf
// (formats on the host and writes to Program's print stream, lane by lane).
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ostream>

#include <fmt/format.h>

#include "common/error.h"
#include "func/executor.h"

namespace rfsim::func {

void BlockExecutor::execBuiltin(Warp& w, const DInstr& d, Builtin b, uint32_t act) {
  const uint32_t base = w.frames.back().stack_base;
  const size_t want = b == Builtin::Vprintf ? 2 : 1;
  // Machine programs: parameters and results in registers (mach::layoutParams).
  const DFunction* callee = nullptr;
  if (machine_) {
    for (const DFunction& f : funcs_)
      if (f.builtin == b) callee = &f;
    if (!callee || callee->mach_params.size() < want)
      fail(w, d, __builtin_ctz(act), "call of a built-in whose parameters are not in registers");
    for (size_t i = 0; i < want; ++i)
      if (!callee->mach_params[i].in_regs || callee->mach_params[i].nregs > 2)
        fail(w, d, __builtin_ctz(act), "call of a built-in whose parameters are not in registers");
  }
  auto arg = [&](uint32_t lane, size_t i) {
    uint64_t v = 0;
    if (callee) {
      const ptx::mach::ParamLoc& p = callee->mach_params[i];
      for (uint32_t k = 0; k < p.nregs; ++k) v |= (w.reg(p.first_reg + k)[lane] & 0xffffffffu) << (32 * k);
      return v;
    }
    if (i < d.arg_off.size()) std::memcpy(&v, w.lanes(lane) + base + d.arg_off[i], 8);
    return v;
  };
  auto ret = [&](uint32_t lane, uint64_t v, uint32_t bytes) {
    if (callee) {
      if (callee->mach_rets.empty() || !callee->mach_rets[0].in_regs) return;
      const ptx::mach::ParamLoc& p = callee->mach_rets[0];
      for (uint32_t k = 0; k < p.nregs && k < 2; ++k) {
        const uint32_t r = p.first_reg + k;
        if (r != ptx::mach::kRZ) w.reg(r)[lane] = k * 4 < bytes ? (v >> (32 * k)) & 0xffffffffu : 0;
      }
      return;
    }
    if (!d.ret_off.empty()) std::memcpy(w.lanes(lane) + base + d.ret_off[0], &v, bytes);
  };
  if (!machine_ && d.arg_off.size() < want)
    fail(w, d, __builtin_ctz(act), fmt::format("call of a built-in with {} arguments, {} expected", d.arg_off.size(), want));
  for (uint32_t m = act; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    switch (b) {
      case Builtin::Malloc: {
        const uint64_t n = arg(l, 0);
        uint64_t p = 0;
        if (n && mem_.liveBytes(AllocKind::Heap) + n <= prog_.limits().device_heap_bytes)
          p = mem_.allocate(n, AllocKind::Heap, "device malloc");
        ret(l, p, 8);
        break;
      }
      case Builtin::Free: {
        const uint64_t p = arg(l, 0);
        if (!p) break;
        try {
          mem_.release(p, AllocKind::Heap);
        } catch (const Error& e) {
          fail(w, d, l, e.what());
        }
        break;
      }
      case Builtin::Vprintf: {
        const std::string s = format(w, d, l, arg(l, 0), arg(l, 1));
        prog_.printStream() << s;
        ret(l, s.size(), 4);
        break;
      }
      case Builtin::None: break;
    }
  }
  prog_.printStream().flush();
}

// printf conversions as CUDA's vprintf packs them: each argument at its
// natural alignment, float promoted to double, pointers and %s 8 bytes.
std::string BlockExecutor::format(Warp& w, const DInstr& d, uint32_t lane, uint64_t fmt_addr, uint64_t args) {
  auto byteAt = [&](uint64_t a) {
    uint8_t c = 0;
    readGeneric(w, d, lane, a, &c, 1);
    return static_cast<char>(c);
  };
  auto cstr = [&](uint64_t a) {
    std::string s;
    if (!a) return std::string("(null)");
    for (char c; s.size() < 65536 && (c = byteAt(a + s.size())) != 0;) s += c;
    return s;
  };
  const std::string f = cstr(fmt_addr);
  std::string out;
  uint64_t off = 0;
  auto next = [&](uint32_t bytes) {
    off = (off + bytes - 1) / bytes * bytes;
    uint64_t v = 0;
    readGeneric(w, d, lane, args + off, &v, bytes);
    off += bytes;
    return v;
  };
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out += f[i];
      continue;
    }
    size_t j = i + 1;
    if (j < f.size() && f[j] == '%') {
      out += '%';
      i = j;
      continue;
    }
    std::string spec = "%";
    while (j < f.size() && std::strchr("-+ #0", f[j])) spec += f[j++];
    while (j < f.size() && (std::isdigit(static_cast<unsigned char>(f[j])) || f[j] == '.')) spec += f[j++];
    bool wide = false;
    while (j < f.size() && std::strchr("hlLqjzt", f[j])) {
      if (f[j] != 'h') wide = true;
      ++j;
    }
    if (j >= f.size()) {
      out += spec;
      break;
    }
    const char conv = f[j];
    char buf[512];
    switch (conv) {
      case 'd': case 'i':
        spec += "lld";
        std::snprintf(buf, sizeof buf, spec.c_str(),
                      wide ? static_cast<long long>(next(8)) : static_cast<long long>(static_cast<int32_t>(next(4))));
        break;
      case 'u': case 'x': case 'X': case 'o': case 'c':
        spec += conv == 'c' ? "c" : std::string("ll") + conv;
        if (conv == 'c') std::snprintf(buf, sizeof buf, spec.c_str(), static_cast<int>(next(4)));
        else std::snprintf(buf, sizeof buf, spec.c_str(),
                           static_cast<unsigned long long>(wide ? next(8) : static_cast<uint32_t>(next(4))));
        break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        const uint64_t bits = next(8);
        double v;
        std::memcpy(&v, &bits, 8);
        spec += conv;
        std::snprintf(buf, sizeof buf, spec.c_str(), v);
        break;
      }
      case 's': {
        spec += 's';
        const std::string s = cstr(next(8));
        std::snprintf(buf, sizeof buf, spec.c_str(), s.c_str());
        break;
      }
      case 'p':
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(next(8)));
        break;
      default:
        fail(w, d, static_cast<int>(lane), fmt::format("vprintf: unsupported conversion '%{}'", conv));
    }
    out += buf;
    i = j;
  }
  return out;
}

}  // namespace rfsim::func
