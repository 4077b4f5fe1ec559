// regex_rewrite.cpp: rewrite_for_re2() (regex_rewrite.hpp).
#include "secrets/rules/regex_rewrite.hpp"

#include <vector>

namespace stealscan::secrets {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_flag(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'; }

// One pass, left to right. `verbose` is the x flag where the scan is; each
// open group saves the flag its enclosing group had, restored at its `)`.
class Rewriter {
 public:
  explicit Rewriter(std::string_view p) : p_(p) {}

  std::string run() {
    while (at_ < p_.size()) {
      if (in_class_) {
        in_class();
      } else {
        outside();
      }
    }
    return out_;
  }

 private:
  // Skips a comment from '#' to the end of its line.
  void skip_comment() {
    while (at_ < p_.size() && p_[at_] != '\n') ++at_;
  }

  // An escape: kept, but for an escaped space or '#', which verbose mode
  // needed and plain syntax does not (RE2 refuses `\ `).
  void escape() {
    if (at_ + 1 >= p_.size()) {
      out_.push_back(p_[at_++]);
      return;
    }
    const char next = p_[at_ + 1];
    if (is_space(next) || next == '#') {
      if (next == ' ') out_ += "\\x20";
      else if (next == '#') out_.push_back('#');
      else out_.append(next == '\t' ? "\\t" : next == '\n' ? "\\n" : next == '\r' ? "\\r" : next == '\f' ? "\\f" : "\\v");
    } else {
      out_.push_back('\\');
      out_.push_back(next);
    }
    at_ += 2;
  }

  // What reads the same in a class and outside one: an escape, and in
  // verbose mode whitespace and a comment. False if `c` is none of those.
  bool common(char c) {
    if (c == '\\') {
      escape();
    } else if (verbose_ && is_space(c)) {
      ++at_;
    } else if (verbose_ && c == '#') {
      skip_comment();
    } else {
      return false;
    }
    return true;
  }

  void in_class() {
    const char c = p_[at_];
    if (common(c)) {  // consumed
    } else if (c == '[' && at_ + 1 < p_.size() && p_[at_ + 1] == ':') {  // [:alpha:]
      const std::size_t end = p_.find(":]", at_ + 2);
      const std::size_t stop = end == std::string_view::npos ? p_.size() : end + 2;
      out_.append(p_.substr(at_, stop - at_));
      at_ = stop;
    } else {
      out_.push_back(c);
      ++at_;
      if (c == ']' && !class_start_) in_class_ = false;
    }
    class_start_ = false;
  }

  void outside() {
    const char c = p_[at_];
    if (common(c)) {
      return;
    }
    if (c == '[') {
      out_.push_back(c);
      ++at_;
      if (at_ < p_.size() && p_[at_] == '^') out_.push_back(p_[at_++]);
      in_class_ = true;
      class_start_ = true;  // a ']' first is a literal
    } else if (c == '(') {
      group();
    } else if (c == ')') {
      out_.push_back(c);
      ++at_;
      if (!saved_.empty()) {
        verbose_ = saved_.back();
        saved_.pop_back();
      }
    } else {
      out_.push_back(c);
      ++at_;
    }
  }

  // At a '(': a comment, a flag group, a named group, or any other group.
  void group() {
    const std::string_view rest = p_.substr(at_);
    if (rest.substr(0, 3) == "(?#") {  // a comment: to its ')'
      const std::size_t end = p_.find(')', at_);
      at_ = end == std::string_view::npos ? p_.size() : end + 1;
      return;
    }
    if (rest.substr(0, 3) == "(?<" && rest.size() > 3 && rest[3] != '=' && rest[3] != '!') {
      out_ += "(?P<";  // (?<name>...)
      at_ += 3;
      saved_.push_back(verbose_);
      return;
    }
    if (rest.substr(0, 2) == "(?" && rest.size() > 2 && is_flag(rest[2])) {
      std::size_t k = 2;
      while (k < rest.size() && is_flag(rest[k])) ++k;
      if (k < rest.size() && (rest[k] == ')' || rest[k] == ':')) {
        flags(rest.substr(2, k - 2), rest[k] == ':');
        at_ += k + 1;
        return;
      }
    }
    out_.push_back('(');
    ++at_;
    saved_.push_back(verbose_);
  }

  // `(?flags)` (scoped: false) or `(?flags:` (a group): written without x,
  // which sets or clears verbose mode for the rest of the enclosing group,
  // or for this group.
  void flags(std::string_view f, bool scoped) {
    std::string kept;
    bool on = true;
    bool verbose = verbose_;
    for (const char c : f) {
      if (c == '-') {
        on = false;
        kept.push_back(c);
      } else if (c == 'x') {
        verbose = on;
      } else {
        kept.push_back(c);
      }
    }
    if (!kept.empty() && kept.back() == '-') kept.pop_back();  // "(?x-)" or "(?-x)" leave a bare '-'
    if (scoped) {
      out_ += kept.empty() ? "(?:" : "(?" + kept + ":";
      saved_.push_back(verbose_);
    } else if (!kept.empty()) {
      out_ += "(?" + kept + ")";
    }
    verbose_ = verbose;
  }

  std::string_view p_;
  std::size_t at_ = 0;
  std::string out_;
  bool verbose_ = false;
  bool in_class_ = false;
  bool class_start_ = false;
  std::vector<bool> saved_;  // per open group, the x flag outside it
};

}  // namespace

std::string rewrite_for_re2(std::string_view pattern) { return Rewriter(pattern).run(); }

}  // namespace stealscan::secrets
