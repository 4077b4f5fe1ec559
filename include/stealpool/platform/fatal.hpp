// stealpool/platform/fatal.hpp: for invariants that must never break, and for
// misuse that cannot be reported by an exception (a destructor, a noexcept
// scheduler path): print the reason and abort rather than run on corrupted
// state. Defined in src/fatal.cpp.
#pragma once

namespace stealpool::detail {

[[noreturn]] void fatal(const char* what) noexcept;

}  // namespace stealpool::detail
