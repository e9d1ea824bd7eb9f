#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "lib/report/common.h"
#include "lib/report/graph.h"
#include "lib/report/report.h"
#include "lib/report/values.h"

namespace pg::report {

namespace {

using detail::Json;
using detail::plural;

struct Summary {
  std::size_t policies[3] = {0, 0, 0};  // by diff::Change
  std::size_t attached = 0, detached = 0;
  std::size_t targets = 0, fields = 0;
  std::size_t newBySeverity[3] = {0, 0, 0};  // by model::Severity
  std::size_t fixed = 0;
  std::size_t kumaProxies = 0, kumaFields = 0;
  std::size_t linkerdPorts = 0, linkerdChanges = 0;
};

Summary summarize(const diff::Result& d) {
  Summary s;
  for (const diff::PolicyChange& p : d.policies) ++s.policies[static_cast<int>(p.change)];
  for (const diff::AttachmentChange& a : d.attachments) ++(a.attached ? s.attached : s.detached);
  std::set<std::pair<std::string_view, std::string_view>> targets;
  for (const diff::EffectiveChange& e : d.effective) {
    targets.emplace(e.environment, e.target);
    s.fields += e.fields.size();
  }
  s.targets = targets.size();
  for (const model::Finding& f : d.newFindings) ++s.newBySeverity[static_cast<int>(f.severity)];
  s.fixed = d.fixedFindings.size();
  std::set<std::pair<std::string_view, std::string_view>> proxies;
  for (const diff::KumaChange& k : d.kuma) proxies.emplace(k.environment, k.proxy);
  s.kumaProxies = proxies.size();
  s.kumaFields = d.kuma.size();
  std::set<std::tuple<std::string_view, std::string_view, std::int64_t>> ports;
  for (const diff::LinkerdChange& l : d.linkerd) ports.emplace(l.environment, l.workload, l.port);
  s.linkerdPorts = ports.size();
  s.linkerdChanges = d.linkerd.size();
  return s;
}

std::string policyCounts(const Summary& s) {
  std::string out;
  auto add = [&](diff::Change c) {
    std::size_t n = s.policies[static_cast<int>(c)];
    if (!n) return;
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(diff::changeName(c));
  };
  add(diff::Change::Changed);
  add(diff::Change::Added);
  add(diff::Change::Removed);
  return out.empty() ? "none" : out;
}

std::string newCounts(const Summary& s) {
  using model::Severity;
  return plural(s.newBySeverity[static_cast<int>(Severity::Error)], "error") + ", " +
         plural(s.newBySeverity[static_cast<int>(Severity::Warning)], "warning") + ", " +
         plural(s.newBySeverity[static_cast<int>(Severity::Note)], "note");
}

std::string pathText(const std::vector<std::string>& path, std::string_view separator) {
  std::string out;
  for (const std::string& step : path) out += (out.empty() ? "" : std::string(separator)) + step;
  return out;
}

std::string valueText(const std::optional<std::string>& v) {
  return v ? *v : "(unset)";
}

// Who set a Kuma field on each side: one name when the same policy did.
std::string kumaFrom(const diff::KumaChange& k) {
  if (k.beforeFrom.empty() || k.afterFrom.empty() || k.beforeFrom == k.afterFrom)
    return k.afterFrom.empty() ? k.beforeFrom : k.afterFrom;
  return k.beforeFrom + " -> " + k.afterFrom;
}

std::string kumaCounts(const Summary& s) {
  return plural(s.kumaFields, "field") + " on " + std::to_string(s.kumaProxies) +
         (s.kumaProxies == 1 ? " proxy" : " proxies");
}

std::string linkerdCounts(const Summary& s) {
  return plural(s.linkerdChanges, "change") + " on " + plural(s.linkerdPorts, "port");
}

// `[production] ` before a change of an environment, as text findings have it.
std::string environmentTag(const std::string& environment) {
  return environment.empty() ? std::string() : "[" + environment + "] ";
}

// Adds `environment` to a change's JSON object when it has one.
Json withEnvironment(Json item, const std::string& environment) {
  if (environment.empty()) return item;
  Json out = {{"environment", environment}};
  out.update(item);
  return out;
}

}  // namespace

// --- text ------------------------------------------------------------------------------

void writeDiffText(std::ostream& out, const DiffReportInput& input, const TextOptions& options) {
  const diff::Result& d = input.diff;
  const std::string_view bold = options.color ? "\033[1m" : "";
  const std::string_view dim = options.color ? "\033[2m" : "";
  const std::string_view green = options.color ? "\033[32m" : "";
  const std::string_view red = options.color ? "\033[31m" : "";
  const std::string_view reset = options.color ? "\033[0m" : "";
  out << bold << "policygraph diff " << detail::printable(d.base) << " -> "
      << detail::printable(d.head) << reset << '\n';
  if (!d.policies.empty()) {
    out << '\n' << bold << "Policies" << reset << '\n';
    for (const diff::PolicyChange& p : d.policies)
      out << "  " << diff::changeName(p.change) << "  "
          << detail::printable(environmentTag(p.environment)) << detail::printable(p.policy) << "  "
          << dim << detail::printable(detail::position(p.at)) << reset << '\n';
  }
  if (!d.attachments.empty()) {
    out << '\n' << bold << "Route attachments" << reset << '\n';
    for (const diff::AttachmentChange& a : d.attachments) {
      out << "  " << (a.attached ? green : red) << (a.attached ? "attached" : "detached") << reset
          << "  " << detail::printable(environmentTag(a.environment)) << detail::printable(a.route)
          << (a.attached ? " -> " : " -x ") << detail::printable(a.parent);
      if (!a.attached) {
        out << ": ";
        if (!a.reason.empty()) out << detail::printable(a.reason) << ": ";
        out << detail::printable(a.message);
      }
      out << "  " << dim << detail::printable(detail::position(a.at)) << reset << '\n';
    }
  }
  if (!d.effective.empty()) {
    out << '\n' << bold << "Effective policy" << reset << '\n';
    for (const diff::EffectiveChange& e : d.effective) {
      out << "  " << detail::printable(environmentTag(e.environment)) << detail::printable(e.target)
          << ": " << detail::printable(e.kind) << " via "
          << detail::printable(pathText(e.path, " > "));
      if (e.change != diff::Change::Changed) out << " (path " << diff::changeName(e.change) << ")";
      out << '\n';
      for (const diff::FieldChange& f : e.fields) {
        out << "    " << detail::printable(f.field) << ": " << red
            << detail::printable(valueText(f.before)) << reset << " -> " << green
            << detail::printable(valueText(f.after)) << reset;
        if (!f.cause.empty()) out << "  [" << detail::printable(f.cause) << "]";
        out << "  " << dim << detail::printable(detail::position(f.at)) << reset << '\n';
      }
    }
  }
  if (!d.kuma.empty()) {
    out << '\n' << bold << "Kuma" << reset << '\n';
    const diff::KumaChange* group = nullptr;
    for (const diff::KumaChange& k : d.kuma) {
      if (!group || group->environment != k.environment || group->proxy != k.proxy ||
          group->policyType != k.policyType || group->section != k.section) {
        out << "  " << detail::printable(environmentTag(k.environment))
            << detail::printable(k.proxy) << ": " << detail::printable(k.policyType) << " "
            << detail::printable(k.section) << '\n';
        group = &k;
      }
      out << "    " << detail::printable(k.field.empty() ? "(whole)" : k.field) << ": " << red
          << detail::printable(valueText(k.before)) << reset << " -> " << green
          << detail::printable(valueText(k.after)) << reset << "  ["
          << detail::printable(kumaFrom(k)) << "]";
      if (!k.at.path.empty())
        out << "  " << dim << detail::printable(detail::position(k.at)) << reset;
      out << '\n';
    }
  }
  if (!d.linkerd.empty()) {
    out << '\n' << bold << "Linkerd" << reset << '\n';
    for (const diff::LinkerdChange& l : d.linkerd) {
      out << "  " << detail::printable(environmentTag(l.environment))
          << detail::printable(l.workload) << " port " << l.port << ": "
          << detail::printable(l.change);
      if (!l.at.path.empty())
        out << "  " << dim << detail::printable(detail::position(l.at)) << reset;
      out << '\n';
    }
  }
  auto findings = [&](std::string_view title, const std::vector<model::Finding>& list) {
    if (list.empty()) return;
    out << '\n' << bold << title << reset << '\n';
    for (const model::Finding& f : list) detail::writeFindingText(out, f, options.color, "  ");
  };
  findings("New findings", d.newFindings);
  findings("Fixed findings", d.fixedFindings);

  Summary s = summarize(d);
  out << '\n';
  if (d.empty()) {
    out << "no change to policies, route attachments, effective policy or findings\n";
    return;
  }
  out << "policies: " << policyCounts(s) << "; routes: " << s.attached << " attached, "
      << s.detached << " detached; effective policy: " << plural(s.fields, "field") << " on "
      << plural(s.targets, "target");
  // The mesh parts only when there are any: the Gateway API summary stays as it was.
  if (!d.kuma.empty()) out << "; kuma: " << kumaCounts(s);
  if (!d.linkerd.empty()) out << "; linkerd: " << linkerdCounts(s);
  out << "; findings: " << d.newFindings.size() << " new (" << newCounts(s) << "), " << s.fixed
      << " fixed\n";
}

// --- JSON ------------------------------------------------------------------------------

void writeDiffJson(std::ostream& out, const DiffReportInput& input) {
  const diff::Result& d = input.diff;
  Summary s = summarize(d);
  Json policies = Json::array();
  for (const diff::PolicyChange& p : d.policies)
    policies.push_back(withEnvironment({{"policy", p.policy},
                                        {"change", diff::changeName(p.change)},
                                        {"location", detail::locationJson(p.at)}},
                                       p.environment));
  Json attachments = Json::array();
  for (const diff::AttachmentChange& a : d.attachments) {
    Json item = {
        {"route", a.route}, {"parent", a.parent}, {"change", a.attached ? "attached" : "detached"}};
    if (!a.attached) {
      item["reason"] = a.reason;
      item["message"] = a.message;
    }
    item["location"] = detail::locationJson(a.at);
    attachments.push_back(withEnvironment(std::move(item), a.environment));
  }
  Json effective = Json::array();
  for (const diff::EffectiveChange& e : d.effective) {
    Json fields = Json::array();
    for (const diff::FieldChange& f : e.fields) {
      Json field = {{"field", f.field}};
      field["before"] = f.before ? Json(*f.before) : Json(nullptr);
      field["after"] = f.after ? Json(*f.after) : Json(nullptr);
      field["beforeFrom"] = f.beforeFrom;
      field["afterFrom"] = f.afterFrom;
      field["cause"] = f.cause;
      field["location"] = detail::locationJson(f.at);
      fields.push_back(std::move(field));
    }
    effective.push_back(withEnvironment({{"target", e.target},
                                         {"kind", e.kind},
                                         {"path", e.path},
                                         {"change", diff::changeName(e.change)},
                                         {"fields", fields}},
                                        e.environment));
  }
  Json kuma = Json::array();
  for (const diff::KumaChange& k : d.kuma)
    kuma.push_back(withEnvironment({{"proxy", k.proxy},
                                    {"policyType", k.policyType},
                                    {"section", k.section},
                                    {"field", k.field},
                                    {"before", k.before ? Json(*k.before) : Json(nullptr)},
                                    {"after", k.after ? Json(*k.after) : Json(nullptr)},
                                    {"beforeFrom", k.beforeFrom},
                                    {"afterFrom", k.afterFrom},
                                    {"location", detail::locationJson(k.at)}},
                                   k.environment));
  Json linkerd = Json::array();
  for (const diff::LinkerdChange& l : d.linkerd)
    linkerd.push_back(withEnvironment({{"workload", l.workload},
                                       {"port", l.port},
                                       {"change", l.change},
                                       {"location", detail::locationJson(l.at)}},
                                      l.environment));
  auto findings = [&](const std::vector<model::Finding>& list) {
    Json array = Json::array();
    for (const model::Finding& f : list) array.push_back(detail::findingJson(f, input.rules));
    return array;
  };
  Json doc = {
      {"tool", {{"name", "policygraph"}, {"version", toolVersion()}}},
      {"base", d.base},
      {"head", d.head},
      {"summary",
       {{"policiesChanged", s.policies[static_cast<int>(diff::Change::Changed)]},
        {"policiesAdded", s.policies[static_cast<int>(diff::Change::Added)]},
        {"policiesRemoved", s.policies[static_cast<int>(diff::Change::Removed)]},
        {"routesAttached", s.attached},
        {"routesDetached", s.detached},
        {"effectiveTargets", s.targets},
        {"effectiveFields", s.fields},
        {"newErrors", s.newBySeverity[static_cast<int>(model::Severity::Error)]},
        {"newWarnings", s.newBySeverity[static_cast<int>(model::Severity::Warning)]},
        {"newNotes", s.newBySeverity[static_cast<int>(model::Severity::Note)]},
        {"fixedFindings", s.fixed}}},
      {"policies", policies},
      {"attachments", attachments},
      {"effective", effective},
      {"findings", {{"new", findings(d.newFindings)}, {"fixed", findings(d.fixedFindings)}}}};
  // Kuma's and Linkerd's parts when either side has a proxy or workload with changes, before
  // the findings; a diff without them keeps the document it always had.
  if (!d.kuma.empty() || !d.linkerd.empty()) {
    Json withMesh;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (it.key() == "findings") {
        withMesh["kuma"] = kuma;
        withMesh["linkerd"] = linkerd;
      }
      withMesh[it.key()] = it.value();
    }
    withMesh["summary"]["kumaProxies"] = s.kumaProxies;
    withMesh["summary"]["kumaFields"] = s.kumaFields;
    withMesh["summary"]["linkerdPorts"] = s.linkerdPorts;
    withMesh["summary"]["linkerdChanges"] = s.linkerdChanges;
    doc = std::move(withMesh);
  }
  out << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

// --- Markdown --------------------------------------------------------------------------

namespace {

// Repository text in a table cell of a pull-request comment, shown as written and never
// rendered: pipes would end the cell, newlines the row, HTML would be read, Markdown's
// emphasis, links and images (`[x](y)`, `![x](y)`) rendered, `@name` would notify someone and a
// bare URL become a link. Control characters are escaped first (detail::printable).
std::string cell(std::string_view raw) {
  const std::string text = detail::printable(raw);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '|':
        out += "\\|";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '@':
        out += "&#64;";
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '!':
      case '~':
      case '#':
        out += '\\';
        out += c;
        break;
      case ':':
        // `scheme://`: a zero-width space after the colon keeps GitHub from linking it.
        out += c;
        if (text.compare(i + 1, 2, "//") == 0) out += "\u200b";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Text as code in a table cell: nothing in a code span is rendered, and GitHub still lets `\|`
// keep the cell. The fence is one backtick longer than the longest run of them in the text,
// so no backtick in it can close the span.
std::string code(std::string_view raw) {
  const std::string text = detail::printable(raw);
  std::string body;
  std::size_t run = 0, longest = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    body += c == '|' ? std::string("\\|") : std::string(1, c);
  }
  const std::string fence(longest + 1, '`');
  // A space inside the fence when the text starts or ends with a backtick (CommonMark strips
  // one from each side).
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

// A folded section whose rows are added while they fit the budget.
class Section {
 public:
  Section(std::string title, std::string header) : title_(std::move(title)), header_(header) {}
  void row(std::string text) { rows_.push_back(std::move(text)); }
  bool empty() const { return rows_.empty(); }

  // Renders into at most `budget` bytes (the rows that do not fit are counted instead);
  // nothing when not even the heading fits.
  std::string render(std::size_t budget) const {
    std::string head = "<details><summary>" + title_ + "</summary>\n\n" + header_;
    const std::string tail = "\n</details>\n\n";
    const std::size_t noteRoom = 160;
    if (head.size() + tail.size() + noteRoom > budget) return {};
    std::string body;
    std::size_t shown = 0;
    for (const std::string& r : rows_) {
      if (head.size() + body.size() + r.size() + tail.size() + noteRoom > budget) break;
      body += r;
      ++shown;
    }
    std::string note;
    if (shown < rows_.size())
      note = "\n_" + std::to_string(rows_.size() - shown) +
             " more not shown: the comment has a size limit; run `policygraph diff` for all of "
             "it._\n";
    return head + body + note + tail;
  }

 private:
  std::string title_;
  std::string header_;
  std::vector<std::string> rows_;
};

// The picture of one head: the part of its graph around what changed in its environment.
std::string mermaidPicture(const DiffReportInput& input, const analysis::Analysis& head,
                           const MarkdownOptions& options, std::string& omitted) {
  const diff::Result& d = input.diff;
  std::vector<std::string> refs;
  for (const diff::PolicyChange& p : d.policies)
    if (p.change != diff::Change::Removed && p.environment == head.environment)
      refs.push_back(p.policy);
  for (const diff::AttachmentChange& a : d.attachments)
    if (a.environment == head.environment) refs.push_back(a.route);
  for (const diff::EffectiveChange& e : d.effective)
    if (e.environment == head.environment) refs.push_back(e.target);
  if (refs.empty()) return {};
  Graph graph = buildGraph(head);
  std::set<std::string> changed(refs.begin(), refs.end());
  // Everything above what changed, and one step below it: a policy's target, a route's
  // rules. All routes below a changed Gateway would drown the change.
  if (!focusGraph(graph, refs, 1)) return {};
  const std::string in = head.environment.empty() ? "" : " in " + head.environment;
  if (graph.nodes.size() > options.maxGraphNodes) {
    omitted += "_The picture" + in + " is left out: the affected part of the graph has " +
               std::to_string(graph.nodes.size()) + " nodes (the limit is " +
               std::to_string(options.maxGraphNodes) +
               "). `policygraph graph --focus REF` draws one object's part._\n\n";
    return {};
  }
  for (GraphNode& n : graph.nodes) n.highlighted = changed.count(n.ref) > 0;
  std::ostringstream mermaid;
  writeGraphMermaid(mermaid, graph);
  return "<details><summary>Affected part of the graph (head" +
         (head.environment.empty() ? "" : ", " + head.environment) +
         "; changed objects outlined)</summary>\n\n```mermaid\n" + mermaid.str() +
         "```\n\n</details>\n\n";
}

// A change's first cell: the environment in bold before the object, when there is one.
std::string objectCell(const std::string& environment, std::string_view object) {
  return (environment.empty() ? "" : "**" + cell(environment) + "** ") + code(object);
}

}  // namespace

void writeDiffMarkdown(std::ostream& out, const DiffReportInput& input,
                       const MarkdownOptions& options) {
  const diff::Result& d = input.diff;
  Summary s = summarize(d);
  std::string text = std::string(kDiffCommentMarker) + "\n";
  text += "### policygraph: policy diff\n\n";
  text += code(d.base) + " → " + code(d.head) + "\n\n";
  if (d.empty()) {
    text += "No change to policies, route attachments, effective policy or findings.\n";
    out << text;
    return;
  }
  std::size_t newTotal = d.newFindings.size();
  text += "| | |\n|---|---|\n";
  text += "| Policies | " + policyCounts(s) + " |\n";
  text += "| Route attachments | " + std::to_string(s.attached) + " attached, " +
          std::to_string(s.detached) + " detached |\n";
  text += "| Effective policy | " + plural(s.fields, "field") + " changed on " +
          plural(s.targets, "target") + " |\n";
  if (!d.kuma.empty()) text += "| Kuma | " + kumaCounts(s) + " changed |\n";
  if (!d.linkerd.empty()) text += "| Linkerd | " + linkerdCounts(s) + " |\n";
  text +=
      "| New findings | " + (newTotal ? "**" + newCounts(s) + "**" : std::string("none")) + " |\n";
  text += "| Fixed findings | " + std::to_string(s.fixed) + " |\n\n";

  Section attachments("Route attachments (" + std::to_string(d.attachments.size()) + ")",
                      "| route | parent | change | why |\n|---|---|---|---|\n");
  for (const diff::AttachmentChange& a : d.attachments) {
    std::string why = a.attached ? "" : (a.reason.empty() ? "" : a.reason + ": ") + a.message;
    attachments.row("| " + objectCell(a.environment, a.route) + " | " + code(a.parent) + " | " +
                    (a.attached ? "attached" : "**detached**") + " | " + cell(why) + " |\n");
  }
  Section effective(
      "Effective policy (" + plural(s.fields, "field") + " on " + plural(s.targets, "target") + ")",
      "| target | kind | field | before | after | cause |\n"
      "|---|---|---|---|---|---|\n");
  for (const diff::EffectiveChange& e : d.effective) {
    for (const diff::FieldChange& f : e.fields) {
      std::string target = objectCell(e.environment, e.target);
      if (e.path.size() > 1) target += "<br>via " + cell(pathText(e.path, " › "));
      effective.row("| " + target + " | " + cell(e.kind) + " | " + code(f.field) + " | " +
                    (f.before ? code(*f.before) : "_unset_") + " | " +
                    (f.after ? code(*f.after) : "_unset_") + " | " + cell(f.cause) + " |\n");
    }
  }
  Section kuma("Kuma (" + kumaCounts(s) + ")",
               "| proxy | policy | section | field | before | after | from |\n"
               "|---|---|---|---|---|---|---|\n");
  for (const diff::KumaChange& k : d.kuma)
    kuma.row("| " + objectCell(k.environment, k.proxy) + " | " + cell(k.policyType) + " | " +
             cell(k.section) + " | " + code(k.field) + " | " +
             (k.before ? code(*k.before) : "_unset_") + " | " +
             (k.after ? code(*k.after) : "_unset_") + " | " + cell(kumaFrom(k)) + " |\n");
  Section linkerd("Linkerd (" + linkerdCounts(s) + ")",
                  "| workload | port | change |\n|---|---|---|\n");
  for (const diff::LinkerdChange& l : d.linkerd)
    linkerd.row("| " + objectCell(l.environment, l.workload) + " | " + std::to_string(l.port) +
                " | " + cell(l.change) + " |\n");
  auto findingRows = [&](Section& section, const std::vector<model::Finding>& list) {
    for (const model::Finding& f : list)
      section.row("| " + std::string(model::toString(f.severity)) + " | " + cell(f.ruleId) + " | " +
                  code(detail::position(f.location)) + " | " +
                  cell(environmentTag(f.environment) + f.message) + " |\n");
  };
  const std::string findingHeader = "| severity | rule | where | message |\n|---|---|---|---|\n";
  Section added("New findings (" + std::to_string(newTotal) + ")", findingHeader);
  findingRows(added, d.newFindings);
  Section fixed("Fixed findings (" + std::to_string(s.fixed) + ")", findingHeader);
  findingRows(fixed, d.fixedFindings);
  Section policies("Policy objects (" + std::to_string(d.policies.size()) + ")",
                   "| policy | change | where |\n|---|---|---|\n");
  for (const diff::PolicyChange& p : d.policies)
    policies.row("| " + objectCell(p.environment, p.policy) + " | " +
                 std::string(diff::changeName(p.change)) + " | " + code(detail::position(p.at)) +
                 " |\n");

  // New findings first: they are what blocks the merge. The picture goes last, as the part
  // worth least when space runs out.
  std::string omitted;
  std::string picture;
  for (const analysis::Analysis* head : input.heads)
    picture += mermaidPicture(input, *head, options, omitted);
  const std::string footer = "<sub>policygraph " + std::string(toolVersion()) + "</sub>\n";
  for (const Section* section :
       {&added, &attachments, &effective, &linkerd, &kuma, &fixed, &policies}) {
    if (section->empty()) continue;
    std::size_t used = text.size() + footer.size();
    text += section->render(options.maxBytes > used ? options.maxBytes - used : 0);
  }
  std::size_t used = text.size() + footer.size();
  if (!picture.empty() && used + picture.size() <= options.maxBytes)
    text += picture;
  else if (!picture.empty())
    omitted = "_The picture is left out: the comment has a size limit._\n\n";
  if (used + omitted.size() <= options.maxBytes) text += omitted;
  text += footer;
  out << text;
}

}  // namespace pg::report
