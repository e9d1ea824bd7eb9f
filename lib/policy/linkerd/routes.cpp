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

// Each reader checks what the index (and part of it, the admission webhook) checks, and
// converts into `out` where one is given: the webhook's check builds nothing.

// Header and query parameter matches: `type` Exact (the default) or RegularExpression.
bool readValueMatches(yaml::NodeRef list, std::vector<StringMatch>* out, Problem* problem) {
  for (yaml::NodeRef m : list.items()) {
    yaml::NodeRef typeNode = m.get("type");
    std::string_view type = typeNode ? view(typeNode) : "Exact";
    if (type != "Exact" && type != "RegularExpression")
      return fail(problem, typeNode, "unknown match type \"" + std::string(type) + "\"");
    if (!out) continue;
    StringMatch& match = out->emplace_back();
    match.kind = type == "Exact" ? "exact" : "regex";
    match.name = text(m.get("name"));
    match.value = text(m.get("value"));
  }
  return true;
}

bool readPath(yaml::NodeRef path, std::optional<StringMatch>* out, Problem* problem) {
  if (!path) return true;
  yaml::NodeRef typeNode = path.get("type");
  yaml::NodeRef valueNode = path.get("value");
  std::string_view type = typeNode ? view(typeNode) : "PathPrefix";
  std::string_view value = valueNode ? view(valueNode) : "/";
  const char* kind = nullptr;
  if (type == "Exact" || type == "PathPrefix") {
    if (value.empty() || value.front() != '/')
      return fail(problem, valueNode ? valueNode : path,
                  "path \"" + std::string(value) +
                      "\" is relative: Linkerd accepts only absolute paths "
                      "(starting with /)");
    kind = type == "Exact" ? "exact" : "prefix";
  } else if (type == "RegularExpression") {
    kind = "regex";
  } else {
    return fail(problem, typeNode, "unknown path match type \"" + std::string(type) + "\"");
  }
  if (out) *out = StringMatch{kind, std::string(value), {}};
  return true;
}

void readHeaderModifier(yaml::NodeRef node, HeaderModifier& out) {
  for (yaml::NodeRef h : node.get("add").items())
    out.add.emplace_back(text(h.get("name")), text(h.get("value")));
  for (yaml::NodeRef h : node.get("set").items())
    out.set.emplace_back(text(h.get("name")), text(h.get("value")));
  for (yaml::NodeRef h : node.get("remove").items()) out.remove.push_back(text(h));
}

bool readRedirect(yaml::NodeRef node, Filter* f, Problem* problem) {
  if (f) {
    f->scheme = text(node.get("scheme"));
    f->hostname = text(node.get("hostname"));
    f->port = node.get("port").asInt();
    f->statusCode = node.get("statusCode").asInt();
  }
  if (yaml::NodeRef path = node.get("path")) {
    // The field decides, not `type` (`path_modifier`): a full path first, then a prefix.
    const char* kind = "replaceFullPath";
    yaml::NodeRef value = path.get("replaceFullPath");
    if (!value) {
      value = path.get("replacePrefixMatch");
      kind = "replacePrefixMatch";
    }
    if (!value)
      return fail(problem, path,
                  "a RequestRedirect path needs replaceFullPath or replacePrefixMatch");
    std::string_view to = view(value);
    if (to.empty() || to.front() != '/')
      return fail(problem, value,
                  "redirect path \"" + std::string(to) +
                      "\" is relative: Linkerd accepts only absolute "
                      "paths (starting with /)");
    if (f) f->path = StringMatch{kind, std::string(to), {}};
  }
  return true;
}

// A filter is what its fields hold (`try_gateway_filter` looks at the fields in this order, not
// at `type`); one Linkerd does not implement is admitted but drops the route from the index.
bool readFilters(yaml::NodeRef list, bool grpc, std::vector<Filter>* out, Problem* problem) {
  for (yaml::NodeRef node : list.items()) {
    Filter f;
    if (yaml::NodeRef h = node.get("requestHeaderModifier")) {
      f.kind = Filter::Kind::RequestHeaderModifier;
      if (out) readHeaderModifier(h, f.headers);
    } else if (yaml::NodeRef h = node.get("responseHeaderModifier")) {
      f.kind = Filter::Kind::ResponseHeaderModifier;
      if (out) readHeaderModifier(h, f.headers);
    } else if (yaml::NodeRef r = grpc ? yaml::NodeRef() : node.get("requestRedirect")) {
      f.kind = Filter::Kind::RequestRedirect;
      if (!readRedirect(r, out ? &f : nullptr, problem)) return false;
    } else {
      std::string type = text(node.get("type"));
      return fail(problem, node.get("type") ? node.get("type") : node,
                  "Linkerd does not implement the " + (type.empty() ? "empty" : type) +
                      " filter here: its inbound index drops the whole route",
                  false);
    }
    if (out) out->push_back(std::move(f));
  }
  return true;
}

bool readHttpMatch(yaml::NodeRef m, HttpMatch* out, Problem* problem) {
  if (!readPath(m.get("path"), out ? &out->path : nullptr, problem) ||
      !readValueMatches(m.get("headers"), out ? &out->headers : nullptr, problem) ||
      !readValueMatches(m.get("queryParams"), out ? &out->queryParams : nullptr, problem))
    return false;
  if (out) out->method = text(m.get("method"));
  return true;
}

bool readGrpcMatch(yaml::NodeRef m, GrpcMatch* out, Problem* problem) {
  if (yaml::NodeRef method = m.get("method")) {
    yaml::NodeRef typeNode = method.get("type");
    std::string_view type = typeNode ? view(typeNode) : "Exact";
    if (type != "Exact")
      return fail(problem, typeNode,
                  "gRPC method match type \"" + std::string(type) +
                      "\": Linkerd accepts only Exact method matches");
    if (out) {
      out->hasMethod = true;
      out->service = text(method.get("service"));
      out->method = text(method.get("method"));
    }
  }
  return readValueMatches(m.get("headers"), out ? &out->headers : nullptr, problem);
}

// The route's rules, converted into `out` when given; false at the first problem.
bool readRules(const model::Resource& route, bool grpc, std::vector<RouteRule>* out,
               Problem* problem) {
  for (yaml::NodeRef r : route.spec().get("rules").items()) {
    RouteRule* rule = out ? &out->emplace_back() : nullptr;
    for (yaml::NodeRef m : r.get("matches").items()) {
      bool ok = grpc
                    ? readGrpcMatch(m, rule ? &rule->grpcMatches.emplace_back() : nullptr, problem)
                    : readHttpMatch(m, rule ? &rule->httpMatches.emplace_back() : nullptr, problem);
      if (!ok) return false;
    }
    if (!readFilters(r.get("filters"), grpc, rule ? &rule->filters : nullptr, problem))
      return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<RouteRule>> convertRules(const model::Resource& route, bool grpc,
                                                   Problem* problem) {
  std::vector<RouteRule> rules;
  if (!readRules(route, grpc, &rules, problem)) return std::nullopt;
  return rules;
}

std::optional<Problem> ruleProblem(const model::Resource& route, bool grpc) {
  Problem problem;
  if (readRules(route, grpc, nullptr, &problem)) return std::nullopt;
  return problem;
}

}  // namespace pg::policy::linkerd
