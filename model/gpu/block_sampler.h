// Sampled simulation within one launch (sim.sample: blocks or all), after
// the idea of Photon (Liu et al., MICRO 2023, section 4): simulate the
// launch in detail until its throughput is stable, then run the blocks not
// yet started functionally and extrapolate the cycles they would take.
//
// What counts as stable. The launch is measured in intervals as long as
// its first blocks lived: from launch to the first retirement (L cycles),
// so that an interval spans about one block's whole life and averages its
// phases. The intervals start at the first retirement (the ramp-up, when
// every SM fills at once and nothing has retired yet, is never part of
// one). An interval's IPC is the warp instructions every SM issued in it
// over its cycles. The launch is stable once the last sim.sample_window
// intervals' cycles per warp instruction spread by at most
// sim.sample_tolerance of their mean; it is then cut if at least
// sim.sample_min_share of its blocks have started (a steady first phase can
// still be a transient: lt_nn's distances run 2.7x faster while the L2
// fills, for the first 7 % of the launch, then settle) and at least one
// block per SM has not (otherwise there is nothing to gain), and the L2
// is steady over the window: it evicts at least half as many lines as it
// places (it is full; a miss of a sector whose line is present places
// none: on lt_mrigrid two thirds of the misses, which, counted as lines
// placed, made a full L2 look like one still filling), or it places fewer
// than 1 % of its lines (the launch barely reaches it), and the DRAM keeps up: the work its channels
// have booked beyond the current cycle (the backlog) moves by at most
// sim.sample_tolerance of the window's cycles. A streaming launch is steady
// in IPC while the L2 fills and slows once dirty lines start going back to
// DRAM: saxpy (large, V100) cut while its L2 filled came out 31 % short.
// With the L2 full it still issues at the same rate for three more
// intervals while its write-backs pile up in DRAM (the backlog grows from
// 1 400 to 5 900 cycles) and pays for them in a tail of 5 500 cycles at a
// tenth of the rate; cut there it came out 15 % short. A launch of few
// waves is never cut: its intervals are its ramp-up and its tail.
//
// The blocks left. The guards above look at the launch as it runs and
// cannot see the blocks not yet started. A grid whose blocks' work depends
// on where they sit in it (lt_raytrace renders row by row, its scene below
// the top rows: the blocks left did 3.4x the warp instructions of those
// measured, and the cut came out 52 % short) breaks the extrapolation with
// a window as steady as any. So, where the runner can count every block's
// warp instructions (functionally, from the memory the launch started
// with: KernelRunner::admitCut), a window that passes the guards is kept
// only if the blocks not yet started do the work of those it measured
// (those not retired when it began up to the last started; blocks retire
// about in grid order): the blocks left are cut into runs as long as the
// window's, each run's mean warp instructions per block is compared with
// the window's (each mean weighted by the blocks' own work, so that the
// nearly empty blocks of a grid rounded up past its data count for next to
// nothing, as in the cycles extrapolated), and the relative differences,
// weighted by each run's share of the work left, must add up to at most
// sim.sample_block_tolerance. Otherwise the cut is withdrawn and the launch
// runs on in detail, to be cut at a later window that passes (admit()),
// with intervals measured again: the blocks' lives change with their work
// (lt_raytrace's first rows live a fraction of its scene rows' lives), so
// at the next interval's end the length becomes the blocks' life by
// Little's law (blocks resident over blocks retired per cycle in that
// interval; twice the length while none retires), if longer.
// Photon compares the basic-block vectors of the warps it skips with those
// it measured (its section 4) for the same reason; the count is such a
// vector's sum, and it is what moves in lt_raytrace. With
// sim.sample_block_compare: mix the deviation admit() is given is the
// blocks' instruction mix's instead (each opcode's share; a coarser vector
// of the same kind), against sim.sample_block_mix_tolerance: blocks doing
// more or less of the same work are cut (lt_nqueens), blocks doing other
// work are not (lt_raytrace's sky rows).
//
// The cut. From then on no SM takes a new block; the resident ones finish
// in detail (the drain: one tail, as the full launch has one at its end).
// The blocks never started run in the functional model, in grid order, and
// their warp instructions W are exact. The launch's cycles are
//   drain end + W / IPC of the stable intervals.
// What is extrapolated is recorded in the launch's statistics (gpu.sample).
#pragma once

#include <cstdint>
#include <deque>

namespace rfsim::gpu {

// A launch's memory at one of BlockSampler's points (all 0 without an L2
// and DRAM).
struct SampledMemory {
  uint64_t l2_allocs = 0, l2_evictions = 0;  // lines the L2 placed (misses without their line) and evicted so far
  double dram_backlog = 0.0;  // cycles the DRAM channels are booked beyond the point, their mean
};

class BlockSampler {
 public:
  // `sms`: the launch's SMs; `blocks`: its grid; `window`, `tolerance`,
  // `min_share`: sim.sample_window, sim.sample_tolerance, sim.sample_min_share;
  // `l2_lines`: the L2's capacity in lines; `block_tolerance`:
  // sim.sample_block_tolerance, or sim.sample_block_mix_tolerance when the
  // blocks are compared by their mix (admit()).
  BlockSampler(uint64_t sms, uint64_t blocks, uint32_t window, double tolerance, double min_share,
               uint64_t l2_lines, double block_tolerance = 0.05);

  // The next cycle at which observe() wants to hear from the launch (after
  // the first retirement: the next interval's end).
  uint64_t nextPoint() const { return next_; }
  // An SM ticked `cycle` (its own) and a block retired then (`retired`), or
  // `cycle` reached nextPoint(); `warp_instrs`: every SM's warp instructions
  // so far; `unstarted`: blocks not yet taken by an SM; `retired_blocks`:
  // blocks retired so far, every SM. True when the launch is to be cut now
  // (then cut() stays true, unless admit() withdraws it).
  bool observe(uint64_t cycle, bool retired, uint64_t warp_instrs, uint64_t unstarted, const SampledMemory& mem = {},
               uint64_t retired_blocks = 0);
  // The blocks the window that cut measured begin here, in grid order: the
  // first block not retired when the window began.
  uint64_t windowFirstBlock() const { return points_.empty() ? 0 : points_.front().retired_blocks; }
  // The last guard of a cut observe() just made: `deviation`, how far the
  // blocks not yet started are from the window's in work (above). True (the
  // cut stands) at most the block tolerance; otherwise the cut is withdrawn
  // (refused() counts it) and observe() goes on with the next windows.
  bool admit(double deviation);
  // The deviation at the last admit() (0 if none), and the cuts admit()
  // withdrew.
  double blockWorkDeviation() const { return deviation_; }
  uint64_t refused() const { return refused_; }

  bool cut() const { return cut_; }
  // Warp instructions per cycle over the stable intervals (valid once cut).
  double ipc() const { return ipc_; }
  // Intervals measured, and their length (0 before the first retirement).
  uint64_t intervals() const { return intervals_; }
  uint64_t interval() const { return length_; }
  // The smallest spread of cycles per warp instruction, (max - min) / mean,
  // of the whole windows measured while at least one block per SM had not
  // started: how close the launch came to a cut (it is cut only at a spread
  // within the tolerance); 0 if no such window.
  double spread() const { return spread_; }
  // The launch's cycles: the drain's end plus `skipped_instrs` at ipc().
  uint64_t extrapolate(uint64_t drain_end, uint64_t skipped_instrs) const;
  // The same by blocks, for blocks whose own instructions are not counted
  // (a launch whose code needs a mechanism's hardware: the blocks left run
  // the base code, whose instructions are not its own): `skipped_blocks` of
  // `instrs_per_block` warp instructions each (the detailed blocks' mean)
  // at ipc(). Blocks retired per cycle would do without the mean, but they
  // retire in waves: on few SMs a window of three block lives can hold two
  // waves' retirements or four (R2D2's r2_kmeans on 2 SMs came out 12 %
  // long that way).
  uint64_t extrapolateBlocks(uint64_t drain_end, uint64_t skipped_blocks, double instrs_per_block) const;

 private:
  struct Point {
    uint64_t cycle, instrs;
    SampledMemory mem;
    uint64_t retired_blocks;
  };
  uint64_t sms_, blocks_, l2_lines_;
  uint32_t window_;
  double tolerance_, min_share_, block_tolerance_;
  double deviation_ = 0.0;
  bool relearn_ = false;  // a cut was withdrawn: the intervals' length is measured again (observe())
  uint64_t refused_ = 0;
  uint64_t next_ = UINT64_MAX, length_ = 0, intervals_ = 0;
  std::deque<Point> points_;  // the last window + 1 interval boundaries
  bool cut_ = false;
  double ipc_ = 0.0;  // warp instructions per cycle over the stable window
  double spread_ = 0.0;
  uint64_t windows_ = 0;
};

}  // namespace rfsim::gpu
