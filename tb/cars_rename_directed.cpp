#include "cars_rename_directed.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::tb {

namespace {

using cars::Op;
using cars::OpRequest;
using cars::WarpState;

OpRequest op(Op o, uint32_t warp, uint32_t n = 0, uint32_t base = 0, uint32_t frame = 0, uint32_t saved = 0) {
  OpRequest r;
  r.valid = true;
  r.op = o;
  r.warp = warp;
  r.n = n;
  r.base = base;
  r.frame = frame;
  r.saved_rfp = saved;
  return r;
}

Expect ok(uint32_t warp, WarpState after, std::vector<Expect::Read> reads = {}) {
  Expect e;
  e.ack = true;
  e.warp = warp;
  e.after = after;
  e.reads = std::move(reads);
  return e;
}

Expect refused(bool overflow, uint32_t warp, WarpState unchanged, std::vector<Expect::Read> reads = {}) {
  Expect e;
  e.ack = false;
  e.overflow = overflow;
  e.illegal = !overflow;
  e.warp = warp;
  e.after = unchanged;
  e.reads = std::move(reads);
  return e;
}

Expect saves(Expect e, uint32_t idx, uint32_t data) {
  e.save_valid = true;
  e.save_idx = idx;
  e.save_data = data;
  return e;
}

}  // namespace

std::vector<Step> directedSteps() {
  std::vector<Step> s;
  // Warp 0: 20 base registers at 0, a 10-register stack at 20 (CARS Fig. 4's kernel FRU).
  s.push_back({"launch w0", op(Op::Launch, 0, 10, 0, 20), ok(0, {0, 20, 20, 10})});
  s.push_back({"kernel level: nothing renamed, R15/R16/R17 are Base + x", OpRequest{},
               [] { Expect e; e.check_op = false; e.reads = {{0, 15, 15, false}, {0, 16, 16, false}, {0, 17, 17, false}}; return e; }()});
  {
    Step c{"call (FRU 3) saves RFP 20 at slot 20", op(Op::Call, 0, 3), ok(0, {0, 21, 21, 9})};
    c.expect.save_valid = true;
    c.expect.save_idx = 20;
    c.expect.save_data = 20;
    s.push_back(c);
  }
  s.push_back({"push 3 (replaces three STLs)", op(Op::Push, 0, 3), ok(0, {0, 21, 24, 6})});
  s.push_back({"renamed window is R16..R18", op(Op::Pop, 0, 1),
               ok(0, {0, 21, 23, 7},
                  {{0, 15, 15, false}, {0, 16, 21, true}, {0, 18, 23, true}, {0, 19, 19, false}})});
  s.push_back({"after pop 1 R18 is Base + 18 again", OpRequest{},
               [] { Expect e; e.check_op = false; e.reads = {{0, 17, 22, true}, {0, 18, 18, false}}; return e; }()});
  {
    Step c{"nested call (FRU 2) saves RFP 21 at slot 23", op(Op::Call, 0, 2), ok(0, {0, 24, 24, 6})};
    c.expect.save_valid = true;
    c.expect.save_idx = 23;
    c.expect.save_data = 21;
    s.push_back(c);
  }
  s.push_back({"push 2 in the callee", op(Op::Push, 0, 2), ok(0, {0, 24, 26, 4})});
  {
    Step r{"return restores RFP 21 from slot 23", op(Op::Ret, 0, 0, 0, 0, 21),
           ok(0, {0, 21, 23, 7}, {{0, 16, 24, true}, {0, 17, 25, true}, {0, 18, 18, false}})};
    r.expect.restore_idx = 23;
    s.push_back(r);
  }
  {
    Step r{"caller's frame is back: R16/R17 renamed, return to kernel", op(Op::Ret, 0, 0, 0, 0, 20),
           ok(0, {0, 20, 20, 10}, {{0, 16, 21, true}, {0, 17, 22, true}, {0, 18, 18, false}})};
    r.expect.restore_idx = 20;
    s.push_back(r);
  }
  // Full stack: a call whose FRU takes every remaining register fits exactly.
  s.push_back({"call (FRU 9) fits exactly in 10 free", op(Op::Call, 0, 9), saves(ok(0, {0, 21, 21, 9}), 20, 20)});
  // The stack is [20, 30): RSP one past its end wraps to its start.
  s.push_back({"push 9 fills the stack; RSP wraps to the stack's start", op(Op::Push, 0, 9), ok(0, {0, 21, 20, 0})});
  s.push_back({"push 1 on a full stack overflows (trap), state unchanged", op(Op::Push, 0, 1),
               refused(true, 0, {0, 21, 20, 0}, {{0, 24, 29, true}, {0, 25, 25, false}})});
  s.push_back({"call (FRU 0) on a full stack overflows: the RFP slot does not fit", op(Op::Call, 0, 0),
               refused(true, 0, {0, 21, 20, 0})});
  s.push_back({"pop 10 from a 9-register frame is illegal", op(Op::Pop, 0, 10), refused(false, 0, {0, 21, 20, 0})});
  s.push_back({"pop 9 empties the frame", op(Op::Pop, 0, 9), ok(0, {0, 21, 21, 9})});
  s.push_back({"return to kernel", op(Op::Ret, 0, 0, 0, 0, 20), ok(0, {0, 20, 20, 10})});
  s.push_back({"pop at kernel level (empty frame) is illegal", op(Op::Pop, 0, 1), refused(false, 0, {0, 20, 20, 10})});
  s.push_back({"call (FRU 10) needs 11 of 10 free: overflow", op(Op::Call, 0, 10), refused(true, 0, {0, 20, 20, 10})});
  // Launch limit: the register file ends at 2048.
  s.push_back({"launch past the end of the register file", op(Op::Launch, 63, 10, 2019, 20),
               refused(false, 63, {0, 0, 0, 0})});
  s.push_back({"launch ending exactly at the last register", op(Op::Launch, 63, 10, 2018, 20),
               ok(63, {2018, 2038, 2038, 10})});
  s.push_back({"launch w1 without a stack", op(Op::Launch, 1, 0, 30, 20), ok(1, {30, 50, 50, 0})});
  s.push_back({"w1 with no stack traps on any call", op(Op::Call, 1, 0), refused(true, 1, {30, 50, 50, 0})});
  s.push_back({"w63 call and push; w0 and w1 unaffected", op(Op::Call, 63, 2), saves(ok(63, {2018, 2039, 2039, 9}), 2038, 2038)});
  s.push_back({"w63 push 2 reaches the top index", op(Op::Push, 63, 2),
               ok(63, {2018, 2039, 2041, 7}, {{0, 16, 16, false}, {1, 16, 46, false}, {1, 255, 285, false}})});
  s.push_back({"R16/R17 of w63 in its stack, R255 is Base + 255 (wraps at 11 bits)", OpRequest{},
               [] { Expect e; e.check_op = false; e.reads = {{63, 16, 2039, true}, {63, 17, 2040, true},
                                                             {63, 18, 2036, false}, {63, 255, (2018 + 255) & 2047, false}};
                    return e; }()});
  // The stack [2038, 2048) ends at the last register: RSP wraps to 2038.
  s.push_back({"w63 push 6 leaves one free register at 2047", op(Op::Push, 63, 6), ok(63, {2018, 2039, 2047, 1})});
  {
    Step c{"call at RSP 2047: RFP of the new frame wraps to the stack's start", op(Op::Call, 63, 0),
           saves(ok(63, {2018, 2038, 2038, 0}), 2047, 2039)};
    s.push_back(c);
  }
  s.push_back({"empty frame at the wrap: R16 is Base + 16; another call overflows", op(Op::Call, 63, 0),
               refused(true, 63, {2018, 2038, 2038, 0}, {{63, 16, 2034, false}})});
  {
    Step r{"return from the wrapped frame reads slot 2047", op(Op::Ret, 63, 0, 0, 0, 2039),
           ok(63, {2018, 2039, 2047, 1}, {{63, 16, 2034, false}})};
    r.expect.restore_idx = 2047;
    s.push_back(r);
  }
  s.push_back({"caller's eight pushed registers are back in view", OpRequest{},
               [] { Expect e; e.check_op = false; e.reads = {{63, 16, 2039, true}, {63, 23, 2046, true},
                                                             {63, 24, 2042, false}}; return e; }()});
  // The overflow trap (CARS section IV-A): warp 2's stack is [120, 130).
  s.push_back({"launch w2: stack [120, 130)", op(Op::Launch, 2, 10, 100, 20), ok(2, {100, 120, 120, 10})});
  s.push_back({"w2 call (FRU 6)", op(Op::Call, 2, 6), saves(ok(2, {100, 121, 121, 9}), 120, 120)});
  s.push_back({"w2 push 6", op(Op::Push, 2, 6), ok(2, {100, 121, 127, 3})});
  s.push_back({"w2 call (FRU 4) needs 5 of 3 free: the trap condition", op(Op::Call, 2, 4),
               refused(true, 2, {100, 121, 127, 3})});
  s.push_back({"spill 8 would make 11 of a 10-register stack free: illegal", op(Op::Spill, 2, 8),
               refused(false, 2, {100, 121, 127, 3})});
  s.push_back({"the trap spills the oldest frame (slot + 6 registers): spill 7", op(Op::Spill, 2, 7),
               ok(2, {100, 121, 127, 10}, {{2, 16, 121, true}, {2, 21, 126, true}})});
  s.push_back({"the call now fits: RFP 121 saved at 127, the frame starts at 128", op(Op::Call, 2, 4),
               saves(ok(2, {100, 128, 128, 9}), 127, 121)});
  s.push_back({"push 4 wraps RSP past 130 to 122", op(Op::Push, 2, 4), ok(2, {100, 128, 122, 5})});
  s.push_back({"the frame's R16..R19 are 128, 129, 120, 121; R20 is Base + 20", OpRequest{},
               [] { Expect e; e.check_op = false;
                    e.reads = {{2, 16, 128, true}, {2, 17, 129, true}, {2, 18, 120, true}, {2, 19, 121, true},
                               {2, 20, 120, false}};
                    return e; }()});
  s.push_back({"pop 4 wraps RSP back to 128", op(Op::Pop, 2, 4), ok(2, {100, 128, 128, 9})});
  {
    Step r{"return reads the caller's RFP from 127", op(Op::Ret, 2, 0, 0, 0, 121), ok(2, {100, 121, 127, 10})};
    r.expect.restore_idx = 127;
    s.push_back(r);
  }
  s.push_back({"fill 7 takes the spilled frame's registers back", op(Op::Fill, 2, 7),
               ok(2, {100, 121, 127, 3}, {{2, 16, 121, true}, {2, 21, 126, true}, {2, 22, 122, false}})});
  s.push_back({"fill 4 with 3 free overflows", op(Op::Fill, 2, 4), refused(true, 2, {100, 121, 127, 3})});
  return s;
}

uint64_t runDirected(cars::RenameUnit& unit, const std::vector<Step>& steps) {
  uint64_t checks = 0;
  cars::Inputs in;
  cars::Outputs out;
  auto fail = [](const Step& st, const std::string& what) {
    throw Error(fmt::format("directed case '{}': {}", st.what, what));
  };
  auto check = [&](const Step& st, const char* field, int64_t expected, int64_t got) {
    ++checks;
    if (expected >= 0 && expected != got) fail(st, fmt::format("{} = {}, expected {}", field, got, expected));
  };
  const uint32_t ports = unit.params().read_ports;
  for (const Step& st : steps) {
    const Expect& e = st.expect;
    // Reads go out in batches of the unit's port count. Evaluating again
    // without a clock edge is still the same cycle, so every batch sees the
    // state before the operation, which rides on the last batch.
    in = cars::Inputs{};
    in.dbg_warp = e.warp >= 0 ? static_cast<uint32_t>(e.warp) : 0;
    size_t done = 0;
    do {
      const size_t batch = std::min<size_t>(ports, e.reads.size() - done);
      for (size_t i = 0; i < ports; ++i)
        in.rd[i] = i < batch ? cars::ReadRequest{e.reads[done + i].warp, e.reads[done + i].reg} : cars::ReadRequest{};
      in.op = done + batch == e.reads.size() ? st.op : cars::OpRequest{};
      unit.evaluate(in, out);
      for (size_t i = 0; i < batch; ++i) {
        const auto& r = e.reads[done + i];
        check(st, fmt::format("rename of warp {} R{}", r.warp, r.reg).c_str(), r.idx, out.rd_idx[i]);
        check(st, fmt::format("stacked flag of warp {} R{}", r.warp, r.reg).c_str(), r.stacked, out.rd_stacked[i]);
      }
      done += batch;
    } while (done < e.reads.size());
    if (e.check_op && st.op.valid) {
      check(st, "op_ack", e.ack, out.ack);
      check(st, "op_overflow", e.overflow, out.overflow);
      check(st, "op_illegal", e.illegal, out.illegal);
      check(st, "save_valid", e.save_valid, out.save_valid);
      if (e.save_valid) {
        check(st, "save_idx", e.save_idx, out.save_idx);
        check(st, "save_data", e.save_data, out.save_data);
      }
      check(st, "restore_idx", e.restore_idx, out.restore_idx);
    }
    unit.tick();
    if (e.warp >= 0) {
      in = cars::Inputs{};
      in.dbg_warp = static_cast<uint32_t>(e.warp);
      unit.evaluate(in, out);
      check(st, "Base after", e.after.base, out.dbg.base);
      check(st, "RFP after", e.after.rfp, out.dbg.rfp);
      check(st, "RSP after", e.after.rsp, out.dbg.rsp);
      check(st, "free count after", e.after.free, out.dbg.free);
      unit.tick();
    }
  }
  return checks;
}

}  // namespace rfsim::tb
