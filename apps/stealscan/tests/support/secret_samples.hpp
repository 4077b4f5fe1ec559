// secret_samples.hpp: made-up tokens the built-in rules find, for the secrets
// tests (none is a real credential: each is a pattern cycled to length).
#pragma once

#include <cstddef>
#include <string>

namespace stealscan::test {

// `alphabet` repeated to `n` characters.
inline std::string cyc(const std::string& alphabet, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += alphabet[i % alphabet.size()];
  return s;
}

inline const std::string kAlnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
inline const std::string kGithub = "ghp_" + cyc(kAlnum, 36);  // github-pat
inline const std::string kAws = "AKIA" + cyc("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16);  // aws-access-key-id

}  // namespace stealscan::test
