// default_rules.hpp: the text of default_rules.toml, embedded at build time
// (CMakeLists.txt generates the .cpp that defines it).
#pragma once

#include <string_view>

namespace stealscan::secrets {
extern const std::string_view kDefaultRulesToml;
}
