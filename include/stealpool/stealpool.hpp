// stealpool/stealpool.hpp: the umbrella header. Includes every public part.
#pragma once

#include "stealpool/affinity.hpp"
#include "stealpool/executor.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/executor_handle.hpp"
#include "stealpool/cpu_count.hpp"
#include "stealpool/forkjoin.hpp"
#include "stealpool/thread_options.hpp"
#include "stealpool/metrics.hpp"
#include "stealpool/queue/chase_lev_deque.hpp"
#include "stealpool/queue/injector.hpp"
#include "stealpool/queue/split_deque.hpp"
#include "stealpool/queue/steal.hpp"
#include "stealpool/rng.hpp"
#include "stealpool/worker_ctx.hpp"
#include "stealpool/worker_id.hpp"
#include "stealpool/yield_policy.hpp"
