// git_config.hpp: the one git setting stealscan reads, core.excludesFile, and
// where the global excludes file is (git-config(1), gitignore(5)).
//
// The reader is small and defensive: one pass over the text, linear; it knows
// section headers, `key = value`, quoting and escapes in values, and `#`/`;`
// comments; everything else (includes, subsections, continuations) is skipped.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stealscan {

// The last `excludesFile` value under `[core]` in a git config file's text.
std::optional<std::string> core_excludes_file(std::string_view config);

// The global excludes file: core.excludesFile from $XDG_CONFIG_HOME/git/config
// (default ~/.config/git/config) or ~/.gitconfig (the later wins, as in git),
// with a leading `~/` expanded; else $XDG_CONFIG_HOME/git/ignore (default
// ~/.config/git/ignore). Empty when neither `home` nor `xdg_config_home` is set.
// Reads the config files; `home`, `xdg_config_home` may be null or empty.
std::string global_excludes_path(const char* home, const char* xdg_config_home);

}  // namespace stealscan
