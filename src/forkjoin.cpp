#include "stealpool/forkjoin.hpp"

namespace stealpool {

ThreadPool& default_pool() {
  // Created on first use (C++ guarantees one thread builds it); destroyed at
  // exit, after main returns, when its workers are idle and parked.
  static ThreadPool pool;
  return pool;
}

namespace detail {

ThreadPool*& guest_pool_slot() noexcept {
  thread_local ThreadPool* guest = nullptr;
  return guest;
}

}  // namespace detail

}  // namespace stealpool
