// report_tables.cpp: the csv and junit reports (report.hpp), with gitleaks'
// columns and layout, for spreadsheets and CI systems' test-report viewers.
#include <string>

#include "output/output.hpp"
#include "secrets/report/report.hpp"

namespace stealscan::secrets::report_detail {
namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
void csv_field(std::string& b, std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    b.append(s);
    return;
  }
  b.push_back('"');
  for (const char c : s) {
    if (c == '"') b.push_back('"');
    b.push_back(c);
  }
  b.push_back('"');
}

// XML 1.0 text or attribute value: markup characters escaped; bytes XML cannot
// hold at all (control characters but tab and line breaks, and bytes that are
// not UTF-8) become U+FFFD.
void xml_text(std::string& b, std::string_view raw) {
  const std::string s = utf8_lossy(raw);
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': b.append("&amp;"); break;
      case '<': b.append("&lt;"); break;
      case '>': b.append("&gt;"); break;
      case '"': b.append("&quot;"); break;
      case '\'': b.append("&apos;"); break;
      case '\n': b.append("&#10;"); break;
      case '\r': b.append("&#13;"); break;
      case '\t': b.append("&#9;"); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          b.append("\xEF\xBF\xBD");
        } else {
          b.push_back(ch);
        }
    }
  }
}

}  // namespace

std::string csv_report(const std::vector<Finding>& findings) {
  if (findings.empty()) return {};  // as gitleaks: no header either
  std::string b =
      "RuleID,Commit,File,SymlinkFile,Secret,Match,StartLine,EndLine,StartColumn,EndColumn,"
      "Author,Message,Date,Email,Fingerprint,Tags\r\n";
  for (const Finding& f : findings) {
    const std::string fields[] = {f.rule->id,
                                  f.commit,
                                  f.file,
                                  f.symlink_file,
                                  f.secret,
                                  f.match,
                                  std::to_string(f.start_line),
                                  std::to_string(f.end_line),
                                  std::to_string(f.start_column),
                                  std::to_string(f.end_column),
                                  f.author,
                                  f.message,
                                  f.date,
                                  f.email,
                                  f.fingerprint(),
                                  joined_tags(f.tags())};
    for (std::size_t i = 0; i < std::size(fields); ++i) {
      if (i > 0) b.push_back(',');
      csv_field(b, fields[i]);
    }
    b.append("\r\n");
  }
  return b;
}

// One test case per finding, each failed: a CI test-report viewer lists the
// findings as failures with the rule and place in their names.
std::string junit_report(const std::vector<Finding>& findings) {
  const std::string n = std::to_string(findings.size());
  std::string b = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  b.append("  <testsuite name=\"stealscan secrets\" tests=\"").append(n);
  b.append("\" failures=\"").append(n).append("\" errors=\"0\">\n");
  for (const Finding& f : findings) {
    // gitleaks' test case: its name and failure message, the rule's
    // description as classname and failure type.
    std::string message = f.rule->id;
    message.append(" has detected a secret in file ").append(f.file).append(", line ");
    message.append(std::to_string(f.start_line));
    if (!f.commit.empty()) message.append(", at commit ").append(f.commit);
    message.push_back('.');
    b.append("    <testcase classname=\"");
    xml_text(b, f.rule->description);
    b.append("\" name=\"");
    xml_text(b, message);
    b.append("\" file=\"");
    xml_text(b, f.file);
    b.append("\">\n      <failure message=\"");
    xml_text(b, message);
    b.append("\" type=\"");
    xml_text(b, f.rule->description);
    b.append("\">");
    // Built piece by piece: g++ 12 -O3 warns (-Wrestrict, a false positive)
    // on a chain of "literal" + std::string.
    std::string detail;
    const auto line = [&detail](std::string_view name, std::string_view value) {
      if (!detail.empty()) detail.push_back('\n');
      detail.append(name).append(": ").append(value);
    };
    line("File", f.file);
    line("Line", std::to_string(f.start_line));
    line("Column", std::to_string(f.start_column));
    line("Secret", f.secret);
    line("Match", f.match);
    line("Entropy", entropy_text(f.entropy));
    line("Fingerprint", f.fingerprint());
    if (!f.commit.empty()) {
      line("Commit", f.commit);
      line("Author", f.author);
      line("Email", f.email);
      line("Date", f.date);
    }
    xml_text(b, detail);
    b.append("</failure>\n    </testcase>\n");
  }
  b.append("  </testsuite>\n</testsuites>\n");
  return b;
}

}  // namespace stealscan::secrets::report_detail
