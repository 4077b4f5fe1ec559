// check_rules.hpp: check_rules_main(), `stealscan secrets --check-rules FILE`:
// each rule of FILE (gitleaks' TOML, Nosey Parker's or Kingfisher's YAML)
// run on its own examples, each of which it must find, and on its negative
// examples, none of which it may find; the rules alone, without decoding.
#pragma once

#include <ostream>
#include <string>

#include "output/diagnostics.hpp"

namespace stealscan::secrets {

// Prints each failure on `out` ("ID: example 2 is not found: TEXT"), then a
// summary on `diag`. Returns 0 when every example behaves, 1 when one does
// not, 2 when FILE cannot be loaded.
int check_rules_main(const std::string& path, std::ostream& out, Diagnostics& diag);

}  // namespace stealscan::secrets
