#include "lib/graph/rules_validation.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "lib/graph/envoy_route_filters.h"
#include "lib/graph/hostname.h"
#include "lib/graph/topology.h"
#include "lib/model/ascii.h"
#include "lib/model/quote.h"
#include "lib/model/regex.h"

namespace pg::graph {

namespace {

using Problem = std::optional<RouteProblem>;

// The Accepted reasons the Gateway API defines for invalid rules, plus the one Envoy Gateway
// uses for TCP and UDP routes.
constexpr std::string_view kUnsupportedValue = "UnsupportedValue";
constexpr std::string_view kIncompatibleFilters = "IncompatibleFilters";
constexpr std::string_view kInvalidRule = "InvalidRule";

Problem problem(std::string_view reason, std::string message, yaml::NodeRef at) {
  return RouteProblem{std::string(reason), std::move(message), at, nullptr, {}};
}

// Written and not null: what the controller's decoder turns into a set field.
bool present(yaml::NodeRef node) {
  return node && !node.isNull();
}

// The node to point at: the field itself when written, else its parent.
yaml::NodeRef fieldOr(yaml::NodeRef field, yaml::NodeRef parent) {
  return field ? field : parent;
}

bool isOneOf(std::string_view value, std::initializer_list<std::string_view> allowed) {
  return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// RFC 7230 `token`, the pattern of the Gateway API's HTTPHeaderName. It excludes ':' and '/',
// so pseudo-headers (":authority") are not names a filter may touch.
bool isHeaderName(std::string_view name) {
  constexpr std::string_view kSymbols = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           kSymbols.find(c) != std::string_view::npos;
  });
}

// HTTPHeader.Value's pattern `^[!-~]+([\t ]?[!-~]+)*$`: visible ASCII words separated by one
// space or tab. Envoy Gateway applies it to every value it adds or sets, so empty values and
// line breaks (which would split the header) are rejected.
bool isHeaderValue(std::string_view value) {
  bool afterSeparator = true;  // the value may not start with a separator
  for (char c : value) {
    if (c >= '!' && c <= '~') {
      afterSeparator = false;
    } else if ((c == ' ' || c == '\t') && !afterSeparator) {
      afterSeparator = true;
    } else {
      return false;
    }
  }
  return !afterSeparator;  // neither empty nor ending in a separator
}

// PreciseHostname: a lower-case RFC 1123 subdomain, no wildcard. Envoy Gateway checks it with
// the Kubernetes DNS-1123 subdomain rule, which bounds the whole name (253) but not labels.
bool isPreciseHostname(std::string_view name) {
  return isDns1123Subdomain(name);
}

// Header modifiers (RequestHeaderModifier, ResponseHeaderModifier).

// A header a modifier filter names in set, add or remove. Envoy Gateway also refuses the Host
// header: Envoy does not let header mutations touch it, and URLRewrite's hostname rewrites it.
Problem checkModifiedHeaderName(std::string_view filterType, std::string_view action,
                                yaml::NodeRef nameNode, yaml::NodeRef entry) {
  const std::string_view name = nameNode.str();
  const yaml::NodeRef at = fieldOr(nameNode, entry);
  if (name.empty())
    return problem(kUnsupportedValue,
                   std::string(filterType) + " cannot " + std::string(action) +
                       " a header with an empty name; give the header a name",
                   at);
  if (!isHeaderName(name))
    return problem(kUnsupportedValue,
                   "Header " + model::quoted(name) + " in " + std::string(filterType) + " " +
                       std::string(action) +
                       " is not a valid header name: use letters, digits and !#$%&'*+-.^_`|~ "
                       "only (no ':' or '/', so pseudo-headers cannot be modified)",
                   at);
  if (model::equalsIgnoringCase(name, "host"))
    return problem(kUnsupportedValue,
                   std::string(filterType) + " cannot " + std::string(action) +
                       " the Host header; rewrite it with a URLRewrite filter's hostname instead",
                   at);
  return std::nullopt;
}

// set and add entries: a header name and the value to write.
Problem checkHeaderEntries(std::string_view filterType, std::string_view action,
                           yaml::NodeRef entries) {
  for (yaml::NodeRef entry : entries.items()) {
    yaml::NodeRef name = entry.get("name");
    if (Problem p = checkModifiedHeaderName(filterType, action, name, entry)) return p;
    yaml::NodeRef value = entry.get("value");
    if (!isHeaderValue(value.str()))
      return problem(kUnsupportedValue,
                     "Header " + model::quoted(name.str()) + " in " + std::string(filterType) +
                         " " + std::string(action) +
                         " has an invalid value: use non-empty printable ASCII, words separated "
                         "by a single space or tab, without line breaks",
                     fieldOr(value, entry));
  }
  return std::nullopt;
}

Problem checkHeaderModifier(std::string_view filterType, yaml::NodeRef config) {
  if (Problem p = checkHeaderEntries(filterType, "set", config.get("set"))) return p;
  if (Problem p = checkHeaderEntries(filterType, "add", config.get("add"))) return p;
  for (yaml::NodeRef name : config.get("remove").items())
    if (Problem p = checkModifiedHeaderName(filterType, "remove", name, name)) return p;
  return std::nullopt;
}

// Path modifiers and hostnames (RequestRedirect, URLRewrite).

// ReplacePrefixMatch replaces the prefix a PathPrefix match matched; under any other match type
// there is no such prefix, and the specification has the route rejected (HTTPPathModifier).
// A match without a path, or a path without a type, is PathPrefix by default.
Problem checkPrefixMatchesOnly(std::string_view filterType, const RouteRule& rule) {
  for (yaml::NodeRef match : rule.node.get("matches").items()) {
    yaml::NodeRef type = match.get("path").get("type");
    if (present(type) && type.str() != "PathPrefix")
      return problem(kUnsupportedValue,
                     std::string(filterType) +
                         " path type ReplacePrefixMatch needs PathPrefix matches, but this rule "
                         "matches the path with type " +
                         std::string(type.str()) +
                         "; use a PathPrefix match or a ReplaceFullPath modifier",
                     type);
  }
  return std::nullopt;
}

// One path type, the value it needs, and the value of the other type that must stay unset.
Problem checkPathValues(std::string_view filterType, yaml::NodeRef path, std::string_view type,
                        std::string_view needed, std::string_view forbidden) {
  const std::string prefix = std::string(filterType) + " path type " + std::string(type);
  if (yaml::NodeRef other = path.get(forbidden); present(other))
    return problem(kUnsupportedValue,
                   prefix + " cannot be combined with " + std::string(forbidden) +
                       "; remove it or change the type",
                   other);
  if (!present(path.get(needed)))
    return problem(kUnsupportedValue, prefix + " needs " + std::string(needed) + " to be set",
                   path);
  return std::nullopt;
}

Problem checkPathModifier(std::string_view filterType, const RouteRule& rule, yaml::NodeRef path) {
  if (!present(path)) return std::nullopt;
  yaml::NodeRef type = path.get("type");
  if (type.str() == "ReplaceFullPath")
    return checkPathValues(filterType, path, "ReplaceFullPath", "replaceFullPath",
                           "replacePrefixMatch");
  if (type.str() == "ReplacePrefixMatch") {
    if (Problem p = checkPathValues(filterType, path, "ReplacePrefixMatch", "replacePrefixMatch",
                                    "replaceFullPath"))
      return p;
    return checkPrefixMatchesOnly(filterType, rule);
  }
  return problem(kUnsupportedValue,
                 std::string(filterType) + " path type " + model::quoted(type.str()) +
                     " is not supported; use ReplaceFullPath or ReplacePrefixMatch",
                 fieldOr(type, path));
}

Problem checkHostnameField(std::string_view filterType, yaml::NodeRef hostname) {
  if (!present(hostname) || isPreciseHostname(hostname.str())) return std::nullopt;
  return problem(kUnsupportedValue,
                 std::string(filterType) + " hostname " + model::quoted(hostname.str()) +
                     " is not a valid hostname: use lower-case RFC 1123 labels (letters, digits "
                     "and '-', starting and ending with a letter or digit) joined by dots, "
                     "without a wildcard or port",
                 hostname);
}

Problem checkRedirect(const RouteRule& rule, yaml::NodeRef config) {
  constexpr std::string_view kFilter = "RequestRedirect";
  if (yaml::NodeRef scheme = config.get("scheme");
      present(scheme) && !isOneOf(scheme.str(), {"http", "https"}))
    return problem(kUnsupportedValue,
                   "RequestRedirect scheme " + model::quoted(scheme.str()) +
                       " is not supported; use http or https",
                   scheme);
  if (Problem p = checkHostnameField(kFilter, config.get("hostname"))) return p;
  if (Problem p = checkPathModifier(kFilter, rule, config.get("path"))) return p;
  // 301 and 302 are core, 303, 307 and 308 extended; Envoy Gateway supports all five.
  if (yaml::NodeRef code = config.get("statusCode"); present(code)) {
    const std::optional<std::int64_t> value = code.asInt();
    if (!value ||
        (*value != 301 && *value != 302 && *value != 303 && *value != 307 && *value != 308))
      return problem(kUnsupportedValue,
                     "RequestRedirect statusCode " + std::string(code.str()) +
                         " is not supported; use 301, 302, 303, 307 or 308",
                     code);
  }
  return std::nullopt;
}

Problem checkUrlRewrite(const RouteRule& rule, yaml::NodeRef config) {
  constexpr std::string_view kFilter = "URLRewrite";
  if (Problem p = checkHostnameField(kFilter, config.get("hostname"))) return p;
  return checkPathModifier(kFilter, rule, config.get("path"));
}

// Filters of a rule.

// The filter types each route kind defines (HTTPRouteFilterType, GRPCRouteFilterType). Any
// other value must set Accepted False with UnsupportedValue.
bool knownFilterType(RouteKind kind, std::string_view type) {
  if (kind == RouteKind::GRPC)
    return isOneOf(
        type, {"RequestHeaderModifier", "ResponseHeaderModifier", "RequestMirror", "ExtensionRef"});
  return isOneOf(type, {"RequestHeaderModifier", "ResponseHeaderModifier", "RequestMirror",
                        "RequestRedirect", "URLRewrite", "CORS", "ExternalAuth", "ExtensionRef"});
}

// The filters of a rule seen so far, for the checks on combinations.
struct SeenFilters {
  yaml::NodeRef redirect;
  yaml::NodeRef rewrite;
  yaml::NodeRef mirror;
};

// Combinations a rule may not hold. RequestRedirect and URLRewrite each appear at most once,
// and not together (HTTPRouteRule.Filters; Envoy Gateway rejects the repeats as
// UnsupportedValue). A redirect answers the request itself, so a mirror next to it would never
// fire: Envoy Gateway rejects that pair too (envoyproxy/gateway#7473). Header modifiers may
// repeat here: Envoy Gateway merges them, first entry wins.
Problem checkCombination(std::string_view type, yaml::NodeRef typeNode, const SeenFilters& seen) {
  auto incompatible = [&](std::string_view other) {
    return problem(kIncompatibleFilters,
                   std::string(type) + " and " + std::string(other) +
                       " filters cannot be used in the same rule; split them into two rules",
                   typeNode);
  };
  if (type == "RequestRedirect") {
    if (seen.redirect)
      return problem(kUnsupportedValue,
                     "A rule may have only one RequestRedirect filter; remove the extra one",
                     typeNode);
    if (seen.rewrite) return incompatible("URLRewrite");
    if (seen.mirror) return incompatible("RequestMirror");
  } else if (type == "URLRewrite") {
    if (seen.rewrite)
      return problem(kUnsupportedValue,
                     "A rule may have only one URLRewrite filter; merge the rewrites into one",
                     typeNode);
    if (seen.redirect) return incompatible("RequestRedirect");
  } else if (type == "RequestMirror") {
    if (seen.redirect) return incompatible("RequestRedirect");
  }
  return std::nullopt;
}

// One filter's own configuration.
Problem checkFilterConfig(const RouteRule& rule, std::string_view type, yaml::NodeRef filter) {
  if (type == "RequestHeaderModifier")
    return checkHeaderModifier(type, filter.get("requestHeaderModifier"));
  if (type == "ResponseHeaderModifier")
    return checkHeaderModifier(type, filter.get("responseHeaderModifier"));
  if (type == "RequestRedirect") return checkRedirect(rule, filter.get("requestRedirect"));
  if (type == "URLRewrite") return checkUrlRewrite(rule, filter.get("urlRewrite"));
  if (type == "ExtensionRef" && !present(filter.get("extensionRef")))
    return problem(kUnsupportedValue,
                   "An ExtensionRef filter needs extensionRef naming the filter object", filter);
  return std::nullopt;
}

// The rule filter types a route's controller takes, when its profile names them.
std::span<const std::string_view> takenFilterTypes(const Route& route) {
  return route.kind == RouteKind::HTTP ? route.profile->httpRuleFilterTypes
                                       : route.profile->grpcRuleFilterTypes;
}

Problem checkFilters(const Route& route, const RouteRule& rule) {
  SeenFilters seen;
  const std::span<const std::string_view> taken = takenFilterTypes(route);
  for (yaml::NodeRef filter : rule.node.get("filters").items()) {
    yaml::NodeRef typeNode = filter.get("type");
    const std::string_view type = typeNode.str();
    if (!knownFilterType(route.kind, type))
      return problem(kUnsupportedValue,
                     "Filter type " + model::quoted(type) + " is not supported in a " +
                         std::string(routeKindName(route.kind)) +
                         (route.kind == RouteKind::GRPC
                              ? "; use RequestHeaderModifier, ResponseHeaderModifier, "
                                "RequestMirror or ExtensionRef"
                              : "; use RequestHeaderModifier, ResponseHeaderModifier, "
                                "RequestMirror, RequestRedirect, URLRewrite, CORS or "
                                "ExtensionRef"),
                     fieldOr(typeNode, filter));
    if (!taken.empty() && std::find(taken.begin(), taken.end(), type) == taken.end()) {
      std::string list;
      for (std::string_view t : taken) list += (list.empty() ? "" : ", ") + std::string(t);
      return problem(kUnsupportedValue,
                     std::string(route.profile->name) + " does not support a filter of type " +
                         model::quoted(type) + " in a " + std::string(routeKindName(route.kind)) +
                         ", so it drops the rule; use " + list,
                     fieldOr(typeNode, filter));
    }
    if (Problem p = checkCombination(type, typeNode, seen)) return p;
    if (Problem p = checkFilterConfig(rule, type, filter)) return p;
    if (type == "RequestRedirect") seen.redirect = filter;
    if (type == "URLRewrite") seen.rewrite = filter;
    if (type == "RequestMirror") seen.mirror = filter;
  }
  return std::nullopt;
}

// Matches of an HTTPRoute rule.

// An enum field whose unknown values must set Accepted False with UnsupportedValue
// (PathMatchType, HeaderMatchType, QueryParamMatchType, HTTPMethod).
Problem checkEnumField(std::string_view what, yaml::NodeRef field,
                       std::initializer_list<std::string_view> allowed) {
  if (!present(field) || isOneOf(field.str(), allowed)) return std::nullopt;
  std::string list;
  for (std::string_view value : allowed) list += (list.empty() ? "" : ", ") + std::string(value);
  return problem(kUnsupportedValue,
                 std::string(what) + " " + model::quoted(field.str()) +
                     " is not supported; use one of " + list,
                 field);
}

// A RegularExpression match's pattern that RE2 (Go's regexp) cannot compile.
Problem checkRegex(yaml::NodeRef type, yaml::NodeRef value) {
  if (type.str() != "RegularExpression" || !present(value)) return std::nullopt;
  const std::string error = model::re2Error(value.str());
  if (error.empty()) return std::nullopt;
  return problem(kUnsupportedValue,
                 "regex " + model::quoted(value.str()) + " is invalid: " + error +
                     "; the controller compiles match patterns as RE2 (Go's regexp), which has "
                     "no lookaround and no backreferences, so rewrite the pattern in RE2 syntax",
                 value);
}

Problem checkHttpMatches(const RouteRule& rule, bool regexes) {
  for (yaml::NodeRef match : rule.node.get("matches").items()) {
    // One pass over the match's fields (every rule of every route comes here), checked in the
    // order Envoy Gateway reports them: path, headers, query parameters, method. A repeated key
    // counts once, the first, as everywhere else.
    yaml::NodeRef path, headers, queryParams, method;
    for (auto [key, value] : match.entries()) {
      const std::string_view name = key.str();
      yaml::NodeRef* slot = name == "path"          ? &path
                            : name == "headers"     ? &headers
                            : name == "queryParams" ? &queryParams
                            : name == "method"      ? &method
                                                    : nullptr;
      if (slot && !*slot) *slot = value;
    }
    if (Problem p = checkEnumField("Path match type", path.get("type"),
                                   {"Exact", "PathPrefix", "RegularExpression"}))
      return p;
    for (yaml::NodeRef header : headers.items())
      if (Problem p = checkEnumField("Header match type", header.get("type"),
                                     {"Exact", "RegularExpression"}))
        return p;
    for (yaml::NodeRef param : queryParams.items())
      if (Problem p = checkEnumField("Query parameter match type", param.get("type"),
                                     {"Exact", "RegularExpression"}))
        return p;
    if (Problem p = checkEnumField(
            "Method", method,
            {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}))
      return p;
    if (!regexes) continue;
    if (Problem p = checkRegex(path.get("type"), path.get("value"))) return p;
    for (yaml::NodeRef header : headers.items())
      if (Problem p = checkRegex(header.get("type"), header.get("value"))) return p;
    for (yaml::NodeRef param : queryParams.items())
      if (Problem p = checkRegex(param.get("type"), param.get("value"))) return p;
  }
  return std::nullopt;
}

// A GRPCRoute rule's RegularExpression matches: the method's service and method, and headers.
Problem checkGrpcRegexes(const RouteRule& rule) {
  for (yaml::NodeRef match : rule.node.get("matches").items()) {
    yaml::NodeRef method = match.get("method");
    if (Problem p = checkRegex(method.get("type"), method.get("service"))) return p;
    if (Problem p = checkRegex(method.get("type"), method.get("method"))) return p;
    for (yaml::NodeRef header : match.get("headers").items())
      if (Problem p = checkRegex(header.get("type"), header.get("value"))) return p;
  }
  return std::nullopt;
}

// Route-level checks.

// Envoy Gateway programs one rule per TCPRoute or UDPRoute: their rules have nothing to match
// on, so a second rule could never be chosen. It rejects any other count as InvalidRule.
Problem checkSingleRule(const Route& route) {
  if (route.kind != RouteKind::TCP && route.kind != RouteKind::UDP) return std::nullopt;
  if (route.rules.size() == 1) return std::nullopt;
  const std::string kind(routeKindName(route.kind));
  yaml::NodeRef spec = route.resource->spec();
  yaml::NodeRef at =
      route.rules.size() > 1 ? route.rules[1].node : fieldOr(spec.get("rules"), spec);
  return problem(kInvalidRule,
                 kind + " must have exactly one rule, found " + std::to_string(route.rules.size()) +
                     ": a " + kind +
                     " has nothing to tell rules apart, so put every backendRef in one rule",
                 at);
}

// RouteRuleChecks::TranslationErrors: each rule's first filter of a type the controller does
// not translate, as it reads the rule (filters in order; the translation ends there).
void refuseUntranslatedFilters(Route& route) {
  if (route.kind != RouteKind::HTTP && route.kind != RouteKind::GRPC) return;
  const ControllerProfile& profile = *route.profile;
  const std::span<const std::string_view> taken = takenFilterTypes(route);
  std::string list;
  for (std::string_view type : taken) list += (list.empty() ? "" : ", ") + std::string(type);
  for (RouteRule& rule : route.rules)
    for (yaml::NodeRef filter : rule.node.get("filters").items()) {
      yaml::NodeRef typeNode = filter.get("type");
      if (std::find(taken.begin(), taken.end(), typeNode.str()) != taken.end()) continue;
      rule.refusedFilters.push_back(
          {"InvalidFilter",
           std::string(profile.name) + " does not translate a filter of type " +
               model::quoted(typeNode.str()) + " in a " + std::string(routeKindName(route.kind)) +
               " rule (\"unsupported filter type\"), so it stops translating the route and "
               "programs none of its rules; use " +
               list + ", or move the route to a controller that supports it",
           fieldOr(typeNode, filter)});
      break;
    }
}

}  // namespace

// NGINX Gateway Fabric's validateGRPCMethodMatch: a method match names both the service and
// the method (the specification needs one of them).
Problem checkGrpcMethodsComplete(const Route& route, const RouteRule& rule) {
  for (yaml::NodeRef match : rule.node.get("matches").items()) {
    yaml::NodeRef method = match.get("method");
    if (!method.isMapping()) continue;
    const bool service = !method.get("service").str().empty();
    const bool name = !method.get("method").str().empty();
    if (service && name) continue;
    return problem(kUnsupportedValue,
                   std::string(route.profile->name) +
                       " needs both service and method in a GRPCRoute method match (" +
                       (service ? "method" : "service") +
                       " is missing), so it drops the rule; name both",
                   method);
  }
  return std::nullopt;
}

std::optional<RouteProblem> validateRouteRule(const Route& route, const RouteRule& rule) {
  if (route.kind != RouteKind::HTTP && route.kind != RouteKind::GRPC) return std::nullopt;
  // Filters first, then matches: the order Envoy Gateway reports them in.
  if (Problem p = checkFilters(route, rule)) return p;
  if (route.profile->checksEnvoyRouteFilters && !rule.extensionFilters.empty())
    if (Problem p = checkEnvoyRouteFilters(route, rule)) return p;
  const bool regexes = route.profile->compilesMatchRegexes;
  if (route.kind == RouteKind::HTTP) return checkHttpMatches(rule, regexes);
  if (route.profile->grpcMethodNeedsServiceAndMethod)
    if (Problem p = checkGrpcMethodsComplete(route, rule)) return p;
  if (regexes) return checkGrpcRegexes(rule);
  return std::nullopt;
}

std::optional<RouteProblem> validateRouteRules(Route& route) {
  if (route.profile->routeRuleChecks == RouteRuleChecks::TranslationErrors) {
    refuseUntranslatedFilters(route);
    return std::nullopt;
  }
  if (Problem p = checkSingleRule(route)) return p;
  bool anyValid = false;
  for (RouteRule& rule : route.rules) {
    Problem p = validateRouteRule(route, rule);
    anyValid = anyValid || !p;
    rule.problem = p ? std::make_shared<const RouteProblem>(std::move(*p)) : nullptr;
  }
  if (anyValid || route.rules.empty()) return std::nullopt;
  RouteProblem first = *route.rules.front().problem;
  if (route.rules.size() > 1)
    first.message = "All " + std::to_string(route.rules.size()) +
                    " rules are invalid; the first: " + first.message;
  return first;
}

}  // namespace pg::graph
