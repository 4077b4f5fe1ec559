// stealpool/algorithms.hpp: parallel loops (parallel_for, parallel_for_range,
// parallel_reduce, parallel_invoke) and their partitioners.
#pragma once

#include "stealpool/algorithms/parallel_for.hpp"
#include "stealpool/algorithms/partitioners.hpp"
#include "stealpool/algorithms/work_stealing_range.hpp"
