// laneFunction(): the specialised lane functions agree with evalLane bit for
// bit, and the common forms do get a specialisation.
#include <vector>

#include "sem_helpers.h"

using namespace semtest;
using rfsim::func::evalLane;
using rfsim::func::LaneFn;
using rfsim::func::laneFunction;
using rfsim::func::WarpFn;
using rfsim::func::warpFunction;

namespace {

std::vector<Instr> candidates() {
  std::vector<Instr> v;
  const Type ints[] = {Type::B16, Type::B32, Type::B64, Type::U16, Type::U32, Type::U64,
                       Type::S16, Type::S32, Type::S64};
  for (Type t : ints) {
    for (Op op : {Op::And, Op::Or, Op::Xor, Op::Shl, Op::Shr}) v.push_back(mk(op, t, 2));
    if (t >= Type::U8) {  // add/sub have no .b types
      v.push_back(mk(Op::Add, t, 2));
      v.push_back(mk(Op::Sub, t, 2));
    }
    v.push_back(mk(Op::Not, t, 1));
    v.push_back(mk(Op::Mov, t, 1));
    v.push_back(mk(Op::Selp, t, 3));
    for (Cmp c : {Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Lo, Cmp::Ls, Cmp::Hi, Cmp::Hs}) {
      Instr s = mk(Op::Setp, t, 2);
      s.mods.cmp = c;
      v.push_back(s);
    }
    if (t >= Type::U8 && t <= Type::S64) {
      for (MulMode mm : {MulMode::Lo, MulMode::Wide}) {
        if (mm == MulMode::Wide && t != Type::S32 && t != Type::U32) continue;
        Instr mul = mk(Op::Mul, t, 2);
        mul.mods.mul = mm;
        v.push_back(mul);
        Instr mad = mk(Op::Mad, t, 3);
        mad.mods.mul = mm;
        v.push_back(mad);
      }
    }
  }
  for (Op op : {Op::And, Op::Or, Op::Xor}) v.push_back(mk(op, Type::Pred, 2));
  v.push_back(mk(Op::Not, Type::Pred, 1));
  v.push_back(mk(Op::Mov, Type::Pred, 1));
  for (Type t : {Type::F32, Type::F64}) {
    for (Op op : {Op::Add, Op::Sub, Op::Mul}) v.push_back(mk(op, t, 2));
    Instr f = mk(Op::Fma, t, 3);
    f.mods.round = Round::Rn;
    v.push_back(f);
    v.push_back(mk(Op::Mad, t, 3));
  }
  for (bool ftz : {false, true}) {
    for (Op op : {Op::Rcp, Op::Sqrt, Op::Rsqrt, Op::Div}) {
      Instr a = mk(op, Type::F32, op == Op::Div ? 2 : 1);
      a.mods.approx = true;
      a.mods.ftz = ftz;
      v.push_back(a);
    }
    Instr full = mk(Op::Div, Type::F32, 2);
    full.mods.full = true;
    full.mods.ftz = ftz;
    v.push_back(full);
  }
  v.push_back(mk(Op::Cvt, Type::U64, 1, Type::U32));
  v.push_back(mk(Op::Cvt, Type::S64, 1, Type::S32));
  v.push_back(mk(Op::Cvt, Type::U64, 1, Type::S32));
  return v;
}

}  // namespace

TEST_CASE("laneFunction specialisations match evalLane", "[semantics]") {
  const uint64_t edge[] = {0, 1, 2, 15, 16, 31, 32, 33, 63, 64, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
                           0xffffffff, 0x3f800000, 0x7fc00000, 0x00000001, 0x4000000000000000ull,
                           0x7ff8000000000001ull, 0x8000000000000000ull, ~0ull, 0x3ff0000000000000ull};
  uint64_t rng = 12345;
  auto next = [&]() {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng;
  };
  unsigned specialised = 0;
  for (const Instr& in : candidates()) {
    std::string why;
    bool ok = supported(in, &why);
    INFO(why);
    REQUIRE(ok);
    const LaneFn fn = laneFunction(in);
    REQUIRE(fn != nullptr);
    if (fn != &evalLane) ++specialised;
    for (int i = 0; i < 2000; ++i) {
      uint64_t s[5];
      for (uint64_t& x : s) {
        const uint64_t r = next();
        x = (r & 3) == 0 ? edge[(r >> 8) % (sizeof(edge) / sizeof(edge[0]))] : next();
      }
      uint64_t a[4] = {}, b[4] = {};
      evalLane(in, s, a);
      fn(in, s, b);
      INFO("op " << static_cast<int>(in.op) << " type " << static_cast<int>(in.type) << " s0 " << s[0] << " s1 "
                 << s[1] << " s2 " << s[2]);
      REQUIRE(a[0] == b[0]);
    }
  }
  CHECK(specialised == candidates().size());
}

TEST_CASE("warpFunction computes every lane as laneFunction does", "[semantics]") {
  uint64_t rng = 987654321;
  auto next = [&]() {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng;
  };
  const uint64_t edge[] = {0, 1, 31, 32, 0x7fffffff, 0x80000000, 0xffffffff, 0x7fc00000, 0x7f800000,
                           0x7ff8000000000001ull, 0x8000000000000000ull, ~0ull};
  for (const Instr& in : candidates()) {
    const WarpFn wf = warpFunction(in);
    INFO("op " << static_cast<int>(in.op) << " type " << static_cast<int>(in.type));
    REQUIRE(wf != nullptr);
    const LaneFn fn = laneFunction(in);
    for (int round = 0; round < 50; ++round) {
      uint64_t cols[3][32];
      for (auto& c : cols)
        for (uint64_t& x : c) x = (next() & 3) == 0 ? edge[next() % (sizeof(edge) / sizeof(edge[0]))] : next();
      const uint64_t* s[3] = {cols[0], cols[1], cols[2]};
      uint64_t r[32];
      wf(in, s, r);
      for (unsigned l = 0; l < 32; ++l) {
        const uint64_t x[5] = {cols[0][l], cols[1][l], cols[2][l], 0, 0};
        uint64_t want[4] = {};
        fn(in, x, want);
        REQUIRE(r[l] == want[0]);
      }
    }
  }
  Instr rz = mk(Op::Add, Type::F32, 2);
  rz.mods.round = Round::Rz;
  CHECK(warpFunction(rz) == nullptr);
  CHECK(warpFunction(mk(Op::Bfe, Type::U32, 3)) == nullptr);
}

TEST_CASE("laneFunction falls back to evalLane for the rest", "[semantics]") {
  Instr rz = mk(Op::Add, Type::F32, 2);
  rz.mods.round = Round::Rz;
  CHECK(laneFunction(rz) == &evalLane);
  Instr sat = mk(Op::Add, Type::S32, 2);
  sat.mods.sat = true;
  CHECK(laneFunction(sat) == &evalLane);
  Instr two = mk(Op::Setp, Type::S32, 2);
  two.mods.cmp = Cmp::Lt;
  two.ndst = 2;
  CHECK(laneFunction(two) == &evalLane);
  CHECK(laneFunction(mk(Op::Bfe, Type::U32, 3)) == &evalLane);
}
