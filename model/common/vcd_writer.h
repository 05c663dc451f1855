// The VCD waveform of a Verilated model (the mechanisms' RTL units in the
// loop): opened on the model's top, one dump per time stamp, increasing (VCD
// takes no second dump at a time already written). Header-only: only code
// built with a Verilated model (and Verilator's include folders) uses it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <verilated_vcd_c.h>

#include "common/error.h"

namespace rfsim {

class VcdWriter {
 public:
  ~VcdWriter() { close(); }
  template <class Top>
  void open(Top& top, const std::filesystem::path& path) {
    vcd_ = std::make_unique<VerilatedVcdC>();
    top.trace(vcd_.get(), 99);
    vcd_->open(path.string().c_str());
    if (!vcd_->isOpen()) throw Error(fmt::format("{}: cannot open the waveform for writing", path.string()));
    last_ = UINT64_MAX;
  }
  bool isOpen() const { return vcd_ != nullptr; }
  // Dumps at `t` (ps) unless a dump at `t` or later was written.
  void dump(uint64_t t) {
    if (vcd_ && (last_ == UINT64_MAX || t > last_)) {
      vcd_->dump(t);
      last_ = t;
    }
  }
  void close() {
    if (vcd_) {
      vcd_->close();
      vcd_.reset();
    }
  }

 private:
  std::unique_ptr<VerilatedVcdC> vcd_;
  uint64_t last_ = UINT64_MAX;
};

}  // namespace rfsim
