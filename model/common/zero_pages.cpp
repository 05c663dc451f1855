#include "common/zero_pages.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim {

ZeroPages::ZeroPages(size_t words) : words_(words) {
  if (words == 0) return;
  void* p = mmap(nullptr, words * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error(fmt::format("cannot map {} bytes of zeroed memory: {}", words * sizeof(uint64_t), std::strerror(errno)));
  data_ = static_cast<uint64_t*>(p);
}

ZeroPages::~ZeroPages() { release(); }

ZeroPages::ZeroPages(ZeroPages&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), words_(std::exchange(o.words_, 0)) {}

ZeroPages& ZeroPages::operator=(ZeroPages&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    words_ = std::exchange(o.words_, 0);
  }
  return *this;
}

void ZeroPages::release() {
  if (data_) munmap(data_, words_ * sizeof(uint64_t));
  data_ = nullptr;
  words_ = 0;
}

}  // namespace rfsim
