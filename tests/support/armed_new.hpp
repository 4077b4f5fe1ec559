// tests/support/armed_new.hpp: a replaced global operator new that counts, and
// on request fails, the allocations made by one thread (armed_new.cpp; a test
// binary gets it by listing that file among its sources).
//
//   { sptest::alloc::Armed armed(0); code(); armed.count(); }   // how many
//   { sptest::alloc::Armed armed(n); code(); }                  // the nth throws
//
// Only the arming thread is counted, so workers and gtest's own threads do not
// disturb the figure. Memory comes from malloc/aligned_alloc and goes back with
// free, whatever the form of new and delete.
#pragma once

namespace sptest::alloc {

class Armed {
 public:
  // fail_at = 0: count only; fail_at = n > 0: the nth allocation on this thread
  // (counting from here) throws std::bad_alloc.
  explicit Armed(long fail_at);
  ~Armed();
  Armed(const Armed&) = delete;
  Armed& operator=(const Armed&) = delete;

  // Allocations this thread made since the Armed was built.
  long count() const;
};

}  // namespace sptest::alloc
