// stealpool/forkjoin.hpp: fork-join parallelism: ThreadPool, join(), TaskGroup,
// default_pool(). See forkjoin/README.md for how it works and what it costs.
#pragma once

#include "stealpool/forkjoin/pool_options.hpp"
#include "stealpool/forkjoin/task_group.hpp"
#include "stealpool/forkjoin/thread_pool.hpp"
