// The diff's Markdown comment: escaping in tables, and the size cap whatever the budget.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "lib/report/report.h"

namespace pg {
namespace {

diff::Result manyChanges(std::size_t n) {
  diff::Result r;
  r.base = "main (0123456789ab)";
  r.head = "working tree";
  for (std::size_t i = 0; i < n; ++i) {
    diff::EffectiveChange e;
    e.target = "HTTPRoute/shop/route-" + std::to_string(i);
    e.kind = "RateLimitPolicy";
    e.path = {"Gateway/infra/public", e.target};
    diff::FieldChange f;
    f.field = "limits.a|b";
    f.before = "[{limit: 1, window: `1m`}]";
    f.after = "<b>2</b>";
    f.cause = "RateLimitPolicy/infra/x changed";
    e.fields.push_back(f);
    r.effective.push_back(e);
    diff::AttachmentChange a;
    a.route = e.target;
    a.parent = "Gateway/infra/public#https";
    a.attached = false;
    a.reason = "NoMatchingParent";
    a.message = "no listener named | web\nsecond line";
    r.attachments.push_back(a);
  }
  return r;
}

std::string markdown(const diff::Result& r, std::size_t maxBytes) {
  analysis::Analysis head;
  std::vector<const analysis::Analysis*> heads{&head};
  std::vector<model::RuleInfo> rules;
  std::ostringstream out;
  report::MarkdownOptions options;
  options.maxBytes = maxBytes;
  report::writeDiffMarkdown(out, {r, heads, rules}, options);
  return out.str();
}

}  // namespace

TEST_CASE("diff markdown: repository text is shown as written, never rendered") {
  diff::Result r = manyChanges(1);
  r.effective[0].fields[0].before = "a ``` b";  // a run of three: a fence of four
  r.effective[0].fields[0].after = "`x`";       // starts and ends with one: padded
  r.effective[0].fields[0].cause =
      "@octocat see [here](https://evil.example/x) ![i](https://evil.example/i.png) "
      "*bold* \x1b[2J end";
  std::string md = markdown(r, 60000);
  INFO(md);
  CHECK(md.find("````a ``` b````") != std::string::npos);
  CHECK(md.find("`` `x` ``") != std::string::npos);
  // No mention, link, image or emphasis survives; a URL is not linked; ESC is escaped.
  CHECK(md.find("&#64;octocat") != std::string::npos);
  CHECK(md.find("@octocat") == std::string::npos);
  CHECK(md.find("\\[here\\](https:\u200b//evil.example/x)") != std::string::npos);
  CHECK(md.find("\\!\\[i\\]") != std::string::npos);
  CHECK(md.find("\\*bold\\*") != std::string::npos);
  CHECK(md.find('\x1b') == std::string::npos);
  CHECK(md.find("\\\\x1b") != std::string::npos);
}

TEST_CASE("diff markdown: cells cannot break the table, and code spans survive backticks") {
  std::string md = markdown(manyChanges(1), 60000);
  CHECK(md.find("| `limits.a\\|b` |") != std::string::npos);
  // The fence is longer than any backtick run inside the span.
  CHECK(md.find("``[{limit: 1, window: `1m`}]``") != std::string::npos);
  CHECK(md.find("`<b>2</b>`") != std::string::npos);  // code: shown as written
  // A line break is shown escaped, and cannot end the row.
  CHECK(md.find("NoMatchingParent: no listener named \\| web\\\\nsecond line |") !=
        std::string::npos);
  for (std::size_t at = md.find('\n'); at != std::string::npos; at = md.find('\n', at + 1)) {
    std::size_t next = md.find('\n', at + 1);
    std::string line =
        md.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    if (line.rfind("| `HTTPRoute", 0) == 0) {
      // Every row of the attachment table has its four cells.
      std::size_t bars = 0;
      for (std::size_t i = 0; i < line.size(); ++i)
        if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++bars;
      CHECK((bars == 5 || bars == 7));
    }
  }
}

TEST_CASE("diff markdown: never longer than the cap, and says what it left out") {
  diff::Result r = manyChanges(400);
  std::string whole = markdown(r, std::size_t{1} << 30);
  CHECK(whole.find("more not shown") == std::string::npos);
  for (std::size_t cap : {2000u, 3000u, 5000u, 20000u, 60000u}) {
    std::string md = markdown(r, cap);
    CHECK(md.size() <= cap);
    CHECK(md.rfind("<!-- policygraph-diff -->\n", 0) == 0);
    CHECK(md.find("| Route attachments | 0 attached, 400 detached |") != std::string::npos);
    CHECK(md.find("more not shown") != std::string::npos);
    // Folded sections are closed even when cut.
    std::size_t open = 0, closed = 0;
    for (std::size_t at = md.find("<details>"); at != std::string::npos;
         at = md.find("<details>", at + 1))
      ++open;
    for (std::size_t at = md.find("</details>"); at != std::string::npos;
         at = md.find("</details>", at + 1))
      ++closed;
    CHECK(open == closed);
  }
}

TEST_CASE("diff markdown: a change of an environment names it") {
  diff::Result r = manyChanges(1);
  r.attachments.front().environment = "staging";
  std::string md = markdown(r, 60000);
  CHECK(md.find("| **staging** `HTTPRoute/shop/route-0` | `Gateway/infra/public#https` |") !=
        std::string::npos);
  CHECK(md.find("| `HTTPRoute/shop/route-0`<br>via") != std::string::npos);  // no environment
}

TEST_CASE("diff markdown: nothing changed says so") {
  diff::Result r;
  r.base = "a";
  r.head = "b";
  std::string md = markdown(r, 60000);
  CHECK(md.find("No change to policies, route attachments, effective policy or findings.") !=
        std::string::npos);
}

}  // namespace pg
