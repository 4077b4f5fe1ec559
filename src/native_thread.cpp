#include "stealpool/platform/native_thread.hpp"

#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace stealpool::detail {
namespace {

// Linux keeps 16 bytes of thread name including the NUL; pthread_setname_np fails
// with ERANGE on anything longer, so we cut rather than lose the whole name.
constexpr std::size_t kMaxNameBytes = 15;

// What the new thread needs; allocated by the creator, owned (and freed) by the new
// thread once pthread_create has succeeded.
struct StartArgs {
  std::string name;
  std::function<void()> body;
};

void set_current_thread_name(const std::string& name) noexcept {
  std::size_t n = name.size() < kMaxNameBytes ? name.size() : kMaxNameBytes;
  // Cutting inside a multi-byte UTF-8 character would leave an invalid sequence in
  // every tool that shows the name: back off while name[n] continues a character.
  if (n < name.size())
    while (n > 0 && (static_cast<unsigned char>(name[n]) & 0xC0u) == 0x80u) --n;
  char buf[kMaxNameBytes + 1];
  std::memcpy(buf, name.data(), n);
  buf[n] = '\0';
  // The result is ignored: a name is a debugging aid, and failing to set one is no
  // reason to stop a worker (the only errors are ERANGE, ruled out above, and a
  // /proc that cannot be written).
#if defined(__linux__)
  (void)pthread_setname_np(pthread_self(), buf);
#elif defined(__APPLE__)
  (void)pthread_setname_np(buf);
#endif
}

// noexcept: an exception escaping the body has nowhere to go, and unwinding into
// libc's start_thread is undefined; terminating here names the real culprit.
void* start_routine(void* raw) noexcept {
  const std::unique_ptr<StartArgs> args(static_cast<StartArgs*>(raw));
  if (!args->name.empty()) set_current_thread_name(args->name);
  args->body();
  return nullptr;  // args (and the body's captures) die here, before join() returns
}

[[noreturn]] void throw_failed(int error, const char* call, std::size_t requested, std::size_t rounded) {
  std::string what = "stealpool::detail::NativeThread: ";
  what += call;
  what += " failed for requested stack size " + std::to_string(requested) + " bytes";
  if (rounded != requested) what += " (" + std::to_string(rounded) + " after rounding)";
  throw std::system_error(error, std::generic_category(), what);
}

// `requested` raised to PTHREAD_STACK_MIN and rounded up to whole pages.
std::size_t rounded_stack_size(std::size_t requested) {
  const long page_or_error = sysconf(_SC_PAGESIZE);
  const std::size_t page = page_or_error > 0 ? static_cast<std::size_t>(page_or_error) : 4096;
  // PTHREAD_STACK_MIN is a sysconf() call on glibc >= 2.34, not a constant, and
  // could in principle report -1; 16 KiB is the historical x86-64 value.
  const long min_or_error = PTHREAD_STACK_MIN;
  const std::size_t min = min_or_error > 0 ? static_cast<std::size_t>(min_or_error) : 16384;
  const std::size_t size = requested < min ? min : requested;
  if (size > SIZE_MAX - (page - 1))
    throw std::invalid_argument("stealpool::detail::NativeThread: stack size " + std::to_string(requested) +
                                " bytes cannot be rounded up to a whole page");
  return (size + page - 1) / page * page;
}

// Destroys the attribute object on every path out of the constructor, including
// the throwing ones.
struct AttrOwner {
  pthread_attr_t attr;
  bool live = false;
  ~AttrOwner() {
    if (live) pthread_attr_destroy(&attr);
  }
};

}  // namespace

std::size_t default_stack_size() noexcept {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return 0;
  std::size_t size = 0;
  if (pthread_attr_getstacksize(&attr, &size) != 0) size = 0;
  pthread_attr_destroy(&attr);
  return size;
}

NativeThread::NativeThread(std::size_t stack_size, std::string name, std::function<void()> body) {
  // Checked here, where it can be reported, rather than as a std::bad_function_call
  // on the new thread, where it could only terminate.
  if (!body) throw std::invalid_argument("stealpool::detail::NativeThread: empty body");
  auto args = std::make_unique<StartArgs>(StartArgs{std::move(name), std::move(body)});

  // Stack size 0 passes no attributes at all, so the thread gets exactly what a
  // plain pthread_create (and std::thread) would.
  AttrOwner owner;
  std::size_t rounded = 0;
  if (stack_size != 0) {
    rounded = rounded_stack_size(stack_size);
    if (const int rc = pthread_attr_init(&owner.attr); rc != 0)
      throw_failed(rc, "pthread_attr_init", stack_size, rounded);
    owner.live = true;
    if (const int rc = pthread_attr_setstacksize(&owner.attr, rounded); rc != 0)
      throw_failed(rc, "pthread_attr_setstacksize", stack_size, rounded);
  }
  if (const int rc = pthread_create(&handle_, owner.live ? &owner.attr : nullptr, &start_routine, args.get());
      rc != 0)
    throw_failed(rc, "pthread_create", stack_size, stack_size == 0 ? 0 : rounded);
  args.release();  // the new thread owns it now: see start_routine
  joinable_ = true;
}

NativeThread::NativeThread(NativeThread&& other) noexcept
    : handle_(other.handle_), joinable_(std::exchange(other.joinable_, false)) {}

NativeThread& NativeThread::operator=(NativeThread&& other) noexcept {
  if (joinable_) {
    std::fputs("stealpool::detail::NativeThread: move-assigned over a joinable thread\n", stderr);
    std::terminate();
  }
  handle_ = other.handle_;
  joinable_ = std::exchange(other.joinable_, false);
  return *this;
}

NativeThread::~NativeThread() {
  if (joinable_) {
    // Said before terminating because std::terminate's own message ("terminate
    // called without an active exception") does not say which object was at fault.
    std::fputs("stealpool::detail::NativeThread: destroyed while joinable (join() was not called)\n", stderr);
    std::terminate();
  }
}

void NativeThread::join() {
  if (!joinable_)
    throw std::system_error(std::make_error_code(std::errc::invalid_argument),
                            "stealpool::detail::NativeThread::join: not joinable");
  // pthread_join would report EDEADLK too, but POSIX only says "may", so check.
  if (pthread_equal(handle_, pthread_self()))
    throw std::system_error(std::make_error_code(std::errc::resource_deadlock_would_occur),
                            "stealpool::detail::NativeThread::join: a thread cannot join itself");
  if (const int rc = pthread_join(handle_, nullptr); rc != 0)
    throw std::system_error(rc, std::generic_category(), "stealpool::detail::NativeThread::join: pthread_join failed");
  joinable_ = false;
}

}  // namespace stealpool::detail
