// A minimal mutex + condition-variable thread pool: the baseline every
// hand-rolled pool starts from. One global queue of typed tasks, one lock.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace stealbench {

template <class T>
class MutexPool {
 public:
  MutexPool(std::size_t workers, std::function<void(T, std::size_t)> run) : run_(std::move(run)) {
    for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this, i] { loop(i); });
  }
  ~MutexPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void submit(T task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(task);
      ++pending_;
    }
    work_cv_.notify_one();
  }

  void submit_batch(std::span<const T> tasks) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.insert(queue_.end(), tasks.begin(), tasks.end());
      pending_ += tasks.size();
    }
    work_cv_.notify_all();
  }

  void wait_idle() {
    std::unique_lock<std::mutex> lock(mu_);
    idle_cv_.wait(lock, [&] { return pending_ == 0; });
  }

 private:
  void loop(std::size_t id) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and drained
      T task = queue_.front();
      queue_.pop_front();
      lock.unlock();
      run_(task, id);
      lock.lock();
      if (--pending_ == 0) idle_cv_.notify_all();
    }
  }

  std::function<void(T, std::size_t)> run_;
  std::mutex mu_;
  std::condition_variable work_cv_, idle_cv_;
  std::deque<T> queue_;
  std::size_t pending_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace stealbench
