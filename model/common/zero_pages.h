// A zeroed array of words whose memory the operating system zeroes page by
// page when it is first touched: an anonymous mapping (mmap(2)) instead of a
// std::vector, which writes every word at construction. For the large
// per-SM arrays rebuilt at each launch (the physical register file) of which
// a launch touches only the rows its resident warps are given: the rest
// costs neither the writes nor the page faults.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rfsim {

class ZeroPages {
 public:
  ZeroPages() = default;
  // `words` zeroed 64-bit words. Throws rfsim::Error when the mapping fails.
  explicit ZeroPages(size_t words);
  ~ZeroPages();
  ZeroPages(ZeroPages&& o) noexcept;
  ZeroPages& operator=(ZeroPages&& o) noexcept;
  ZeroPages(const ZeroPages&) = delete;
  ZeroPages& operator=(const ZeroPages&) = delete;

  uint64_t* data() { return data_; }
  const uint64_t* data() const { return data_; }
  size_t size() const { return words_; }

 private:
  void release();
  uint64_t* data_ = nullptr;
  size_t words_ = 0;
};

}  // namespace rfsim
