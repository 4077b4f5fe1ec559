// The README's fork-join example: fib with a join at every call, a TaskGroup,
// and pool options. Built and run by the tests.
#include <stealpool/stealpool.hpp>

#include <cstdio>
#include <vector>

long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = stealpool::join([&] { return fib(n - 1); },   // runs here, now
                                [&] { return fib(n - 2); });  // pushed: popped back or stolen
  return a + b;
}

int main() {
  stealpool::PoolOptions opts;                  // available_parallelism() workers
  opts.threads.name = "fib";                    // threads fib-0, fib-1, ...
  stealpool::ThreadPool pool(opts);

  long f = pool.run([] { return fib(30); });    // on a worker; the caller blocks

  std::vector<long> out(8);
  pool.run([&] {
    stealpool::TaskGroup tg;                    // the current worker's pool
    for (int i = 0; i < 8; ++i) tg.spawn([&out, i] { out[i] = fib(20 + i); });
    tg.wait();                                  // helps; rethrows a task's exception
  });
  std::printf("fib(30) = %ld, fib(27) = %ld, %zu workers\n", f, out[7], pool.workers());
  return f == 832040 && out[7] == 196418 ? 0 : 1;
}
