// output.cpp: Stdout, WorkerOutput, HitFormat (output.hpp).
#include "output/output.hpp"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include "sources/read_all.hpp"

namespace stealscan {

void Stdout::write_locked(std::string_view bytes) {
  if (capture_ != nullptr) {
    capture_->append(bytes);
    return;
  }
  if (write_all(STDOUT_FILENO, bytes)) return;
  // As grep: an output that cannot be written ends the run (status 2). Exiting
  // here, not throwing, keeps every task's "never throws" promise.
  const std::string msg = std::string("stealscan: writing the output: ") + std::strerror(errno) + "\n";
  (void)write_all(STDERR_FILENO, msg);
  std::_Exit(2);
}

void Stdout::write(std::string_view bytes) {
  std::lock_guard lock(mu_);
  write_locked(bytes);
}

void Stdout::begin_group_locked() {
  if (any_group_) write_locked("--\n");
  any_group_ = true;
}

void WorkerOutput::write_buffer_locked() {
  if (grouped_ && !group_open_) {
    out_->begin_group_locked();
    group_open_ = true;
  }
  out_->write_locked(buf_);
  buf_.clear();
}

void WorkerOutput::flush() {
  if (buf_.empty()) return;
  std::lock_guard lock(out_->mutex());
  write_buffer_locked();
}

void WorkerOutput::append_from_file(int fd, std::uint64_t offset, std::uint64_t length) {
  // A read error or a file that shrank ends the line early: print what is there
  // (the scan already read these bytes once, so this is rare).
  auto read_into = [&](char* dst, std::size_t n, std::uint64_t at) {
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = ::pread(fd, dst + got, n - got, static_cast<off_t>(at + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    return got;
  };
  if (length <= kInlineLine) {
    const std::size_t old = buf_.size();
    buf_.resize(old + length);
    buf_.resize(old + read_into(buf_.data() + old, length, offset));
    return;
  }
  // Too long to buffer: this worker's records so far, then the line, in one
  // critical section, so no other worker's output lands inside the record.
  std::lock_guard lock(out_->mutex());
  write_buffer_locked();
  std::string piece(kInlineLine, '\0');
  while (length > 0) {
    const std::size_t n = length < piece.size() ? static_cast<std::size_t>(length) : piece.size();
    const std::size_t got = read_into(piece.data(), n, offset);
    if (got == 0) break;
    out_->write_locked(std::string_view(piece.data(), got));
    offset += got;
    length -= got;
  }
}

namespace {
void append_number(std::string& out, std::uint64_t n) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, r.ptr);
}
}  // namespace

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  // No overlong forms, no surrogates, nothing past U+10FFFF (RFC 3629).
  if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 > 0x8f))
    return 0;
  for (std::size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  return len;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20 || c == 0x7f) {
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(ch);  // ASCII, or a byte of valid UTF-8 (the caller checked)
    }
  }
  out.push_back('"');
}

void append_base64(std::string& out, std::string_view s) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::size_t i = 0;
  for (; i + 3 <= s.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])) << 16 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + 1])) << 8 |
                            static_cast<unsigned char>(s[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kDigits[(v >> shift) & 63]);
  }
  if (i < s.size()) {
    const bool two = i + 1 < s.size();
    const std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])) << 16 |
                            (two ? static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + 1])) << 8 : 0);
    out.push_back(kDigits[(v >> 18) & 63]);
    out.push_back(kDigits[(v >> 12) & 63]);
    out.push_back(two ? kDigits[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
}

std::string utf8_lossy(std::string_view s) {
  if (valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence(s, i);
    if (len == 0) {
      out.append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

void append_json_bytes(std::string& out, std::string_view s) {
  if (valid_utf8(s)) {
    append_json_string(out, s);
    return;
  }
  out.append("{\"bytes\":\"");
  append_base64(out, s);
  out.append("\"}");
}

void HitFormat::count(WorkerOutput& out, std::string_view path, std::uint64_t n) const {
  std::string& b = out.buffer();
  if (o_.with_filename) b.append(path).push_back(':');
  append_number(b, n);
  b.push_back('\n');
}

void HitFormat::list(WorkerOutput& out, std::string_view path) const {
  out.buffer().append(path).push_back('\n');
}

void HitFormat::hit(WorkerOutput& out, std::string_view path, int fd, const HitView& h) const {
  if (mode_ == OutputMode::json) {
    for (const MatchColumn& m : h.matches) {
      std::string& b = out.buffer();
      b.append("{\"file\":");
      append_json_bytes(b, path);
      b.append(",\"line\":");
      append_number(b, h.line_number);
      b.append(",\"column\":");
      append_number(b, m.column + 1);
      b.append(",\"pattern\":");
      append_json_bytes(b, patterns_->pattern(m.pattern));
      b.append("}\n");
    }
    out.end_of_record();
    return;
  }
  std::string& b = out.buffer();
  if (o_.context && h.gap) b.append("--\n");
  const char sep = h.context ? '-' : ':';
  if (o_.only_matching && !h.context) {
    // -o: each match on its own record (the line is in memory: lines are held
    // whole when matches are printed).
    for (const MatchColumn& m : h.matches) {
      prefix(b, path, h.line_number, sep);
      if (h.text != nullptr) b.append(h.text + m.column, m.length);
      b.push_back('\n');
    }
    out.end_of_record();
    return;
  }
  prefix(b, path, h.line_number, sep);
  if (h.text != nullptr) {
    b.append(h.text, h.length);
  } else {
    out.append_from_file(fd, h.offset, h.length);
  }
  out.buffer().push_back('\n');
  out.end_of_record();
}

void HitFormat::prefix(std::string& b, std::string_view path, std::uint64_t line, char sep) const {
  if (o_.with_filename) b.append(path).push_back(sep);
  if (o_.line_numbers) {
    append_number(b, line);
    b.push_back(sep);
  }
}

}  // namespace stealscan
