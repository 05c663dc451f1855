// The lazily zeroed word array (common/zero_pages.h) the physical register
// file keeps its rows in.
#include <catch2/catch.hpp>

#include <utility>

#include "common/zero_pages.h"

using rfsim::ZeroPages;

TEST_CASE("zero pages: every word reads zero until written, and moves keep the contents", "[common][zero_pages]") {
  ZeroPages a(1 << 20);  // 8 MB, touched sparsely
  REQUIRE(a.size() == size_t{1} << 20);
  REQUIRE(a.data() != nullptr);
  for (size_t i = 0; i < a.size(); i += 4099) CHECK(a.data()[i] == 0);
  a.data()[0] = 7;
  a.data()[a.size() - 1] = 9;
  ZeroPages b(std::move(a));
  CHECK(a.data() == nullptr);
  CHECK(a.size() == 0);
  CHECK(b.data()[0] == 7);
  CHECK(b.data()[b.size() - 1] == 9);
  CHECK(b.data()[12345] == 0);
  // Assigning a fresh array releases the old one: its words are zero again.
  b = ZeroPages(16);
  CHECK(b.size() == 16);
  for (size_t i = 0; i < 16; ++i) CHECK(b.data()[i] == 0);
  ZeroPages empty;
  CHECK(empty.data() == nullptr);
  CHECK(ZeroPages(0).size() == 0);
}
