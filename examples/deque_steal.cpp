// The queues on their own: one owner works on a ChaseLevDeque while a thief
// steals from the other end. Exits 1 unless every item was taken exactly once.
#include <stealpool/queue/chase_lev_deque.hpp>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

int main() {
  constexpr int kItems = 100000;
  stealpool::ChaseLevDeque<int> deque;  // owner: push/pop at the bottom (LIFO)
  std::vector<std::atomic<int>> taken(kItems);
  std::atomic<bool> done{false};
  std::atomic<int> stolen{0};
  std::atomic<bool> thief_ready{false};

  std::thread thief([&] {  // any thread: steal at the top (FIFO)
    thief_ready = true;
    while (!done.load()) {
      stealpool::Steal<int> s = deque.steal();
      if (s.is_success()) {  // empty / retry say exactly what happened
        taken[s.value()].fetch_add(1);
        stolen.fetch_add(1);
      }
    }
  });
  while (!thief_ready.load()) std::this_thread::yield();
  for (int i = 0; i < kItems; ++i) {
    deque.push(i);
    if (i % 2 == 1)  // pop every other step: the deque stays near empty
      if (auto item = deque.pop()) taken[*item].fetch_add(1);
  }
  while (auto item = deque.pop()) taken[*item].fetch_add(1);
  done = true;
  thief.join();

  for (int i = 0; i < kItems; ++i)
    if (taken[i].load() != 1) {
      std::printf("item %d taken %d times\n", i, taken[i].load());
      return 1;
    }
  std::printf("%d items, each taken once; %d by the thief\n", kItems, stolen.load());
  return 0;
}
