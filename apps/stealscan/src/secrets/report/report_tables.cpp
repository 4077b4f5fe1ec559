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
      // As Go's encoding/xml writes them (gitleaks' JUnit report).
      case '"': b.append("&#34;"); break;
      case '\'': b.append("&#39;"); break;
      case '\n': b.append("&#xA;"); break;
      case '\r': b.append("&#xD;"); break;
      case '\t': b.append("&#x9;"); break;
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

// A JSON string as Go's encoding/json writes it: also <, > and & escaped.
void go_json_string(std::string& b, std::string_view v) {
  std::string plain;
  append_json_bytes(plain, v);
  for (const char c : plain) {
    if (c == '<') b.append("\\u003c");
    else if (c == '>') b.append("\\u003e");
    else if (c == '&') b.append("\\u0026");
    else b.push_back(c);
  }
}

// The finding as gitleaks' JUnit failure holds it: Go's json.MarshalIndent
// of its Finding, tab-indented, in its field order.
std::string finding_go_json(const Finding& f) {
  std::string b = "{\n";
  const auto str = [&](std::string_view k, std::string_view v) {
    b.append("\t\"").append(k).append("\": ");
    go_json_string(b, v);
    b.append(",\n");
  };
  const auto num = [&](std::string_view k, std::string_view v) {
    b.append("\t\"").append(k).append("\": ").append(v).append(",\n");
  };
  finding_fields(f, str, num);
  const std::vector<std::string> tags = f.tags();
  b.append("\t\"Tags\": [");
  for (std::size_t i = 0; i < tags.size(); ++i) {
    b.append(i == 0 ? "\n\t\t" : ",\n\t\t");
    go_json_string(b, tags[i]);
  }
  b.append(tags.empty() ? "],\n" : "\n\t],\n");
  b.append("\t\"Fingerprint\": ");
  go_json_string(b, f.fingerprint());
  b.append("\n}");
  return b;
}

// One test case per finding, each failed, in gitleaks' layout (its JUnit
// report, byte for byte but for the suite's name): the rule's description as
// class and failure type, gitleaks' message as name and failure message, the
// finding as JSON in the failure.
std::string junit_report(const std::vector<Finding>& findings) {
  const std::string n = std::to_string(findings.size());
  std::string b = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  b.append("\t<testsuite failures=\"").append(n).append("\" name=\"stealscan\" tests=\"").append(n);
  b.append("\" time=\"\">");
  for (const Finding& f : findings) {
    std::string message = f.rule->id;
    message.append(" has detected a secret in file ").append(f.file).append(", line ");
    message.append(std::to_string(f.start_line));
    if (!f.commit.empty()) message.append(", at commit ").append(f.commit);
    message.push_back('.');
    b.append("\n\t\t<testcase classname=\"");
    xml_text(b, f.rule->description);
    b.append("\" file=\"");
    xml_text(b, f.file);
    b.append("\" name=\"");
    xml_text(b, message);
    b.append("\" time=\"\">\n\t\t\t<failure message=\"");
    xml_text(b, message);
    b.append("\" type=\"");
    xml_text(b, f.rule->description);
    b.append("\">");
    xml_text(b, finding_go_json(f));
    b.append("</failure>\n\t\t</testcase>");
  }
  if (!findings.empty()) b.append("\n\t");
  b.append("</testsuite>\n</testsuites>");
  return b;
}

}  // namespace stealscan::secrets::report_detail
