#include "stealpool/worker_id.hpp"

namespace stealpool {
namespace {
thread_local std::optional<std::size_t> t_worker_id;
thread_local const void* t_executor = nullptr;
}  // namespace

std::optional<std::size_t> current_worker_id() noexcept { return t_worker_id; }

namespace detail {
const void* current_executor() noexcept { return t_executor; }
void set_current_worker(const void* executor, std::optional<std::size_t> id) noexcept {
  t_executor = executor;
  t_worker_id = id;
}
}  // namespace detail

}  // namespace stealpool
