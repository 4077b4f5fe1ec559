// The replaced operator new of armed_new.hpp.
#include "armed_new.hpp"

#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

// The armed thread's countdown: 0 = off; otherwise the allocation that brings
// it to 1 fails. `counted` counts the armed thread's allocations either way.
thread_local bool counting = false;
thread_local long countdown = 0;
thread_local long counted = 0;

void* allocate(std::size_t n, std::size_t align) {
  if (counting) {
    ++counted;
    if (countdown > 0 && --countdown == 0) throw std::bad_alloc();
  }
  void* p = align <= alignof(std::max_align_t) ? std::malloc(n == 0 ? 1 : n)
                                               : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

namespace sptest::alloc {

Armed::Armed(long fail_at) {
  counted = 0;
  countdown = fail_at;
  counting = true;
}
Armed::~Armed() {
  counting = false;
  countdown = 0;
}
long Armed::count() const { return counted; }

}  // namespace sptest::alloc

// g++ sees free() on what `new` returned and warns; here `new` is malloc.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t n) { return allocate(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return allocate(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
