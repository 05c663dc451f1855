// Large template kernels through the back end with its checker on, then run
// as the machine program and as PTX (virtual registers) on the same inputs:
// a segmented key-value sort's tiles (a fully unrolled bitonic network over
// float keys and int values) and a segmented reduction over 64-bit offsets
// with many live 64-bit partials (tests/backend/templates/). Both spill
// under their launch bounds, values defined only in tiles or segments that
// hold items, and read back after a barrier only there; the checker must
// accept that (it once reported conflicts there, depending on the order
// its data flow visited the blocks in). And a sort network of float keys
// and 64-bit values that spills when scheduled at the target but not in
// PTX order (sort_pairs64).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "ptx/parser.h"
#include "runtime/runtime.h"

using namespace rfsim;

namespace {

const std::filesystem::path kDir = std::filesystem::path(RFSIM_SOURCE_DIR) / "tests/backend/templates";
const char* kSort = "_Z14seg_sort_tilesILi32ELi8EEvPKfPKiS3_PfPii";
const char* kReduce = "_Z10seg_reduceILi16ELi8EEvPKdPKlPdPli";
const char* kPairs64 = "_Z9sort_warpIfxLi32EEvPKT_PKT0_PS0_PS3_ib";

rt::DeviceOptions deviceOptions(bool machine) {
  rt::DeviceOptions o;
  o.machine = machine;
  return o;
}

template <class T>
uint64_t upload(rt::Device& dev, const std::vector<T>& v) {
  const uint64_t p = dev.malloc(v.size() * sizeof(T));
  dev.memcpyHtoD(p, v.data(), v.size() * sizeof(T));
  return p;
}

template <class T>
std::vector<T> download(rt::Device& dev, uint64_t p, size_t n) {
  std::vector<T> v(n);
  dev.memcpyDtoH(v.data(), p, n * sizeof(T));
  return v;
}

// The sorted tiles' keys and values (as bits), one run.
std::vector<uint32_t> runSort(bool machine) {
  rt::Device dev(deviceOptions(machine));
  dev.loadModule(kDir / "sort_network.ptx");
  constexpr int kTile = 128 * 32, kTiles = 3;
  std::vector<float> keys(kTile * kTiles);
  std::vector<int32_t> vals(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<float>((i * 7919u) % 1009u) * 0.25f - 100.0f;
    vals[i] = static_cast<int32_t>(i);
  }
  const std::vector<int32_t> len = {32, 0, 20};  // the middle tile holds no segment
  const uint64_t k = upload(dev, keys), v = upload(dev, vals), l = upload(dev, len);
  const uint64_t ok = upload(dev, std::vector<float>(keys.size(), 0.0f));
  const uint64_t ov = upload(dev, std::vector<int32_t>(keys.size(), 0));
  rt::KernelArgs a;
  a.ptr(k).ptr(v).ptr(l).ptr(ok).ptr(ov).i32(kTiles);
  dev.launch(kSort, {2, 1, 1}, {128, 1, 1}, a);  // two blocks: one loops over two tiles
  std::vector<uint32_t> out(keys.size() * 2);
  const std::vector<float> fk = download<float>(dev, ok, keys.size());
  const std::vector<int32_t> fv = download<int32_t>(dev, ov, keys.size());
  std::memcpy(out.data(), fk.data(), fk.size() * 4);
  std::memcpy(out.data() + fk.size(), fv.data(), fv.size() * 4);
  return out;
}

// The segments' partial sums (as bits) and argmax indices, one run.
std::vector<uint64_t> runReduce(bool machine) {
  rt::Device dev(deviceOptions(machine));
  dev.loadModule(kDir / "seg_reduce.ptx");
  const std::vector<int64_t> offsets = {0, 5000, 5000, 5300, 7400};  // the second segment is empty
  const int nsegs = static_cast<int>(offsets.size()) - 1;
  std::vector<double> in(static_cast<size_t>(offsets.back()));
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>((i * 104729u) % 4099u) / 64.0 - 20.0;
  const uint64_t pin = upload(dev, in), poff = upload(dev, offsets);
  const uint64_t pout = upload(dev, std::vector<double>(nsegs * 16, 0.0));
  const uint64_t pwhere = upload(dev, std::vector<int64_t>(nsegs * 16, 0));
  rt::KernelArgs a;
  a.ptr(pin).ptr(poff).ptr(pout).ptr(pwhere).i32(nsegs);
  dev.launch(kReduce, {2, 1, 1}, {128, 1, 1}, a);
  const std::vector<double> s = download<double>(dev, pout, nsegs * 16);
  const std::vector<int64_t> w = download<int64_t>(dev, pwhere, nsegs * 16);
  std::vector<uint64_t> out(s.size() + w.size());
  std::memcpy(out.data(), s.data(), s.size() * 8);
  std::memcpy(out.data() + s.size(), w.data(), w.size() * 8);
  return out;
}

}  // namespace

TEST_CASE("back end: large template kernels that spill across a barrier pass the checker", "[backend][templates]") {
  for (const auto& [file, kernel] : {std::pair{"sort_network.ptx", kSort}, std::pair{"seg_reduce.ptx", kReduce}}) {
    INFO(file);
    backend::CompiledModule cm;
    REQUIRE_NOTHROW(cm = backend::compileModule(ptx::parseFile(kDir / file)));
    const backend::FunctionReport* r = cm.find(kernel);
    REQUIRE(r != nullptr);
    CHECK(r->max_regs == 64);      // __launch_bounds__(128, 8)
    CHECK(r->spill_stores > 0);    // the values the checker follows through their stack slots
    CHECK(r->checked_uses > 0);
  }
}

TEST_CASE("back end: the sort network's machine program sorts as its PTX does", "[backend][templates]") {
  const std::vector<uint32_t> machine = runSort(true), ptx = runSort(false);
  REQUIRE(machine.size() == ptx.size());
  CHECK(machine == ptx);
  // The first tile's first thread holds its 32 keys in ascending order.
  std::vector<float> k(32);
  std::memcpy(k.data(), ptx.data(), 32 * 4);
  for (int i = 1; i < 32; ++i) CHECK(k[i - 1] <= k[i]);
}

TEST_CASE("back end: the segmented reduction's machine program reduces as its PTX does", "[backend][templates]") {
  const std::vector<uint64_t> machine = runReduce(true), ptx = runReduce(false);
  REQUIRE(machine.size() == ptx.size());
  CHECK(machine == ptx);
}

TEST_CASE("back end: a schedule that spills is tried again, and a sort network of 64-bit values does not spill",
          "[backend][templates]") {
  // Scheduled at the target it took 255 registers and 2.6 KB of spills;
  // ptxas: 183 registers, no spills.
  const backend::CompiledModule cm = backend::compileModule(ptx::parseFile(kDir / "sort_pairs64.ptx"));
  const backend::FunctionReport* r = cm.find(kPairs64);
  REQUIRE(r != nullptr);
  CHECK(r->spill_stores == 0);
  CHECK(r->spill_bytes == 0);
  CHECK(r->regs >= 183 * 3 / 4);  // within ±25 % of ptxas'
  CHECK(r->regs <= 183 * 5 / 4);
}
