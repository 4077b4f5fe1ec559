// fuzz_keyword_filter.cpp: the secret scanner's first step
// (secrets/detect/keyword_filter.hpp), one caseless Vectorscan literal scan for
// every rule's keywords, against a naive search. A keyword the filter misses is
// a secret never looked for, and nothing later in the pipeline would notice.
//
// The input: up to 8 rules' keywords, then the text. Before the first 0x02
// byte: rules separated by 0x01, each rule's keywords by 0x00 (lower-cased here,
// as the rule loader gives them; empty ones dropped; a rule with none always
// runs). After it: the text.
//
// Checks: rules_for() is every rule without keywords and every rule with one
// of them somewhere in the text (ASCII case folded); lines_for(r) covers
// exactly the lines on which one of rule r's keywords starts, as sorted spans
// with at least one line between two.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "match/database_cache.hpp"
#include "secrets/detect/keyword_filter.hpp"

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::vector<std::vector<std::string>> parse_rules(std::string_view spec) {
  std::vector<std::vector<std::string>> rules(1);
  std::string word;
  const auto end_word = [&] {
    if (!word.empty() && rules.back().size() < 4) rules.back().push_back(word);
    word.clear();
  };
  for (const char c : spec) {
    if (c == '\x00') {
      end_word();
    } else if (c == '\x01') {
      end_word();
      if (rules.size() == 8) break;
      rules.emplace_back();
    } else {
      word += lower(c);
    }
  }
  end_word();
  return rules;
}

// The start of the line holding offset `at` (a '\n' belongs to the line it ends).
std::size_t line_start(std::string_view text, std::size_t at) {
  const std::size_t nl = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// The starts of the lines on which one of `keywords` starts.
std::set<std::size_t> naive_lines(std::string_view text, const std::vector<std::string>& keywords) {
  std::set<std::size_t> out;
  for (const std::string& k : keywords)
    for (std::size_t at = 0; at + k.size() <= text.size(); ++at) {
      bool hit = true;
      for (std::size_t i = 0; i < k.size() && hit; ++i) hit = lower(text[at + i]) == k[i];
      if (hit) out.insert(line_start(text, at));
    }
  return out;
}

// The starts of the lines the spans cover; checks their order and gaps.
std::set<std::size_t> span_lines(std::string_view text, const std::vector<stealscan::secrets::LineSpan>& spans) {
  std::set<std::size_t> out;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto& s = spans[i];
    FUZZ_CHECK(s.begin <= s.end && s.end <= text.size());
    FUZZ_CHECK(s.begin == line_start(text, s.begin));
    FUZZ_CHECK(s.end == text.size() || text[s.end] == '\n');
    if (i > 0) FUZZ_CHECK(spans[i - 1].end + 1 < s.begin);  // a line between two spans
    for (std::size_t at = s.begin;;) {
      out.insert(at);
      const std::size_t nl = text.find('\n', at);
      if (nl == std::string_view::npos || nl >= s.end) break;
      at = nl + 1;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stealscan::secrets;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find('\x02');
  if (split == std::string_view::npos) return 0;
  const std::vector<std::vector<std::string>> rules = parse_rules(input.substr(0, split));
  const std::string_view text = input.substr(split + 1);

  const KeywordFilter filter(rules, stealscan::DatabaseCache{});
  KeywordFilter::Scratch scratch(filter);
  std::vector<std::size_t> run;
  filter.rules_for(text, scratch, run);

  std::vector<std::size_t> want;
  for (std::size_t r = 0; r < rules.size(); ++r) {
    const std::set<std::size_t> lines = naive_lines(text, rules[r]);
    if (rules[r].empty() || !lines.empty()) want.push_back(r);
    FUZZ_CHECK(filter.has_keywords(r) == !rules[r].empty());
    if (!rules[r].empty()) FUZZ_CHECK(span_lines(text, filter.lines_for(r, scratch)) == lines);
  }
  FUZZ_CHECK(run == want);
  return 0;
}
