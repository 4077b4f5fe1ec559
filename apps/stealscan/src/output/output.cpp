// output.cpp: Stdout, WorkerOutput, HitFormat (output.hpp).
#include "output/output.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include "sources/read_all.hpp"
#include "sources/utf8.hpp"

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

// The characters of `s` (valid UTF-8) as a JSON string's body: quotes,
// backslashes and control bytes escaped. `serde`: as ripgrep (serde_json)
// writes them, \n \t \r \b \f short and DEL as it is; else every control
// byte and DEL as \u00XX.
void append_escaped(std::string& out, std::string_view s, bool serde) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
      continue;
    }
    if (serde) {
      const char* brief = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : nullptr;
      if (brief != nullptr) {
        out.append(brief);
        continue;
      }
    }
    if (c < 0x20 || (c == 0x7f && !serde)) {
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(ch);  // ASCII, or a byte of valid UTF-8 (the caller checked)
    }
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  append_escaped(out, s, false);
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
  if (is_utf8(s)) return std::string(s);
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
  if (is_utf8(s)) {
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

namespace {

// ripgrep's arbitrary data: {"text":...} when valid UTF-8, else
// {"bytes":BASE64}; with `newline`, the data is `s` and a '\n' after it.
void append_rg_data(std::string& out, std::string_view s, bool newline = false) {
  if (is_utf8(s)) {  // so is s + '\n'
    out.append("{\"text\":\"");
    append_escaped(out, s, true);
    out.append(newline ? "\\n\"}" : "\"}");
    return;
  }
  out.append("{\"bytes\":\"");
  if (newline) {
    std::string with_nl(s);  // rare: a line that is not UTF-8
    with_nl.push_back('\n');
    append_base64(out, with_nl);
  } else {
    append_base64(out, s);
  }
  out.append("\"}");
}

// {"secs":S,"nanos":N,"human":"0.000017s"} (or in the summary's key order).
void append_duration(std::string& out, std::uint64_t ns, bool sorted_keys) {
  char human[48];
  std::snprintf(human, sizeof human, "%.6fs", static_cast<double>(ns) / 1e9);
  const auto secs = ns / 1000000000u, nanos = ns % 1000000000u;
  if (sorted_keys) {
    out.append("{\"human\":\"").append(human).append("\",\"nanos\":");
    append_number(out, nanos);
    out.append(",\"secs\":");
    append_number(out, secs);
  } else {
    out.append("{\"secs\":");
    append_number(out, secs);
    out.append(",\"nanos\":");
    append_number(out, nanos);
    out.append(",\"human\":\"").append(human).append("\"");
  }
  out.push_back('}');
}

}  // namespace

void HitFormat::hit(WorkerOutput& out, std::string_view path, int fd, const HitView& h, JsonFile* file) const {
  if (mode_ == OutputMode::json) {
    std::string& b = out.buffer();
    const std::size_t before = b.size();
    if (!file->begun) {
      file->begun = true;
      b.append("{\"type\":\"begin\",\"data\":{\"path\":");
      append_rg_data(b, path);
      b.append("}}\n");
    }
    b.append(h.context ? "{\"type\":\"context\",\"data\":{\"path\":" : "{\"type\":\"match\",\"data\":{\"path\":");
    append_rg_data(b, path);
    b.append(",\"lines\":");
    const std::string_view line(h.text, h.length);
    append_rg_data(b, line, h.newline);  // the line as ripgrep gives it, with its '\n'
    b.append(",\"line_number\":");
    append_number(b, h.line_number);
    b.append(",\"absolute_offset\":");
    append_number(b, h.offset);
    b.append(",\"submatches\":[");
    for (std::size_t k = 0; k < h.matches.size(); ++k) {
      const MatchColumn& m = h.matches[k];
      if (k > 0) b.push_back(',');
      b.append("{\"match\":");
      append_rg_data(b, line.substr(m.column, m.length));
      b.append(",\"start\":");
      append_number(b, m.column);
      b.append(",\"end\":");
      append_number(b, m.column + m.length);
      b.push_back('}');
    }
    b.append("]}}\n");
    file->matches += h.matches.size();
    file->printed += b.size() - before;
    out.end_of_record();
    return;
  }
  if (mode_ == OutputMode::json_matches) {
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

void HitFormat::json_end(WorkerOutput& out, std::string_view path, JsonFile& file, std::uint64_t bytes_searched,
                         std::uint64_t matched_lines, Tally& tally) const {
  if (!file.begun) return;
  const auto ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - file.start).count());
  std::string& b = out.buffer();
  b.append("{\"type\":\"end\",\"data\":{\"path\":");
  append_rg_data(b, path);
  b.append(",\"binary_offset\":null,\"stats\":{\"elapsed\":");
  append_duration(b, ns, false);
  b.append(",\"searches\":1,\"searches_with_match\":1,\"bytes_searched\":");
  append_number(b, bytes_searched);
  b.append(",\"bytes_printed\":");
  append_number(b, file.printed);
  b.append(",\"matched_lines\":");
  append_number(b, matched_lines);
  b.append(",\"matches\":");
  append_number(b, file.matches);
  b.append("}}}\n");
  Tally::add(tally.matches, file.matches);
  Tally::add(tally.bytes_printed, file.printed);  // as ripgrep: the file's messages before its "end"
  Tally::add(tally.search_ns, ns);
  Tally::add(tally.matched_bytes, bytes_searched);
  out.end_of_record();
}

std::string json_summary(const Totals& t, double seconds) {
  std::string b = "{\"data\":{\"elapsed_total\":";
  append_duration(b, static_cast<std::uint64_t>(seconds * 1e9), true);
  b.append(",\"stats\":{\"bytes_printed\":");
  append_number(b, t.bytes_printed);
  // As ripgrep's: the figures of the searches that printed messages.
  b.append(",\"bytes_searched\":");
  append_number(b, t.matched_bytes);
  b.append(",\"elapsed\":");
  append_duration(b, t.search_ns, true);
  b.append(",\"matched_lines\":");
  append_number(b, t.matching_lines);
  b.append(",\"matches\":");
  append_number(b, t.matches);
  b.append(",\"searches\":");
  append_number(b, t.matched_files);
  b.append(",\"searches_with_match\":");
  append_number(b, t.matched_files);
  b.append("}},\"type\":\"summary\"}\n");
  return b;
}

void HitFormat::prefix(std::string& b, std::string_view path, std::uint64_t line, char sep) const {
  if (o_.with_filename) b.append(path).push_back(sep);
  if (o_.line_numbers) {
    append_number(b, line);
    b.push_back(sep);
  }
}

}  // namespace stealscan
