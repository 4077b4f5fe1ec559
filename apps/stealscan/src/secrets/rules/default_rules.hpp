// default_rules.hpp: the built-in rule files (builtin/*.toml), embedded at
// build time (CMakeLists.txt generates the .cpp that defines them), in name
// order.
#pragma once

#include <span>
#include <string_view>

namespace stealscan::secrets {

struct BuiltinRuleFile {
  std::string_view family;  // the file's name without .toml
  std::string_view toml;
};

extern const std::span<const BuiltinRuleFile> kBuiltinRuleFiles;

}  // namespace stealscan::secrets
