// How Linkerd's index converts a route's rules (policy.linkerd.io HTTPRoute, Gateway API
// HTTPRoute and GRPCRoute) into the matches and filters it serves; what it cannot convert
// drops the whole route, and part of that the admission webhook refuses up front.
#include <algorithm>

#include "lib/policy/linkerd/inbound.h"
#include "lib/policy/linkerd/strings.h"

namespace pg::policy::linkerd {

namespace {

using detail::text;
using detail::view;

bool fail(Problem* problem, yaml::NodeRef at, std::string message, bool refused = true) {
  if (problem) *problem = {at, std::move(message), refused};
  return false;
}

// Header and query parameter matches: `type` Exact (the default) or RegularExpression.
bool readValueMatches(yaml::NodeRef list, std::vector<StringMatch>& out, Problem* problem) {
  for (yaml::NodeRef m : list.items()) {
    yaml::NodeRef typeNode = m.get("type");
    std::string_view type = typeNode ? view(typeNode) : "Exact";
    StringMatch match;
    if (type == "Exact")
      match.kind = "exact";
    else if (type == "RegularExpression")
      match.kind = "regex";
    else
      return fail(problem, typeNode, "unknown match type \"" + std::string(type) + "\"");
    match.name = text(m.get("name"));
    match.value = text(m.get("value"));
    out.push_back(std::move(match));
  }
  return true;
}

bool readPath(yaml::NodeRef path, std::optional<StringMatch>& out, Problem* problem) {
  if (!path) return true;
  yaml::NodeRef typeNode = path.get("type");
  yaml::NodeRef valueNode = path.get("value");
  std::string_view type = typeNode ? view(typeNode) : "PathPrefix";
  std::string_view value = valueNode ? view(valueNode) : "/";
  StringMatch m;
  if (type == "Exact" || type == "PathPrefix") {
    if (value.empty() || value.front() != '/')
      return fail(problem, valueNode ? valueNode : path,
                  "path \"" + std::string(value) +
                      "\" is relative: Linkerd accepts only absolute paths "
                      "(starting with /)");
    m.kind = type == "Exact" ? "exact" : "prefix";
  } else if (type == "RegularExpression") {
    m.kind = "regex";
  } else {
    return fail(problem, typeNode, "unknown path match type \"" + std::string(type) + "\"");
  }
  m.value = value;
  out = std::move(m);
  return true;
}

bool readHeaderModifier(yaml::NodeRef node, HeaderModifier& out) {
  for (yaml::NodeRef h : node.get("add").items())
    out.add.emplace_back(text(h.get("name")), text(h.get("value")));
  for (yaml::NodeRef h : node.get("set").items())
    out.set.emplace_back(text(h.get("name")), text(h.get("value")));
  for (yaml::NodeRef h : node.get("remove").items()) out.remove.push_back(text(h));
  return true;
}

bool readRedirect(yaml::NodeRef node, Filter& f, Problem* problem) {
  f.scheme = text(node.get("scheme"));
  f.hostname = text(node.get("hostname"));
  f.port = node.get("port").asInt();
  f.statusCode = node.get("statusCode").asInt();
  if (yaml::NodeRef path = node.get("path")) {
    // The field decides, not `type` (`path_modifier`): a full path first, then a prefix.
    StringMatch m;
    yaml::NodeRef value = path.get("replaceFullPath");
    m.kind = "replaceFullPath";
    if (!value) {
      value = path.get("replacePrefixMatch");
      m.kind = "replacePrefixMatch";
    }
    if (!value)
      return fail(problem, path,
                  "a RequestRedirect path needs replaceFullPath or replacePrefixMatch");
    m.value = text(value);
    if (m.value.empty() || m.value.front() != '/')
      return fail(problem, value,
                  "redirect path \"" + m.value +
                      "\" is relative: Linkerd accepts only absolute "
                      "paths (starting with /)");
    f.path = std::move(m);
  }
  return true;
}

// A filter is what its fields hold (`try_gateway_filter` looks at the fields in this order, not
// at `type`); one Linkerd does not implement is admitted but drops the route from the index.
bool readFilters(yaml::NodeRef list, bool grpc, std::vector<Filter>& out, Problem* problem) {
  for (yaml::NodeRef node : list.items()) {
    Filter f;
    if (yaml::NodeRef h = node.get("requestHeaderModifier")) {
      f.kind = Filter::Kind::RequestHeaderModifier;
      readHeaderModifier(h, f.headers);
    } else if (yaml::NodeRef h = node.get("responseHeaderModifier")) {
      f.kind = Filter::Kind::ResponseHeaderModifier;
      readHeaderModifier(h, f.headers);
    } else if (yaml::NodeRef r = grpc ? yaml::NodeRef() : node.get("requestRedirect")) {
      f.kind = Filter::Kind::RequestRedirect;
      if (!readRedirect(r, f, problem)) return false;
    } else {
      std::string type = text(node.get("type"));
      return fail(problem, node.get("type") ? node.get("type") : node,
                  "Linkerd does not implement the " + (type.empty() ? "empty" : type) +
                      " filter here: its inbound index drops the whole route",
                  false);
    }
    out.push_back(std::move(f));
  }
  return true;
}

bool readHttpMatch(yaml::NodeRef m, HttpMatch& out, Problem* problem) {
  return readPath(m.get("path"), out.path, problem) &&
         readValueMatches(m.get("headers"), out.headers, problem) &&
         readValueMatches(m.get("queryParams"), out.queryParams, problem) &&
         ((out.method = text(m.get("method"))), true);
}

bool readGrpcMatch(yaml::NodeRef m, GrpcMatch& out, Problem* problem) {
  if (yaml::NodeRef method = m.get("method")) {
    std::string type = method.get("type") ? text(method.get("type")) : "Exact";
    if (type != "Exact")
      return fail(
          problem, method.get("type"),
          "gRPC method match type \"" + type + "\": Linkerd accepts only Exact method matches");
    out.hasMethod = true;
    out.service = text(method.get("service"));
    out.method = text(method.get("method"));
  }
  return readValueMatches(m.get("headers"), out.headers, problem);
}

}  // namespace

std::optional<std::vector<RouteRule>> convertRules(const model::Resource& route, bool grpc,
                                                   Problem* problem) {
  std::vector<RouteRule> rules;
  for (yaml::NodeRef r : route.spec().get("rules").items()) {
    RouteRule rule;
    for (yaml::NodeRef m : r.get("matches").items()) {
      bool ok = grpc ? readGrpcMatch(m, rule.grpcMatches.emplace_back(), problem)
                     : readHttpMatch(m, rule.httpMatches.emplace_back(), problem);
      if (!ok) return std::nullopt;
    }
    if (!readFilters(r.get("filters"), grpc, rule.filters, problem)) return std::nullopt;
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace pg::policy::linkerd
