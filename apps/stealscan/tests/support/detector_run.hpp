// detector_run.hpp: the secrets unit tests' way into the Detector: a rule set
// from a TOML text (nothing merged into it), and a text's findings.
#pragma once

#include <string>
#include <vector>

#include "secrets/detect/detector.hpp"
#include "secrets/rules/config_loader.hpp"

namespace stealscan::secrets {

// The rules of `toml` alone (not extending the built-in ones).
inline RuleSet rules_from(const std::string& toml) {
  return resolve_config(parse_config(toml, "test.toml"), RuleSet{});
}

// The findings of `d` in `text`, a file shown as `path`, with a fresh scratch.
// A finding points at its rule, which lives in `d`.
inline std::vector<Finding> findings_in(const Detector& d, const std::string& text,
                                        const std::string& path = "f.txt") {
  Detector::Scratch s(d);
  std::vector<Finding> out;
  d.scan(path, text, s, out);
  return out;
}

}  // namespace stealscan::secrets
