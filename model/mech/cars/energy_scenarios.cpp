#include "mech/cars/energy_scenarios.h"

#include <algorithm>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "common/error.h"
#include "mech/cars/rename_ref.h"
#include "mech/cars/stalled_warps.h"

namespace rfsim::cars {

namespace {

// Opens a phase at the stimulus' current end.
void beginPhase(cost::Stimulus& s, const std::string& name) {
  cost::StimulusPhase p;
  p.name = name;
  p.first = s.cycles.size();
  s.phases.push_back(p);
}
void endPhase(cost::Stimulus& s, uint64_t ops) {
  s.phases.back().cycles = s.cycles.size() - s.phases.back().first;
  s.phases.back().ops = ops;
}

}  // namespace

cost::Stimulus renameEnergyStimulus(const RenameParams& p, uint64_t seed) {
  p.check();
  const uint32_t wb = p.warpBits(), ib = p.idxBits(), ports = p.read_ports;
  if (ports * std::max(wb, 8u) > 64) throw Error("CARS energy stimulus: the rename ports need more than 64 bits");
  cost::Stimulus s;
  s.module = "cars_rename";
  s.signals = {{"rst_ni", 1},       {"op_valid_i", 1},        {"op_i", 3},
               {"op_warp_i", wb},   {"op_base_i", ib},        {"op_frame_i", ib},
               {"op_n_i", ib},      {"op_saved_rfp_i", ib},   {"rd_warp_i", ports * wb},
               {"rd_reg_i", ports * 8}, {"dbg_warp_i", wb}};
  RenameRef ref(p);
  ref.reset();
  std::mt19937_64 rng(seed);
  Inputs in;
  Outputs out;
  bool running = false;  // out of reset
  // One cycle: the inputs through the reference, then into the stimulus.
  auto cycle = [&](const char* what) {
    in.op.valid = in.op.op != Op::None;
    ref.evaluate(in, out);
    if (in.op.valid && !out.ack)
      throw Error(fmt::format("CARS energy stimulus: {} of warp {} not accepted (overflow {}, illegal {})", what,
                              in.op.warp, out.overflow, out.illegal));
    uint64_t rw = 0, rr = 0;
    for (uint32_t i = 0; i < ports; ++i) {
      rw |= uint64_t{in.rd[i].warp} << (i * wb);
      rr |= uint64_t{in.rd[i].reg} << (i * 8);
    }
    s.add({running ? 1u : 0u, in.op.valid, static_cast<uint64_t>(in.op.op), in.op.warp, in.op.base, in.op.frame, in.op.n,
           in.op.saved_rfp, rw, rr, in.dbg_warp});
    if (running) ref.tick();
    else ref.reset();
    in.op = OpRequest{};
  };
  auto warp = [&] { return static_cast<uint32_t>(rng() % p.num_warps); };

  beginPhase(s, "reset");
  cycle("reset");
  cycle("reset");
  endPhase(s, 0);
  running = true;
  // Each warp's allotment: half base frame, half circular stack.
  const uint32_t allot = p.num_regs / p.num_warps, frame = allot / 2, stack = allot - frame;
  if (stack < 8) throw Error(fmt::format("CARS energy stimulus: a stack of {} registers per warp is too small", stack));
  beginPhase(s, "launch");
  for (uint32_t w = 0; w < p.num_warps; ++w) {
    in.op = {true, Op::Launch, w, w * allot, frame, stack, 0};
    cycle("launch");
  }
  endPhase(s, p.num_warps);
  // Two cycles for the last launch's inputs to fall back, so that the idle
  // phase holds the clock alone.
  beginPhase(s, "settle");
  cycle("settle");
  cycle("settle");
  endPhase(s, 0);
  beginPhase(s, "idle");
  for (int i = 0; i < 16; ++i) cycle("idle");
  endPhase(s, 0);
  // Pushes on distinct warps, each left for the renames to find.
  std::vector<uint32_t> order(p.num_warps);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  const uint32_t n_push = std::min<uint32_t>(32, p.num_warps);
  std::vector<uint32_t> pushed(n_push);
  beginPhase(s, "push");
  for (uint32_t i = 0; i < n_push; ++i) {
    pushed[i] = static_cast<uint32_t>(1 + rng() % 4);
    in.op = {true, Op::Push, order[i], 0, 0, pushed[i], 0};
    cycle("push");
  }
  endPhase(s, n_push);
  beginPhase(s, "rename");
  const uint32_t rename_cycles = 32;
  for (uint32_t c = 0; c < rename_cycles; ++c) {
    for (uint32_t i = 0; i < ports; ++i) in.rd[i] = {warp(), static_cast<uint32_t>(rng() % 64)};
    cycle("rename");
  }
  endPhase(s, uint64_t{rename_cycles} * ports);
  beginPhase(s, "pop");
  for (uint32_t i = 0; i < n_push; ++i) {
    in.op = {true, Op::Pop, order[i], 0, 0, pushed[i], 0};
    cycle("pop");
  }
  endPhase(s, n_push);
  beginPhase(s, "call_ret");
  const uint32_t calls = 16;
  for (uint32_t i = 0; i < calls; ++i) {
    const uint32_t w = warp();
    in.op = {true, Op::Call, w, 0, 0, static_cast<uint32_t>(1 + rng() % 4), 0};
    cycle("call");
    const uint32_t saved = out.save_data;
    in.op = {true, Op::Ret, w, 0, 0, 0, saved};
    cycle("ret");
  }
  endPhase(s, 2 * calls);
  return s;
}

cost::Stimulus stalledEnergyStimulus(uint32_t num_warps, uint64_t seed) {
  if (num_warps < 4 || num_warps > 64 || (num_warps & (num_warps - 1)))
    throw Error(fmt::format("CARS energy stimulus: {} warps (a power of two from 4 to 64)", num_warps));
  uint32_t wb = 0;
  while ((1u << wb) < num_warps) ++wb;
  cost::Stimulus s;
  s.module = "cars_stalled_warps";
  s.signals = {{"rst_ni", 1}, {"push_i", 1}, {"push_warp_i", wb}, {"rm_i", 1},     {"rm_warp_i", wb},
               {"check_i", 1}, {"elig_i", num_warps}, {"fit_i", 1}, {"dbg_idx_i", wb}};
  StalledRef ref(num_warps);
  ref.reset();
  std::mt19937_64 rng(seed);
  StalledInputs in;
  StalledOutputs out;
  bool running = false;  // out of reset
  auto cycle = [&](const char* what, bool expect_release) {
    ref.evaluate(in, out);
    if (out.error || (expect_release && !out.release))
      throw Error(fmt::format("CARS energy stimulus: stalled-warp list {} not applied", what));
    s.add({running ? 1u : 0u, in.push, in.push_warp, in.rm, in.rm_warp, in.check, in.elig, in.fit, in.dbg_idx});
    if (running) ref.tick();
    else ref.reset();
    in.push = in.rm = in.check = false;
  };
  const uint64_t all = num_warps == 64 ? ~uint64_t{0} : (uint64_t{1} << num_warps) - 1;

  beginPhase(s, "reset");
  cycle("reset", false);
  cycle("reset", false);
  endPhase(s, 0);
  running = true;
  // Two cycles for the reset's release, so that the idle phase holds the clock alone.
  beginPhase(s, "settle");
  cycle("settle", false);
  cycle("settle", false);
  endPhase(s, 0);
  beginPhase(s, "idle");
  for (int i = 0; i < 16; ++i) cycle("idle", false);
  endPhase(s, 0);
  std::vector<uint32_t> order(num_warps);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<uint32_t> listed(order.begin(), order.begin() + num_warps / 2);
  beginPhase(s, "push");
  for (uint32_t w : listed) {
    in.push = true;
    in.push_warp = w;
    cycle("push", false);
  }
  endPhase(s, listed.size());
  beginPhase(s, "release");
  const uint32_t releases = num_warps / 4;
  for (uint32_t i = 0; i < releases; ++i) {
    // A random eligible set that holds at least one listed warp.
    uint64_t elig = rng() & all;
    elig |= uint64_t{1} << listed[rng() % listed.size()];
    in.check = true;
    in.elig = elig;
    in.fit = true;
    ref.evaluate(in, out);
    const uint32_t gone = out.sel_warp;
    cycle("release", true);
    listed.erase(std::find(listed.begin(), listed.end(), gone));
  }
  endPhase(s, releases);
  beginPhase(s, "remove");
  const uint32_t removals = std::min<uint32_t>(num_warps / 4, static_cast<uint32_t>(listed.size()));
  for (uint32_t i = 0; i < removals; ++i) {
    const size_t k = rng() % listed.size();
    in.rm = true;
    in.rm_warp = listed[k];
    listed.erase(listed.begin() + static_cast<long>(k));
    cycle("remove", false);
  }
  endPhase(s, removals);
  return s;
}

}  // namespace rfsim::cars
