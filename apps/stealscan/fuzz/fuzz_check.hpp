// fuzz_check.hpp: FUZZ_CHECK(cond), a property of a fuzz target that must hold
// for every input. A failure prints the condition and aborts, which libFuzzer
// reports as a crash with the input that caused it, and which fails the
// corpus replay test (fuzz/README.md).
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                         \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
      std::abort();                                                                              \
    }                                                                                            \
  } while (false)
