// file_types.cpp: the type table and TypeFilter (file_types.hpp).
#include "walk/file_types.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace stealscan {
namespace {

// From `rg --type-list` (ripgrep 13.0.0), a selection; keep it sorted by name.
constexpr std::array kTypes = {
  FileType{"asm", "*.S, *.asm, *.s"},
  FileType{"c", "*.[chH], *.[chH].in, *.cats"},
  FileType{"clojure", "*.clj, *.cljc, *.cljs, *.cljx"},
  FileType{"cmake", "*.cmake, CMakeLists.txt"},
  FileType{"config", "*.cfg, *.conf, *.config, *.ini"},
  FileType{"cpp", "*.[ChH], *.[ChH].in, *.[ch]pp, *.[ch]pp.in, *.[ch]xx, *.[ch]xx.in, *.cc, *.cc.in, *.hh, *.hh.in, *.inl"},
  FileType{"csharp", "*.cs"},
  FileType{"css", "*.css, *.scss"},
  FileType{"csv", "*.csv"},
  FileType{"d", "*.d"},
  FileType{"dart", "*.dart"},
  FileType{"diff", "*.diff, *.patch"},
  FileType{"docker", "*Dockerfile*"},
  FileType{"elixir", "*.eex, *.ex, *.exs"},
  FileType{"elm", "*.elm"},
  FileType{"erlang", "*.erl, *.hrl"},
  FileType{"fortran", "*.F, *.F77, *.F90, *.F95, *.f, *.f77, *.f90, *.f95, *.pfo"},
  FileType{"go", "*.go"},
  FileType{"gradle", "*.gradle"},
  FileType{"groovy", "*.gradle, *.groovy"},
  FileType{"h", "*.h, *.hpp"},
  FileType{"haskell", "*.c2hs, *.cpphs, *.hs, *.hsc, *.lhs"},
  FileType{"html", "*.ejs, *.htm, *.html"},
  FileType{"java", "*.java, *.jsp, *.jspx, *.properties"},
  FileType{"jinja", "*.j2, *.jinja, *.jinja2"},
  FileType{"js", "*.js, *.jsx, *.vue"},
  FileType{"json", "*.json, composer.lock"},
  FileType{"jsonl", "*.jsonl"},
  FileType{"julia", "*.jl"},
  FileType{"kotlin", "*.kt, *.kts"},
  FileType{"less", "*.less"},
  FileType{"lock", "*.lock, package-lock.json"},
  FileType{"log", "*.log"},
  FileType{"lua", "*.lua"},
  FileType{"make", "*.mak, *.mk, [Gg][Nn][Uu]makefile, [Gg][Nn][Uu]makefile.am, [Gg][Nn][Uu]makefile.in, [Mm]akefile, [Mm]akefile.am, [Mm]akefile.in"},
  FileType{"markdown", "*.markdown, *.md, *.mdown, *.mkdn"},
  FileType{"md", "*.markdown, *.md, *.mdown, *.mkdn"},
  FileType{"nix", "*.nix"},
  FileType{"objc", "*.h, *.m"},
  FileType{"objcpp", "*.h, *.mm"},
  FileType{"ocaml", "*.ml, *.mli, *.mll, *.mly"},
  FileType{"perl", "*.PL, *.perl, *.pl, *.plh, *.plx, *.pm, *.t"},
  FileType{"php", "*.php, *.php3, *.php4, *.php5, *.phtml"},
  FileType{"protobuf", "*.proto"},
  FileType{"py", "*.py"},
  FileType{"r", "*.R, *.Rmd, *.Rnw, *.r"},
  FileType{"rst", "*.rst"},
  FileType{"ruby", "*.gemspec, *.rb, *.rbw, .irbrc, Gemfile, Rakefile, config.ru"},
  FileType{"rust", "*.rs"},
  FileType{"sass", "*.sass, *.scss"},
  FileType{"scala", "*.sbt, *.scala"},
  FileType{"sh", "*.bash, *.bashrc, *.csh, *.cshrc, *.ksh, *.kshrc, *.sh, *.tcsh, *.zsh, .bash_login, .bash_logout, .bash_profile, .bashrc, .cshrc, .kshrc, .login, .logout, .profile, .tcshrc, .zlogin, .zlogout, .zprofile, .zshenv, .zshrc, bash_login, bash_logout, bash_profile, bashrc, profile, zlogin, zlogout, zprofile, zshenv, zshrc"},
  FileType{"sql", "*.psql, *.sql"},
  FileType{"svg", "*.svg"},
  FileType{"swift", "*.swift"},
  FileType{"tex", "*.bib, *.cls, *.dtx, *.ins, *.ltx, *.sty, *.tex"},
  FileType{"toml", "*.toml, Cargo.lock"},
  FileType{"ts", "*.ts, *.tsx"},
  FileType{"txt", "*.txt"},
  FileType{"vim", "*.vim"},
  FileType{"xml", "*.dtd, *.rng, *.sch, *.xhtml, *.xjb, *.xml, *.xml.dist, *.xsd, *.xsl, *.xslt"},
  FileType{"yaml", "*.yaml, *.yml"},
  FileType{"zig", "*.zig"},
};

}  // namespace

std::span<const FileType> file_types() { return kTypes; }

const FileType* find_file_type(std::string_view name) {
  const auto it = std::lower_bound(kTypes.begin(), kTypes.end(), name,
                                   [](const FileType& t, std::string_view n) { return t.name < n; });
  return it != kTypes.end() && it->name == name ? &*it : nullptr;
}

std::string type_list() {
  std::string out;
  for (const FileType& t : kTypes) {
    out.append(t.name);
    out.append(": ");
    out.append(t.globs);
    out.push_back('\n');
  }
  return out;
}

TypeFilter::TypeFilter(const std::vector<std::string>& selected, const std::vector<std::string>& excluded) {
  for (const std::string& name : selected) add(name, false);
  for (const std::string& name : excluded) add(name, true);
  any_selected_ = !selected.empty();
}

void TypeFilter::add(std::string_view name, bool excluded) {
  const FileType* type = find_file_type(name);
  if (type == nullptr) throw std::invalid_argument("unknown type '" + std::string(name) + "' (see --type-list)");
  for (std::string_view globs = type->globs; !globs.empty();) {
    const std::size_t comma = globs.find(", ");
    globs_.push_back(TypeGlob{Glob(globs.substr(0, comma)), excluded});
    globs.remove_prefix(comma == std::string_view::npos ? globs.size() : comma + 2);
  }
}

IgnoreVerdict TypeFilter::verdict(std::string_view name, bool is_dir) const {
  if (is_dir || globs_.empty()) return IgnoreVerdict::none;
  for (auto it = globs_.rbegin(); it != globs_.rend(); ++it)
    if (it->glob.matches(name)) return it->excluded ? IgnoreVerdict::ignore : IgnoreVerdict::keep;
  return any_selected_ ? IgnoreVerdict::ignore : IgnoreVerdict::none;
}

}  // namespace stealscan
