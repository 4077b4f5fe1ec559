#include "stealpool/platform/fatal.hpp"

#include <cstdio>
#include <cstdlib>

namespace stealpool::detail {

// Scheduler invariants that must never break: report and stop at once rather than
// run on corrupted state.
[[noreturn]] void fatal(const char* what) noexcept {
  std::fputs(what, stderr);
  std::fputc('\n', stderr);
  std::abort();
}

}  // namespace stealpool::detail
