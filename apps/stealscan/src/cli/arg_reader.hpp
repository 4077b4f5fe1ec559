// arg_reader.hpp: ArgReader, the walk over a command line that both parsers
// (cli.cpp, secrets/secrets_cli.cpp) share: operands are set aside, "--" ends
// the options, "--name=value" and a short option glued to its value ("-j4")
// are split. Each parser keeps its own table of what the names mean.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stealscan {

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class ArgReader {
 public:
  // `short_with_value`: the letters of the short options that take a value.
  ArgReader(const std::vector<std::string>& args, std::string_view short_with_value)
      : args_(args), short_with_value_(short_with_value) {}

  // Moves to the next option, appending the operands passed on the way to
  // `operands`; false when the arguments are done.
  bool next(std::vector<std::string>& operands) {
    for (++i_; i_ < args_.size(); ++i_) {
      const std::string& a = args_[i_];
      if (options_done_ || a.size() < 2 || a[0] != '-') {
        operands.push_back(a);
      } else if (a == "--") {
        options_done_ = true;
      } else {
        split(a);
        return true;
      }
    }
    return false;
  }

  [[nodiscard]] const std::string& arg() const { return args_[i_]; }  // as given
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] std::size_t index() const noexcept { return i_; }

  // The option's value: glued to it, or the next argument.
  std::string value() {
    if (glued_) return *glued_;
    if (i_ + 1 >= args_.size()) throw UsageError("option " + name_ + " needs a value");
    return args_[++i_];
  }
  // For an option without a value: refuses "--flag=x".
  void flag() const {
    if (glued_) throw UsageError("option " + name_ + " takes no value (got '" + *glued_ + "')");
  }

 private:
  void split(const std::string& a) {
    name_ = a;
    glued_.reset();
    if (a.rfind("--", 0) == 0) {
      const std::size_t eq = a.find('=');
      if (eq != std::string::npos) {
        name_ = a.substr(0, eq);
        glued_ = a.substr(eq + 1);
      }
    } else if (a.size() > 2 && short_with_value_.find(a[1]) != std::string_view::npos) {
      name_ = a.substr(0, 2);  // "-j4", "-A2", "-efoo": a short option and its value
      glued_ = a.substr(2);
    }
  }

  const std::vector<std::string>& args_;
  std::string_view short_with_value_;
  std::size_t i_ = static_cast<std::size_t>(-1);
  bool options_done_ = false;
  std::string name_;
  std::optional<std::string> glued_;
};

}  // namespace stealscan
