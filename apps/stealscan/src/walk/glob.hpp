// glob.hpp: Glob, a compiled wildcard pattern of .gitignore files and -g globs
// (git's wildmatch with WM_PATHNAME, the subset gitignore(5) documents):
//   *        any run of bytes but '/'
//   ?        one byte but '/'
//   [abc] [a-z] [!a-z] [^a-z]   one byte of (not of) the set, never '/'
//   \x       x itself
//   **/      at the start or after '/': zero or more whole directories
//   /**      at the end: everything inside
//   a**b     (not a whole segment) two plain stars
// An unterminated '[' matches itself.
//
// Cost: compiling is linear in the pattern; matching is O(pattern × text) in the
// worst case and never exponential (walk/README.md, "Globs in linear time"): the
// pattern is run as a set of positions over the text, not by backtracking. A
// pattern without wildcards, or a star followed by plain bytes (`*.log`), is
// compared directly.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stealscan {

class Glob {
 public:
  // `ignore_case`: ASCII letters match either case (--iglob).
  explicit Glob(std::string_view pattern, bool ignore_case = false);

  [[nodiscard]] bool matches(std::string_view text) const;

  // Whether the pattern has a '[' with no closing ']' (then it is a literal '[';
  // -g refuses such a glob, as ripgrep does).
  [[nodiscard]] bool has_unterminated_class() const noexcept { return unterminated_class_; }

 private:
  enum class Kind : std::uint8_t {
    byte,         // one given byte
    any,          // '?': one byte but '/'
    set,          // '[...]': one byte of sets_[arg], never '/'
    star,         // '*': a run of bytes but '/'
    dirs,         // '**/': nothing, or anything ending in '/'
    everything,   // a final '**' segment: the rest, whatever it is
  };
  struct Token {
    Kind kind;
    unsigned char arg;  // the byte (byte), the index into sets_ (set)
  };
  enum class Shape : std::uint8_t { literal, star_suffix, general };

  void compile(std::string_view p);
  std::size_t parse_set(std::string_view p, std::size_t i);  // returns past ']', or 0 if unterminated
  [[nodiscard]] bool run(std::string_view text) const;
  [[nodiscard]] bool same_byte(unsigned char want, unsigned char got) const noexcept;
  [[nodiscard]] bool equal_bytes(std::string_view a, std::string_view b) const noexcept;

  std::vector<Token> tokens_;
  std::vector<std::bitset<256>> sets_;
  std::string literal_;  // the bytes after the star (star_suffix), or the whole text (literal)
  Shape shape_ = Shape::general;
  bool ignore_case_ = false;
  bool unterminated_class_ = false;
};

// Glob(pattern).matches(text): for tests and one-off matches.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace stealscan
