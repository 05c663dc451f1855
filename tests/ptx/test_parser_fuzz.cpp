#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ptx_test_util.h"

using namespace rfsim;
using namespace rfsim::ptx;

namespace {

// A small module exercising most constructs: variables with initialisers,
// declarations, a call sequence, an indirect call, vectors, guards, labels.
const char* const kSeed = R"PTX(.version 9.0
.target sm_75
.address_size 64
.func (.param .b32 func_retval0) f(.param .b32 f_param_0);
.extern .func free(.param .b64 free_param_0);
.global .align 8 .u64 vt[3] = {0, 0, f};
.const .align 4 .f32 c[2] = {0f3F800000, 2.5};
.extern .shared .align 16 .b8 sm[];
.func (.param .b32 func_retval0) f(.param .b32 f_param_0)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [f_param_0];
  st.param.b32 [func_retval0+0], %r1;
  ret;
}
.visible .entry k(.param .u64 k_param_0, .param .align 8 .b8 k_param_1[16])
.maxntid 128, 1, 1
{
  .local .align 8 .b8 __local_depot0[16];
  .reg .pred %p<3>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<9>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [k_param_0];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  setp.ge.s32 %p1|%p2, %r1, 32;
  @%p1 bra $L__BB1_2;
  ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2+16];
  fma.rn.f32 %f1, %f2, 0f40000000, %f3;
  shfl.sync.bfly.b32 %r2|%p2, %r1, 1, 31, -1;
  atom.global.cas.b32 %r3, [%rd2], %r1, %r2;
  mov.b64 %rd3, {%r1, %r2};
  { // callseq 0, 0
  .param .b32 param0;
  st.param.b32 [param0+0], %r1;
  .param .b32 retval0;
  call.uni (retval0), f, (param0);
  ld.param.b32 %r4, [retval0+0];
  }
  mov.u64 %rd4, f;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r4;
  .param .b32 retval0;
  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (retval0), %rd4, (param0), prototype_0;
  }
$L__BB1_2:
  @!%p2 st.global.v2.f32 [%rd2+-8], {%f1, %f2};
  bar.sync 0;
  ret;
}
)PTX";

struct Rng {  // xorshift64: deterministic across platforms
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};

// Whitespace-separated pieces with the separators kept, so that a mutation
// works on whole tokens most of the time.
std::vector<std::string> pieces(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    const bool space = std::isspace(static_cast<unsigned char>(s[i])) != 0;
    while (j < s.size() && (std::isspace(static_cast<unsigned char>(s[j])) != 0) == space) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string mutate(const std::vector<std::string>& base, Rng& rng) {
  std::vector<std::string> p = base;
  const int n = 1 + static_cast<int>(rng.below(3));
  static const char kChars[] = "{}[](),;:+-@!|<>=._%$0123456789abfxXrpUd\"/*\n \t#";
  for (int k = 0; k < n; ++k) {
    const size_t i = rng.below(p.size());
    switch (rng.below(6)) {
      case 0: p.erase(p.begin() + static_cast<long>(i)); break;                        // delete
      case 1: p.insert(p.begin() + static_cast<long>(i), p[rng.below(p.size())]); break;  // duplicate
      case 2: std::swap(p[i], p[rng.below(p.size())]); break;                          // swap
      default: {                                                                       // flip a character
        if (p[i].empty()) break;
        p[i][rng.below(p[i].size())] = kChars[rng.below(sizeof(kChars) - 1)];
        break;
      }
    }
    if (p.empty()) break;
  }
  std::string out;
  for (const auto& s : p) out += s;
  return out;
}

}  // namespace

TEST_CASE("parser: the fuzz seed module parses", "[ptx]") {
  const Module m = parseString(kSeed, "seed.ptx");
  CHECK(m.functions.size() == 3);
}

TEST_CASE("parser: mutated modules parse or throw rfsim::Error, nothing else", "[ptx]") {
  const auto base = pieces(kSeed);
  Rng rng{0x9E3779B97F4A7C15ull};
  int parsed = 0, refused = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3000; ++i) {
    const std::string text = mutate(base, rng);
    try {
      parseString(text, "fuzz.ptx");
      ++parsed;
    } catch (const Error& e) {
      ++refused;
      const std::string msg = e.what();
      // Every message starts with file:line:col.
      if (msg.rfind("fuzz.ptx:", 0) != 0) FAIL_CHECK("message without a location: " << msg << "\n" << text);
    } catch (const std::exception& e) {
      FAIL("non-rfsim exception '" << e.what() << "' for:\n" << text);
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("parsed " << parsed << ", refused " << refused << " in " << secs << " s");
  CHECK(parsed + refused == 3000);
  CHECK(refused > 1000);  // most mutations break something
  CHECK(parsed > 10);     // and some survive (a swapped register, a deleted comment...)
}
