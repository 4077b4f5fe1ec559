// stealpool/worker_id.hpp: which worker, if any, is the calling thread?
//
// Every stealpool worker thread records its index (and which executor it
// belongs to) in a thread-local at start-up; any other thread sees std::nullopt.
// Use it to route to per-worker resources (buffer pools, shards) without passing
// the context around. Cost: one TLS load.
#pragma once

#include <cstddef>
#include <optional>

namespace stealpool {

std::optional<std::size_t> current_worker_id() noexcept;

namespace detail {
// The executor the calling worker thread belongs to (an opaque identity), or
// nullptr on a thread that is not a worker.
const void* current_executor() noexcept;
// Called by the runtime on its worker threads only: at start, and with
// (nullptr, nullopt) at exit.
void set_current_worker(const void* executor, std::optional<std::size_t> id) noexcept;
}  // namespace detail

}  // namespace stealpool
