// `policygraph access`: the decision for one client and request, for people (the decision
// first, then what served the port, the route, each authorization and why) and as JSON.
#include <functional>
#include <ostream>
#include <string>

#include "lib/report/common.h"
#include "lib/report/report.h"
#include "lib/report/values.h"

namespace pg::report {

namespace {

using detail::Json;

std::string at(const model::Resource* r) {
  if (!r || !r->file) return {};
  return detail::position(r->locateField(r->metadata(), "name"));
}

std::string_view admitsName(policy::Admits a) {
  switch (a) {
    case policy::Admits::Yes:
      return "yes";
    case policy::Admits::No:
      return "no";
    case policy::Admits::Depends:
      return "depends";
  }
  return "no";
}

Json orNull(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

Json sourceJson(const model::Resource* r) {
  return {{"ref", r->display()}, {"at", at(r)}};
}

Json authorizationJson(const policy::AccessAuthorization& a) {
  Json sources = Json::array();
  for (const model::Resource* r : a.sources) sources.push_back(sourceJson(r));
  return {{"ref", {{"kind", a.ref.kind}, {"name", a.ref.name}}},
          {"level", a.level},
          {"authentication", a.authentication},
          {"admits", admitsName(a.admits)},
          {"reason", a.reason},
          {"sources", sources}};
}

std::string headline(const AccessInput& in) {
  const policy::AccessResult& r = in.result;
  std::string where = in.destination.display() + " port " + std::to_string(in.port);
  std::string action = in.request.http ? in.request.text + " on " + where : "connect to " + where;
  std::string status = r.status ? std::to_string(*r.status) + " " : std::string();
  switch (r.decision) {
    case policy::AccessDecision::Allowed:
      return "allowed: " + in.client.display + " may " + action +
             (r.status ? " (" + std::to_string(*r.status) + ")" : std::string());
    case policy::AccessDecision::Redirect:
      return status + "redirect: " + in.client.display + " may " + action +
             ", answered with a redirect";
    case policy::AccessDecision::Unauthorized:
      return status + "unauthorized: " + in.client.display + " may not " + action;
    case policy::AccessDecision::NoRoute:
      return status + "no route: nothing on " + where + " serves " + in.request.text;
    case policy::AccessDecision::Refused:
      return "connection refused: " + in.client.display + " may not connect to " + where;
  }
  return {};
}

std::string clientText(const policy::AccessClient& c) {
  std::string out = c.display + ": ";
  out += c.meshed ? "meshed, identity " + c.identity : std::string("not meshed");
  if (!c.meshedBecause.empty()) out += " (" + c.meshedBecause + ")";
  if (c.address) {
    out += ", address " + c.address->str();
  } else {
    std::string nets;
    for (const model::Cidr& n : c.assumedNetworks) nets += (nets.empty() ? "" : ", ") + n.str();
    out += ", address unknown: some address in clusterNetworks (" + nets + ")";
  }
  return out;
}

std::string subsetText(const std::vector<policy::AccessTagMatch>& subset) {
  std::string out;
  for (const policy::AccessTagMatch& m : subset)
    out += (out.empty() ? "" : ", ") + m.key + (m.negated ? "!=" : "=") + m.value;
  return out.empty() ? "every client" : out;
}

Json tagsJson(const std::vector<policy::AccessTag>& tags) {
  Json out = Json::array();
  for (const auto& [k, v] : tags) out.push_back({{"key", k}, {"value", v}});
  return out;
}

Json tagRuleJson(const policy::AccessTagRule& r) {
  Json subset = Json::array();
  for (const policy::AccessTagMatch& m : r.subset)
    subset.push_back({{"key", m.key}, {"value", m.value}, {"not", m.negated}});
  return {{"subset", subset},
          {"action", orNull(r.action)},
          {"policy", r.policy.resource ? Json(r.policy.resource->display()) : Json(nullptr)},
          {"from", r.item ? Json(*r.item) : Json(nullptr)},
          {"at", r.policy.resource ? orNull(detail::position(r.at)) : Json(nullptr)},
          {"origin", r.origin},
          {"coversClient", r.coversClient}};
}

// Kuma's parts of the document (family "kuma"): the inbound, the mesh's mutual TLS, the client's
// tags, the inbound's `from` rules in Kuma's order and the one that decided.
void addKumaJson(Json& doc, const AccessInput& in) {
  const policy::AccessResult& r = in.result;
  doc["client"]["tags"] = tagsJson(in.client.tags);
  if (r.inbound)
    doc["inbound"] = {{"name", orNull(r.inbound->name)},
                      {"port", r.inbound->port},
                      {"tags", tagsJson(r.inbound->tags)},
                      {"at", orNull(detail::position(r.inbound->at))}};
  doc["mtls"] = r.mtls;
  Json rules = Json::array();
  for (const policy::AccessTagRule& t : r.tagRules) rules.push_back(tagRuleJson(t));
  doc["rules"] = rules;
  doc["decidedBy"] = r.decidingRule ? tagRuleJson(r.tagRules[*r.decidingRule]) : Json(nullptr);
  Json matched = Json::array();
  if (r.decidingRule)
    for (const policy::AccessTagMatch& m : r.tagRules[*r.decidingRule].subset)
      if (!m.negated) matched.push_back({{"key", m.key}, {"value", m.value}});
  doc["matchedTags"] = matched;
}

// The client's tags a rule's subset names (its negations hold by their absence).
std::string matchedText(const policy::AccessTagRule& rule) {
  std::string out;
  for (const policy::AccessTagMatch& m : rule.subset)
    if (!m.negated) out += (out.empty() ? "" : ", ") + m.key + "=" + m.value;
  return out.empty() ? "none needed" : out;
}

void writeKumaText(std::ostream& out, const AccessInput& in,
                   const std::function<std::string(const std::string&)>& dim) {
  const policy::AccessResult& r = in.result;
  const policy::AccessClient& c = in.client;
  out << "  client: " << c.display << ": "
      << (c.meshed ? "meshed, tags " + policy::tagsText(c.tags) : std::string("no Kuma proxy"));
  if (!c.identity.empty()) out << ", identity " << c.identity;
  if (!c.meshedBecause.empty()) out << " (" << c.meshedBecause << ")";
  out << '\n';
  out << "  served by: Dataplane " << r.server.name;
  if (r.inbound) {
    out << " inbound " << (r.inbound->name.empty() ? "" : r.inbound->name + " ") << "port "
        << r.inbound->port << " (" << policy::tagsText(r.inbound->tags) << ")";
  }
  out << ", protocol " << r.protocol;
  if (r.inbound && !r.inbound->at.path.empty()) out << "  " << dim(detail::position(r.inbound->at));
  out << '\n';
  out << "  mutual TLS: " << r.mtls << '\n';
  if (r.decidingRule) {
    const policy::AccessTagRule& d = r.tagRules[*r.decidingRule];
    out << "  decided by: " << (d.action.empty() ? "(no action)" : d.action) << " for "
        << subsetText(d.subset);
    if (d.policy.resource) {
      out << " <- " << d.policy.name;
      if (d.item) out << " from[" << *d.item << "]";
      out << "  " << dim(detail::position(d.at));
    }
    out << '\n';
    out << "    client's tags that matched: " << matchedText(d) << '\n';
  }
  if (!r.tagRules.empty()) {
    out << "  from rules on the inbound (Kuma's order, the most specific first"
        << (!c.meshed && r.mtls == "STRICT" ? "; not reached, the TLS handshake fails first" : "")
        << "):\n";
    for (const policy::AccessTagRule& t : r.tagRules) {
      out << "    " << subsetText(t.subset) << ": "
          << (t.action.empty() ? "(no action)" : t.action);
      if (t.policy.resource) {
        out << " <- " << t.policy.name;
        if (t.item) out << " from[" << *t.item << "]";
      }
      out << (t.coversClient ? ", covers the client" : ", does not cover the client");
      if (t.policy.resource) out << "  " << dim(detail::position(t.at));
      out << '\n';
    }
  } else if (r.mtls != "disabled") {
    out << "  from rules on the inbound: none\n";
  }
  if (!r.condition.empty()) out << "  " << r.condition << '\n';
  for (const std::string& a : r.advice) out << "  to do: " << a << '\n';
  for (const std::string& n : r.notes) out << "  note: " << n << '\n';
}

}  // namespace

void writeAccessJson(std::ostream& out, const AccessInput& in) {
  const policy::AccessResult& r = in.result;
  const policy::AccessClient& c = in.client;
  Json assumed = Json::array();
  if (!c.address)
    for (const model::Cidr& n : c.assumedNetworks) assumed.push_back(n.str());
  Json request = nullptr;
  if (in.request.http)
    request = {{"method", in.request.method},
               {"path", in.request.path},
               {"host", orNull(in.request.host)}};
  Json route = nullptr;
  if (r.route) {
    Json ref = Json::object();
    if (!r.route->group.empty()) ref["group"] = r.route->group;
    ref["kind"] = r.route->ref.kind;
    ref["name"] = r.route->ref.name;
    route = {{"ref", ref},
             {"rule", r.route->rule},
             {"match", r.route->match ? Json(*r.route->match) : Json(nullptr)},
             {"description", r.route->matchText},
             {"at", orNull(at(r.route->ref.resource))}};
  }
  Json considered = Json::array();
  for (const policy::AccessAuthorization& a : r.considered)
    considered.push_back(authorizationJson(a));
  Json doc = {
      {"family", r.family},
      {"decision", policy::decisionName(r.decision)},
      {"status", r.status ? Json(*r.status) : Json(nullptr)},
      {"grpcStatus", orNull(r.grpcStatus)},
      {"client",
       {{"ref", c.display},
        {"meshed", c.meshed},
        {"identity", orNull(c.identity)},
        {"address", c.address ? Json(c.address->str()) : Json(nullptr)},
        {"assumedNetworks", assumed}}},
      {"destination", {{"workload", in.destination.display()}, {"port", in.port}}},
      {"request", request},
      {"server",
       {{"kind", r.server.kind}, {"name", r.server.name}, {"at", orNull(at(r.server.resource))}}},
      {"protocol", r.protocol},
      {"route", route},
      {"authorization", r.authorization ? authorizationJson(*r.authorization) : Json(nullptr)},
      {"considered", considered},
      {"condition", orNull(r.condition)},
      {"advice", r.advice},
      {"notes", r.notes}};
  if (r.family == "kuma") addKumaJson(doc, in);
  out << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

void writeAccessText(std::ostream& out, const AccessInput& in, const TextOptions& options) {
  const policy::AccessResult& r = in.result;
  auto bold = [&](const std::string& s) { return options.color ? "\033[1m" + s + "\033[0m" : s; };
  auto dim = [&](const std::string& s) { return options.color ? "\033[2m" + s + "\033[0m" : s; };
  out << bold(headline(in)) << '\n';
  if (r.family == "kuma") return writeKumaText(out, in, dim);
  out << "  client: " << clientText(in.client) << '\n';
  out << "  served by: "
      << (r.server.resource ? "Server/" + r.server.name : "default policy " + r.server.name)
      << ", protocol " << r.protocol;
  if (r.server.resource) out << "  " << dim(at(r.server.resource));
  out << '\n';
  if (r.route) {
    out << "  route: " << r.route->ref.kind << '/' << r.route->ref.name << " rules["
        << r.route->rule << ']';
    if (r.route->match) out << ".matches[" << *r.route->match << ']';
    out << ": " << r.route->matchText;
    if (r.route->ref.resource) out << "  " << dim(at(r.route->ref.resource));
    out << '\n';
  }
  if (r.status && r.decision == policy::AccessDecision::Redirect)
    out << "  response: redirect " << *r.status << '\n';
  if (!r.grpcStatus.empty()) out << "  gRPC status: " << r.grpcStatus << '\n';
  if (r.authorization)
    out << "  authorized by: " << r.authorization->ref.kind << '/' << r.authorization->ref.name
        << " (" << r.authorization->level << ", " << r.authorization->authentication
        << "): " << r.authorization->reason << '\n';
  if (!r.authorization && r.decision != policy::AccessDecision::NoRoute) {
    out << "  authorizations considered:";
    if (r.considered.empty()) out << " none";
    out << '\n';
    for (const policy::AccessAuthorization& a : r.considered) {
      out << "    " << a.level << ' ' << a.ref.kind << '/' << a.ref.name << " (" << a.authentication
          << "): " << admitsName(a.admits) << ", " << a.reason << '\n';
      for (const model::Resource* s : a.sources)
        out << "      " << dim("from " + s->display() + "  " + at(s)) << '\n';
    }
  } else if (r.authorization) {
    for (const model::Resource* s : r.authorization->sources)
      out << "    " << dim("from " + s->display() + "  " + at(s)) << '\n';
  }
  if (!r.condition.empty()) out << "  " << r.condition << '\n';
  for (const std::string& a : r.advice) out << "  to do: " << a << '\n';
  for (const std::string& n : r.notes) out << "  note: " << n << '\n';
}

}  // namespace pg::report
