// sim/ranks/ranks_main.hpp: `stealpool_sim ranks ...` (ranks_main.cpp).
#pragma once

namespace stealpool::sim::ranks {

// argv[0] is "ranks". Returns the exit status: 0 every invariant held, 1 a
// violation, 2 bad arguments.
int ranks_main(int argc, char** argv);

}  // namespace stealpool::sim::ranks
