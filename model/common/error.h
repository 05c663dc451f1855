// Errors a user can act on: bad input, missing tool, failed check. The message
// names the file, line, key, warp or cycle concerned; main() prints it on one
// line and exits non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace rfsim {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// A command line that asks for something impossible (options that do not
// go together, a missing choice): the program exits 2, as for a parse error.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what) {}
};

}  // namespace rfsim
