// line_index.hpp: LineIndex, byte offset -> (line, column) in a file's bytes,
// both from 1. Built on the first question (most files have no finding, and
// pay nothing), then a binary search over the newline offsets: every question
// costs O(log lines), however long the line, so a line of many findings is
// linear in them (README.md, "Long lines"). InlineAllows: which lines hold an
// inline allow, each line searched once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace stealscan::secrets {

class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : text_(text) {}

  struct Position {
    std::uint64_t line;
    std::uint64_t column;
  };
  [[nodiscard]] Position at(std::size_t offset) {
    const std::size_t start = line_start(offset);
    return {line_number_ + 1, offset - start + 1};
  }
  // The whole lines holding [begin, end): from the start of begin's line to the
  // end of the line holding end - 1 (its newline excluded).
  [[nodiscard]] std::string_view lines(std::size_t begin, std::size_t end) {
    const std::size_t first = line_start(begin);
    return text_.substr(first, line_end(end > begin ? end - 1 : begin) - first);
  }
  // The numbers (from 0) of the first and last lines holding [begin, end).
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> line_numbers(std::size_t begin, std::size_t end) {
    (void)line_start(begin);
    const std::uint64_t first = line_number_;
    (void)line_start(end > begin ? end - 1 : begin);
    return {first, line_number_};
  }
  // Line `k` (from 0), its newline excluded.
  [[nodiscard]] std::string_view line(std::uint64_t k) {
    if (!built_) build();
    const std::size_t start = k == 0 ? 0 : newlines_[k - 1] + 1;
    const std::size_t stop = k < newlines_.size() ? newlines_[k] : text_.size();
    return text_.substr(start, stop - start);
  }
  [[nodiscard]] std::uint64_t line_count() {
    if (!built_) build();
    return newlines_.size() + 1;
  }

 private:
  // The offset where the line holding `offset` starts; sets line_number_ (from 0).
  std::size_t line_start(std::size_t offset) {
    if (!built_) build();
    // The newlines strictly before `offset`.
    const auto before = std::lower_bound(newlines_.begin(), newlines_.end(), offset);
    line_number_ = static_cast<std::uint64_t>(before - newlines_.begin());
    return before == newlines_.begin() ? 0 : *(before - 1) + 1;
  }
  // Where the line holding `offset` ends: its newline, or the text's end.
  std::size_t line_end(std::size_t offset) {
    if (!built_) build();
    const auto nl = std::lower_bound(newlines_.begin(), newlines_.end(), offset);
    return nl == newlines_.end() ? text_.size() : *nl;
  }
  void build() {
    built_ = true;
    for (const char* p = text_.data(), *end = p + text_.size();;) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
      if (nl == nullptr) break;
      const char* at = static_cast<const char*>(nl);
      newlines_.push_back(static_cast<std::size_t>(at - text_.data()));
      p = at + 1;
    }
  }

  std::string_view text_;
  bool built_ = false;
  std::vector<std::size_t> newlines_;
  std::uint64_t line_number_ = 0;
};

// Whether the lines holding a match hold an inline allow ("stealscan:allow",
// "gitleaks:allow"), each line searched once per text, on the first question
// about it: a long line of many matches is not searched again for each.
class InlineAllows {
 public:
  explicit InlineAllows(LineIndex& lines) : lines_(lines) {}
  [[nodiscard]] LineIndex& lines() noexcept { return lines_; }
  [[nodiscard]] bool any(std::size_t begin, std::size_t end) {
    const auto [first, last] = lines_.line_numbers(begin, end);
    if (known_.empty()) known_.assign(lines_.line_count(), kUnknown);
    for (std::uint64_t k = first; k <= last; ++k) {
      if (known_[k] == kUnknown) {
        const std::string_view l = lines_.line(k);
        known_[k] = l.find("stealscan:allow") != std::string_view::npos ||
                            l.find("gitleaks:allow") != std::string_view::npos
                        ? kYes
                        : kNo;
      }
      if (known_[k] == kYes) return true;
    }
    return false;
  }

 private:
  static constexpr std::uint8_t kUnknown = 0, kNo = 1, kYes = 2;
  LineIndex& lines_;
  std::vector<std::uint8_t> known_;  // per line, sized on the first question
};

}  // namespace stealscan::secrets
