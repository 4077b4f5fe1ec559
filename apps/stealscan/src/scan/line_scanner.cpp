// line_scanner.cpp: scan_lines() (line_scanner.hpp; the rules: docs/design.md, "Chunk
// protocol"). One RangeScan per call: it walks the range's lines through the
// window, block by block of complete lines, and falls into long_line() for a line
// longer than the window.
#include "scan/line_scanner.hpp"

#include <cstring>

namespace stealscan {

std::uint64_t count_newlines(const char* begin, const char* end) noexcept {
  // Eight bytes at a time: a byte of x is 0 exactly where the input held '\n';
  // t gets 0x80 in exactly those bytes (no borrow crosses bytes, unlike the
  // shorter has-zero trick).
  constexpr std::uint64_t kNl = 0x0a0a0a0a0a0a0a0aull, kLow7 = 0x7f7f7f7f7f7f7f7full;
  std::uint64_t n = 0;
  const char* p = begin;
  for (; end - p >= 8; p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    const std::uint64_t x = w ^ kNl;
    const std::uint64_t t = ~(((x & kLow7) + kLow7) | x | kLow7);
    n += static_cast<std::uint64_t>(__builtin_popcountll(t));
  }
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

namespace {

class RangeScan {
 public:
  RangeScan(const Matcher& m, const ScanOptions& o, ScanWindow& w, ByteSource& src, ScanRange r, LineSink* sink,
            LineScratch& scratch)
      : m_(m), o_(o), w_(w), src_(src), r_(r), sink_(sink), scratch_(scratch) {
    const auto max = m.max_match_length();
    // Literals: a long line is searched in overlapping windows. Not when every line
    // is looked at or matches are printed, nor when a printed line could not be
    // read back (a stream): then lines are held whole.
    long_lines_ = max.has_value() && !o.line_by_line() && !o.only_matching && !o.whole_lines &&
                  (o.rereadable || o.mode != ScanMode::lines);
    scratch_.before.clear();
    scratch_.before_next = 0;
    overlap_ = max && *max > 0 ? *max - 1 : 0;
    tail_step_ = w.block() < ScanWindow::kTailRead ? w.block() : ScanWindow::kTailRead;
  }

  ScanResult run(bool loaded) {
    if (o_.max_count == 0) return result_;
    std::uint64_t pos = 0;
    if (!first_line_start(loaded, &pos)) return result_;
    while (pos < r_.end && !stopped_) {
      std::size_t i = static_cast<std::size_t>(pos - w_.offset());
      if (i == w_.size()) {
        if (w_.eof()) break;
        read(i);
        continue;
      }
      char* d = w_.data();
      // Bytes before no_newline_until_ were searched already (a long partial line
      // is read block after block): search only the new ones, or a line of n
      // bytes would cost n^2 / block.
      std::size_t look = i;
      if (no_newline_until_ > w_.offset() + i) look = static_cast<std::size_t>(no_newline_until_ - w_.offset());
      const auto* nl = static_cast<const char*>(memrchr(d + look, '\n', w_.size() - look));
      if (nl == nullptr) {  // [i, size) is part of one line
        no_newline_until_ = w_.offset() + w_.size();
        if (w_.eof()) {     // the last line, without '\n'
          block(i, w_.size(), false);
          break;
        }
        if (long_lines_ && w_.size() - i >= w_.block()) {
          pos = long_line(i);
        } else {
          read(i);  // keep the partial line, append (a regex window grows)
        }
        continue;
      }
      std::size_t e = static_cast<std::size_t>(nl - d) + 1;
      bool last = false;
      if (w_.offset() + e > r_.end) {
        // Lines starting at or after `end` belong to the next chunk: cut after the
        // line holding byte end - 1 (its '\n' is in the window: d[e - 1] is one).
        const std::size_t oe = static_cast<std::size_t>(r_.end - w_.offset());
        const auto* cut = static_cast<const char*>(std::memchr(d + oe - 1, '\n', e - (oe - 1)));
        e = static_cast<std::size_t>(cut - d) + 1;
        last = true;
      }
      block(i, e, true);
      pos = w_.offset() + e;
      if (last) break;
    }
    return result_;
  }

 private:
  // Positions the window at the first line that starts in [begin, end); false if
  // none does. A chunk reads from begin - 1 and looks for a '\n' at positions
  // begin - 1 .. end - 2 only: a line starting later is not ours, and a line with
  // no '\n' there is the previous chunk's to finish (not read twice).
  bool first_line_start(bool loaded, std::uint64_t* start) {
    if (r_.begin == 0) {
      if (!loaded) w_.reset(0);
      *start = 0;
      return true;
    }
    w_.reset(r_.begin - 1);
    const std::uint64_t stop = r_.end - 1;  // look at positions < stop
    std::uint64_t at = r_.begin - 1;
    while (at < stop) {
      if (at == w_.offset() + w_.size()) {
        if (w_.eof()) return false;
        read(w_.size());
        continue;
      }
      const std::size_t i = static_cast<std::size_t>(at - w_.offset());
      std::size_t lim = w_.size();
      if (w_.offset() + lim > stop) lim = static_cast<std::size_t>(stop - w_.offset());
      const auto* nl = static_cast<const char*>(std::memchr(w_.data() + i, '\n', lim - i));
      if (nl != nullptr) {
        *start = w_.offset() + static_cast<std::uint64_t>(nl - w_.data()) + 1;
        return true;
      }
      at = w_.offset() + lim;
    }
    return false;
  }

  // Reads the next bytes, dropping data()[0, keep). Up to the owned end: a block
  // (or the rest, when little is left); past it, only to finish the last line:
  // small reads, doubling up to a block.
  void read(std::size_t keep) {
    const std::uint64_t cur = w_.offset() + w_.size();
    std::size_t n = w_.block();
    if (cur < r_.end) {
      const std::uint64_t left = r_.end - cur;
      if (left <= w_.block() + ScanWindow::kTailRead) n = static_cast<std::size_t>(left);
    } else {
      n = tail_step_;
      if (tail_step_ < w_.block()) tail_step_ = tail_step_ * 2 < w_.block() ? tail_step_ * 2 : w_.block();
    }
    result_.bytes_read += w_.refill(src_, keep, n);
  }

  // The complete lines data()[b, e): e - 1 is their last '\n' when `newline`,
  // else [b, e) is the file's last line, without one. The matcher names the matching
  // lines of the whole block in one pass.
  void block(std::size_t b, std::size_t e, bool newline) {
    char* d = w_.data();
    char* text = d + b;
    char* end = d + (newline ? e - 1 : e);
    // The window's padding (ScanWindow: kPadding bytes past its capacity) lends
    // the matcher the bytes after `end`.
    static_assert(ScanWindow::kPadding >= Matcher::kWritableAfter);
    m_.matching_lines_padded(text, end, scratch_.lines, o_.mode == ScanMode::list && !o_.invert);
    if (o_.line_by_line()) {
      every_line(text, end, newline);
      return;
    }
    const char* counted = text;  // lines before `counted` are in lines_before_
    for (const std::size_t at : scratch_.lines) {
      const char* ls = text + at;
      // The line's end is needed only to report it: with no sink (-c, -l) a
      // 100 MB matching line is not searched again for its '\n'.
      const char* le = end;
      if (sink_ != nullptr) {
        const auto* next_nl = static_cast<const char*>(std::memchr(ls, '\n', static_cast<std::size_t>(end - ls)));
        if (next_nl != nullptr) le = next_nl;
      }
      if (o_.number_lines) {
        lines_before_ += count_newlines(counted, ls);
        counted = ls;
      }
      if (select(ls, le)) return;
    }
    if (o_.number_lines) {
      lines_before_ += count_newlines(counted, d + e) + (newline ? 0 : 1);
      result_.lines = lines_before_;
    }
  }

  // -v and context: every line of the block in turn, matched against the sorted
  // list of matching lines. Unselected lines are context after a selected one
  // (-A), or kept (copied) for the next one (-B).
  void every_line(const char* text, const char* end, bool newline) {
    std::size_t next_match = 0;
    const char* ls = text;
    for (;;) {
      const auto* nl = static_cast<const char*>(std::memchr(ls, '\n', static_cast<std::size_t>(end - ls)));
      const char* le = nl != nullptr ? nl : end;
      const auto at = static_cast<std::size_t>(ls - text);
      while (next_match < scratch_.lines.size() && scratch_.lines[next_match] < at) ++next_match;
      const bool matched = next_match < scratch_.lines.size() && scratch_.lines[next_match] == at;
      if (matched != o_.invert && result_.matching_lines < o_.max_count) {
        emit_kept();
        if (select(ls, le)) return;
        after_left_ = o_.after;
      } else if (after_left_ > 0) {
        report(ls, le, true);
        --after_left_;
      } else if (result_.matching_lines >= o_.max_count) {
        stopped_ = true;  // -m reached and its trailing context printed
        return;
      } else if (o_.before > 0) {
        keep(ls, le);
      }
      ++lines_before_;
      result_.lines = lines_before_;
      if (nl == nullptr) break;
      ls = nl + 1;
      if (ls > end || (!newline && ls == end)) break;
    }
  }

  // A selected line [ls, le): counted and reported; true when the scan stops
  // here (-l found its line, or -m reached with no trailing context wanted).
  bool select(const char* ls, const char* le) {
    ++result_.matching_lines;
    if (o_.mode == ScanMode::list) {
      stopped_ = true;
      return true;
    }
    report(ls, le, false);
    if (result_.matching_lines >= o_.max_count && o_.after == 0) {
      stopped_ = true;
      return true;
    }
    return false;
  }

  void report(const char* ls, const char* le, bool context) {
    if (sink_ == nullptr) return;
    const std::uint64_t offset = w_.offset() + static_cast<std::uint64_t>(ls - w_.data());
    const bool newline = le < w_.data() + w_.size() && *le == '\n';
    LineHit hit{lines_before_, offset, static_cast<std::uint64_t>(le - ls), ls, {}, context, gap(lines_before_),
                newline};
    if (!context && (o_.mode == ScanMode::matches || o_.only_matching)) {
      scratch_.columns.clear();
      if (o_.only_matching || o_.whole_lines) {
        // Non-overlapping matches, leftmost first, as grep -o prints them and
        // ripgrep's --json lists them (the set as one alternation).
        for (const char* from = ls; from <= le;) {
          const auto m = m_.next_match(ls, from, le);
          if (!m) break;
          const auto col = static_cast<std::uint64_t>(m->begin - ls);
          if (m->length > 0) scratch_.columns.push_back({col, m->pattern, m->length});
          from = m->begin + (m->length > 0 ? m->length : 1);
        }
      } else {
        m_.all_in_line(ls, le, scratch_.matches);
        for (const Match& x : scratch_.matches)
          scratch_.columns.push_back({static_cast<std::uint64_t>(x.begin - ls), x.pattern, x.length});
      }
      hit.matches = scratch_.columns;
    }
    sink_->on_line(hit);
  }

  // Whether line `number` does not follow the last line reported (a "--" goes
  // before it when context lines are printed).
  bool gap(std::uint64_t number) {
    const bool g = reported_any_ && number != last_reported_ + 1;
    reported_any_ = true;
    last_reported_ = number;
    return g;
  }

  // -B: keeps a copy of an unselected line in the ring of the last o_.before.
  void keep(const char* ls, const char* le) {
    auto& ring = scratch_.before;
    const std::uint64_t offset = w_.offset() + static_cast<std::uint64_t>(ls - w_.data());
    LineScratch::Kept* slot;
    if (ring.size() < o_.before) {
      slot = &ring.emplace_back();
    } else {
      slot = &ring[scratch_.before_next];
      scratch_.before_next = (scratch_.before_next + 1) % ring.size();
    }
    slot->number = lines_before_;
    slot->offset = offset;
    slot->text.assign(ls, le);
  }

  // -B: reports the kept lines, oldest first, and empties the ring.
  void emit_kept() {
    auto& ring = scratch_.before;
    for (std::size_t k = 0; k < ring.size(); ++k) {
      const LineScratch::Kept& x = ring[(scratch_.before_next + k) % ring.size()];
      if (sink_ != nullptr)
        sink_->on_line(LineHit{x.number, x.offset, x.text.size(), x.text.data(), {}, true, gap(x.number), true});
    }
    ring.clear();
    scratch_.before_next = 0;
  }

  // A line of at least a block with no '\n' in the window yet, starting at
  // data()[i] (literal patterns only). Searched window by window; each window keeps
  // the last overlap_ bytes of the one before, so a match cut by a read is whole
  // in the next window. In mode `matches` a window reports the matches starting
  // in [reported_, window end - overlap_): any match starting there ends inside
  // the window (it is at most overlap_ + 1 bytes long), so all of them are seen,
  // and a match starting later is left to the next window, which still holds its
  // first byte. So every match is reported once, and in order. Returns the next
  // line's start.
  std::uint64_t long_line(std::size_t i) {
    const std::uint64_t line_offset = w_.offset() + i;
    const bool all = o_.mode == ScanMode::matches;
    bool matched = false;
    std::uint64_t reported = line_offset;  // matches starting before this were reported
    std::size_t win = i;                   // this window's first byte of the line
    std::size_t fresh = i;                 // first byte not yet looked at for '\n'
    for (;;) {
      char* d = w_.data();
      const auto* nl = static_cast<const char*>(std::memchr(d + fresh, '\n', w_.size() - fresh));
      const std::size_t lend = nl != nullptr ? static_cast<std::size_t>(nl - d) : w_.size();
      const bool complete = nl != nullptr || w_.eof();
      const std::uint64_t window_end = w_.offset() + lend;
      if (!all && !matched) {
        m_.matching_lines(d + win, d + lend, scratch_.lines, true);
        matched = !scratch_.lines.empty();
        if (matched && o_.mode == ScanMode::list) {
          ++result_.matching_lines;
          stopped_ = true;
          return line_offset;
        }
      } else if (all) {
        const std::uint64_t limit = complete ? UINT64_MAX : (window_end > overlap_ ? window_end - overlap_ : 0);
        m_.all_in_line(d + win, d + lend, scratch_.matches);
        scratch_.columns.clear();
        for (const Match& x : scratch_.matches) {
          const std::uint64_t at = w_.offset() + static_cast<std::uint64_t>(x.begin - d);
          const bool line_start_empty = x.length == 0 && at != line_offset;  // not the line's start
          if (at >= reported && at < limit && !line_start_empty) scratch_.columns.push_back({at - line_offset, x.pattern});
        }
        if (limit > reported) reported = limit;
        if (!scratch_.columns.empty()) {
          matched = true;
          if (sink_ != nullptr) sink_->on_line(LineHit{lines_before_, line_offset, 0, nullptr, scratch_.columns});
        }
      }
      if (complete) {
        if (matched) {
          ++result_.matching_lines;
          if (o_.mode == ScanMode::lines && sink_ != nullptr)
            sink_->on_line(LineHit{lines_before_, line_offset, window_end - line_offset, nullptr, {}});
        }
        if (o_.number_lines) {
          ++lines_before_;
          result_.lines = lines_before_;
        }
        return nl != nullptr ? window_end + 1 : window_end;
      }
      // Keep the overlap (nothing once matched, unless every match is wanted).
      std::size_t keep_bytes = (matched && !all) ? 0 : overlap_;
      if (keep_bytes > lend - win) keep_bytes = lend - win;
      read(lend - keep_bytes);
      win = 0;
      fresh = keep_bytes;
    }
  }

  const Matcher& m_;
  const ScanOptions& o_;
  ScanWindow& w_;
  ByteSource& src_;
  ScanRange r_;
  LineSink* sink_;
  LineScratch& scratch_;
  bool long_lines_ = false;
  std::size_t overlap_ = 0;
  std::size_t tail_step_ = 0;
  std::uint64_t lines_before_ = 0;  // owned lines before the current position (numbering)
  std::uint64_t no_newline_until_ = 0;
  std::uint32_t after_left_ = 0;       // -A: context lines still to print
  bool reported_any_ = false;          // a line was reported (for gaps)
  std::uint64_t last_reported_ = 0;    // its number  // file offset: no '\n' in [current line start, this)
  bool stopped_ = false;            // mode list found its line
  ScanResult result_;
};

}  // namespace

ScanResult scan_lines(const Matcher& matcher, const ScanOptions& options, ScanWindow& window, ByteSource& source,
                      ScanRange range, bool window_loaded, LineSink* sink, LineScratch& scratch) {
  return RangeScan(matcher, options, window, source, range, sink, scratch).run(window_loaded && range.begin == 0);
}

}  // namespace stealscan
