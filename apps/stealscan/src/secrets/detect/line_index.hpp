// line_index.hpp: LineIndex, byte offset -> (line, column) in a file's bytes,
// both from 1. Built on the first question (most files have no finding, and
// pay nothing), then a binary search over the newline offsets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
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
    const std::size_t last = end > begin ? end - 1 : begin;
    const std::size_t stop = std::min(text_.find('\n', last), text_.size());
    return text_.substr(first, stop - first);
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

}  // namespace stealscan::secrets
