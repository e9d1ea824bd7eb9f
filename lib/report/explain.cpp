// `policygraph explain REF`: every policy that reaches one object and the effective result
// per hierarchy path, field by field with where each value came from and what it beat.
#include <map>
#include <sstream>
#include <string>

#include "lib/policy/linkerd/access.h"
#include "lib/report/common.h"
#include "lib/report/linkerd.h"
#include "lib/report/report.h"
#include "lib/report/values.h"

namespace pg::report {

namespace {

using detail::Json;

// The level an origin sits at, as a person names it: the kind of the object (Gateway,
// HTTPRoute, Service, Namespace), or the section (Listener, RouteRule, BackendPort).
std::string levelOf(const policy::Effective& e, const policy::Origin& origin) {
  if (e.fullPath && origin.step < e.fullPath->size()) {
    const policy::Step& s = (*e.fullPath)[origin.step];
    if (s.section.empty()) return std::string(s.object->kind);
  }
  return std::string(policy::levelName(origin.level));
}

std::string policyRef(const policy::Policy* p) {
  return p ? p->display() : std::string();
}

Json targetJson(const model::Resource& target, std::string_view section) {
  Json t = {{"kind", target.kind}};
  if (!target.namespace_.empty()) t["namespace"] = target.namespace_;
  t["name"] = target.name;
  if (!section.empty()) t["sectionName"] = section;
  return t;
}

// For a value the schema's default supplied (the policy does not write it): "the <Kind>
// schema"; "" for a value written in the policy's file.
std::string schemaDefault(const policy::Provenance& p) {
  if (!p.node.synthesized() || !p.origin.policy) return {};
  return "the " + std::string(p.origin.policy->resource->kind) + " schema";
}

// writeKumaExplain's JSON document, in the order JSON output has it; null when it wrote none.
Json kumaDocument(const std::string& text) {
  return text.empty() ? Json() : Json::parse(text);
}

Json explainDocument(const ExplainInput& in) {
  Json policies = Json::array();
  for (const policy::Effective& e : in.effective) {
    Json path = Json::array();
    for (const policy::Step& s : e.path) path.push_back(s.display());
    Json provenance = Json::array();
    for (const policy::Provenance& p : policy::provenanceOf(e.value)) {
      Json entry = {{"field", p.field},
                    {"policy", policyRef(p.origin.policy)},
                    {"role", policy::roleName(p.origin.role)},
                    {"level", levelOf(e, p.origin)}};
      // Only on defaulted values, so that the documents of written ones stay as they were.
      if (std::string from = schemaDefault(p); !from.empty()) entry["defaultFrom"] = from;
      provenance.push_back(std::move(entry));
    }
    Json overridden = Json::array();
    for (const policy::Overridden& o : e.overridden)
      overridden.push_back({{"field", o.field},
                            {"policy", policyRef(o.policy)},
                            {"role", policy::roleName(o.role)},
                            {"by", policyRef(o.by)},
                            {"byRole", policy::roleName(o.byRole)}});
    Json entry = {{"kind", e.profile->kind},
                  {"path", path},
                  {"effective", detail::valueToJson(e.value)},
                  {"provenance", provenance},
                  {"overridden", overridden}};
    if (!e.ineffective.empty()) {
      Json ineffective = Json::array();
      for (const policy::Policy* p : e.ineffective) ineffective.push_back(p->display());
      entry["ineffective"] = ineffective;
    }
    policies.push_back(std::move(entry));
  }
  Json doc = {{"target", targetJson(in.target, in.section)}, {"policies", policies}};
  if (in.linkerd) doc["linkerd"] = detail::linkerdInboundJson(*in.linkerd);
  if (in.kuma && in.analysis) {
    std::ostringstream kuma;
    writeKumaExplain(kuma, *in.analysis, *in.kuma, true, {});
    doc["kuma"] = kumaDocument(kuma.str());
  }
  return doc;
}

using Comments = std::map<std::string, std::string, std::less<>>;

// A Kuma explain document as snapshots hold it: no file, line or column (an unrelated edit
// would move them), and the policy that set each effective value as a comment beside it.
void annotateKuma(Json& doc, Comments& comments) {
  if (!doc.contains("policies")) return;
  Json& policies = doc["policies"];
  for (std::size_t i = 0; i < policies.size(); ++i) {
    for (Json& m : policies[i]["matched"]) {
      m.erase("file");
      m.erase("line");
    }
    Json& rules = policies[i]["rules"];
    for (std::size_t r = 0; r < rules.size(); ++r) {
      const std::string at =
          "policies[" + std::to_string(i) + "].rules[" + std::to_string(r) + "].effective";
      for (Json& p : rules[r]["provenance"]) {
        p.erase("file");
        p.erase("line");
        p.erase("column");
        const std::string field = p.at("field").get<std::string>();
        const std::string key = field.empty()          ? at
                                : field.front() == '[' ? at + field
                                                       : at + "." + field;
        comments[key] = p.at("policy").get<std::string>();
      }
    }
  }
}

void writeKumaYaml(std::ostream& out, const std::string& jsonText,
                   const ExplainYamlOptions& options) {
  Json doc = kumaDocument(jsonText);
  if (doc.is_null()) return;
  yaml::Writer w;
  Comments comments;
  if (options.annotated) annotateKuma(doc, comments);
  detail::writeYamlValue(
      w, doc,
      options.annotated
          ? detail::YamlLayout{.inlineEmpty = true, .comments = &comments, .listIndexes = true}
          : detail::YamlLayout{});
  out << w.str();
}

std::string compact(const Json& v) {
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Where a value came from, for the terminal: `path:line:column`.
std::string whereOf(const policy::Provenance& p) {
  if (!p.origin.policy || !p.origin.policy->resource->file) return {};
  return detail::position(p.origin.policy->resource->locate(p.node));
}

}  // namespace

void writeExplainJson(std::ostream& out, const ExplainInput& input) {
  out << explainDocument(input).dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

std::string originWords(std::string_view policy, std::string_view role, std::string_view level) {
  return std::string(policy) + " (" + std::string(role) + ", " + std::string(level) + ")";
}

void writeExplainYaml(std::ostream& out, const ExplainInput& input,
                      const ExplainYamlOptions& options) {
  const Json document = explainDocument(input);
  yaml::Writer w;
  if (!options.annotated) {
    detail::writeYamlValue(w, document);
    out << w.str();
    return;
  }
  // The document as it is, but each policy's `effective` is written with the words of its own
  // provenance entries beside the values they name.
  const detail::YamlLayout layout{.inlineEmpty = true};
  w.beginMap();
  for (auto top = document.begin(); top != document.end(); ++top) {
    w.key(top.key());
    if (top.key() == "linkerd" && input.linkerd) {
      Comments comments;
      detail::linkerdComments(*input.linkerd, comments);
      detail::writeYamlValue(w, *top,
                             {.inlineEmpty = true, .comments = &comments, .listIndexes = true});
      continue;
    }
    if (top.key() == "kuma" && top->is_object()) {
      Json kuma = *top;
      Comments comments;
      annotateKuma(kuma, comments);
      detail::writeYamlValue(w, kuma,
                             {.inlineEmpty = true, .comments = &comments, .listIndexes = true});
      continue;
    }
    if (top.key() != "policies" || top->empty()) {
      detail::writeYamlValue(w, *top, layout);
      continue;
    }
    w.beginList();
    for (const Json& entry : *top) {
      std::map<std::string, std::string, std::less<>> comments;
      for (const Json& p : entry.at("provenance"))
        comments[p.at("field").get<std::string>()] =
            originWords(p.at("policy").get<std::string>(), p.at("role").get<std::string>(),
                        p.at("level").get<std::string>()) +
            (p.contains("defaultFrom")
                 ? "; default from " + p.at("defaultFrom").get<std::string>()
                 : std::string());
      w.beginMap();
      for (auto it = entry.begin(); it != entry.end(); ++it) {
        w.key(it.key());
        detail::YamlLayout here = layout;
        if (it.key() == "effective") here.comments = &comments;
        detail::writeYamlValue(w, it.value(), here);
      }
      w.endMap();
    }
    w.endList();
  }
  w.endMap();
  out << w.str();
}

void writeKumaExplainYaml(std::ostream& out, const analysis::Analysis& analysis,
                          const model::Resource& target, const ExplainYamlOptions& options) {
  std::ostringstream json;
  writeKumaExplain(json, analysis, target, true, {});
  writeKumaYaml(out, json.str(), options);
}

void writeKumaExplainYaml(std::ostream& out, const analysis::Analysis& analysis,
                          const graph::kuma::Dataplane& dataplane,
                          const ExplainYamlOptions& options) {
  std::ostringstream json;
  writeKumaExplain(json, analysis, dataplane, true, {});
  writeKumaYaml(out, json.str(), options);
}

void writeExplainText(std::ostream& out, const ExplainInput& input, const TextOptions& options) {
  auto bold = [&](const std::string& s) { return options.color ? "\033[1m" + s + "\033[0m" : s; };
  auto dim = [&](const std::string& s) { return options.color ? "\033[2m" + s + "\033[0m" : s; };
  model::ObjectRef ref = input.target.ref();
  ref.sectionName = std::string(input.section);
  out << bold(ref.display()) << '\n';
  // A workload a mesh serves shows that mesh's sections below instead.
  if (input.effective.empty() && !input.linkerd && !input.kuma) out << "  no policy reaches it\n";
  for (const policy::Effective& e : input.effective) {
    std::string path;
    for (const policy::Step& s : e.path) path += (path.empty() ? "" : " > ") + s.display();
    out << '\n' << bold(e.profile->kind) << "  " << path << '\n';
    std::vector<policy::Provenance> leaves = policy::provenanceOf(e.value);
    std::size_t items = leaves.size() + (e.ineffective.empty() ? 0 : 1);
    std::size_t n = 0;
    for (const policy::Provenance& leaf : leaves) {
      const std::string& field = leaf.field;
      bool last = ++n == items;
      std::string branch = last ? "└─ " : "├─ ";
      std::string indent = last ? "   " : "│  ";
      out << branch << (field.empty() ? "(whole)" : field) << " = "
          << compact(detail::nodeToJson(leaf.node)) << '\n';
      out << indent
          << dim("from " + originWords(policyRef(leaf.origin.policy),
                                       policy::roleName(leaf.origin.role),
                                       levelOf(e, leaf.origin)));
      if (std::string from = schemaDefault(leaf); !from.empty())
        out << dim("; default from " + from);  // not written: no position of its own
      else if (std::string where = whereOf(leaf); !where.empty())
        out << dim("  " + where);
      out << '\n';
      for (const policy::Overridden& o : e.overridden) {
        bool under =
            o.field == field || (field.empty() ? false : o.field.rfind(field + ".", 0) == 0);
        if (under && o.by == leaf.origin.policy)
          out << indent
              << dim("beat " + policyRef(o.policy) + " (" + std::string(policy::roleName(o.role)) +
                     ")" + (o.field == field ? "" : " at " + o.field))
              << '\n';
      }
    }
    if (!e.ineffective.empty()) {
      out << "└─ not applied:";
      for (const policy::Policy* p : e.ineffective) out << ' ' << p->display();
      out << '\n';
    }
  }
  if (input.linkerd) {
    detail::Injection injection;
    if (input.analysis)
      injection.injected = policy::linkerd::injected(input.analysis->store,
                                                     *input.linkerd->workload, &injection.why);
    detail::writeLinkerdText(out, *input.linkerd, input.analysis ? &injection : nullptr,
                             options.color);
  }
  if (input.kuma && input.analysis)
    writeKumaExplain(out, *input.analysis, *input.kuma, false, options);
}

std::string explainJsonText(const ExplainInput& input) {
  std::ostringstream out;
  writeExplainJson(out, input);
  return out.str();
}

}  // namespace pg::report
