#include "lib/graph/envoy_route_filters.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "lib/graph/envoy_backends.h"
#include "lib/model/quote.h"
#include "lib/model/regex.h"

namespace pg::graph {

namespace {

constexpr std::string_view kHttpRouteFilter = "HTTPRouteFilter";
constexpr std::string_view kUnsupportedValue = "UnsupportedValue";
constexpr std::string_view kInvalidBackendFilters = "InvalidBackendFilters";

bool present(yaml::NodeRef node) {
  return node && !node.isNull();
}

bool namesHttpRouteFilter(yaml::NodeRef ref) {
  return ref.get("group").str() == kEnvoyGatewayGroup && ref.get("kind").str() == kHttpRouteFilter;
}

void resolveOne(RouteRule& rule, const Route& route, const model::Store& store,
                yaml::NodeRef filter, bool onBackend) {
  const yaml::NodeRef ref = filter.get("extensionRef");
  if (!present(ref)) return;  // rules_validation's
  const std::string_view namespace_ = route.resource->namespace_;
  const std::string_view name = ref.get("name").str();
  const std::string where = std::string(namespace_) + "/" + std::string(name);
  const std::string_view reason = onBackend ? kInvalidBackendFilters : kUnsupportedValue;
  const yaml::NodeRef nameNode = ref.get("name") ? ref.get("name") : ref;
  if (namesHttpRouteFilter(ref)) {
    const model::Resource* object =
        store.find(kEnvoyGatewayGroup, kHttpRouteFilter, namespace_, name);
    rule.extensionFilters.push_back({filter, object, onBackend});
    if (!object)
      rule.refusedFilters.push_back(
          {std::string(reason),
           "HTTPRouteFilter " + where +
               " is not in the input, so Envoy Gateway cannot translate the filter: create it "
               "in the route's namespace or fix the extensionRef",
           nameNode});
    return;
  }
  // Envoy Gateway knows another kind only when an extension server registers it. On the rule,
  // ValidateHTTPRouteFilter refuses it and the rule is dropped (checkEnvoyRouteFilters); on a
  // backendRef, the destination's filters fail.
  rule.extensionFilters.push_back({filter, nullptr, onBackend});
  if (!onBackend) return;
  const std::string_view kind = ref.get("kind").str();
  rule.refusedFilters.push_back(
      {std::string(reason),
       "Filter " + where + " of kind " + std::string(kind) +
           " is not found: Envoy Gateway resolves only its HTTPRouteFilter (group "
           "gateway.envoyproxy.io) unless an extension server registers " +
           std::string(kind),
       ref.get("kind") ? ref.get("kind") : ref});
}

// What a URL rewrite changes.
struct Rewrites {
  bool host = false;
  bool path = false;
  bool any() const { return host || path; }
};

}  // namespace

void resolveEnvoyRouteFilters(RouteRule& rule, const Route& route, const model::Store& store) {
  for (yaml::NodeRef filter : rule.node.get("filters").items())
    if (filter.get("type").str() == "ExtensionRef") resolveOne(rule, route, store, filter, false);
  for (yaml::NodeRef backend : rule.node.get("backendRefs").items())
    for (yaml::NodeRef filter : backend.get("filters").items())
      if (filter.get("type").str() == "ExtensionRef") resolveOne(rule, route, store, filter, true);
  // route.go: the host of a DynamicResolver destination is the request's own, so it cannot be
  // rewritten from the path.
  const bool dynamic =
      std::any_of(rule.backends.begin(), rule.backends.end(), [](const BackendRef& b) {
        return b.reason.empty() && !b.mirror && b.target && isEnvoyBackendKind(b.group, b.kind) &&
               isDynamicResolver(*b.target);
      });
  if (!dynamic) return;
  for (const ExtensionFilter& f : rule.extensionFilters)
    if (!f.onBackend && f.object &&
        f.object->spec().get("urlRewrite").get("hostname").get("type").str() == "PathRegex") {
      rule.refusedFilters.push_back(
          {std::string(kUnsupportedValue),
           "host rewrite from path (PathRegex) is not supported with a dynamic resolver "
           "backend: the DynamicResolver Backend connects to the request's own host; rewrite "
           "the host with type Header, or send the rule to another backend",
           f.filter.keyNode("extensionRef")});
      return;
    }
}

std::optional<RouteProblem> checkEnvoyRouteFilters(const Route& route, const RouteRule& rule) {
  Rewrites core, extension;
  bool matchesSeen = false;
  auto problem = [](std::string message, yaml::NodeRef at, const model::Resource* object = nullptr,
                    yaml::NodeRef objectAt = {}) {
    return RouteProblem{std::string(kUnsupportedValue), std::move(message), at, object, objectAt};
  };
  const std::string multiple =
      "Cannot configure multiple urlRewrite filters for a single HTTPRouteRule: each of the "
      "hostname and the path may be rewritten by one filter; merge the rewrites or split the "
      "rule";
  for (yaml::NodeRef filter : rule.node.get("filters").items()) {
    const std::string_view type = filter.get("type").str();
    if (type == "URLRewrite") {
      const yaml::NodeRef rewrite = filter.get("urlRewrite");
      const Rewrites here{present(rewrite.get("hostname")), present(rewrite.get("path"))};
      if ((core.any() && here.any()) || (here.host && extension.host) ||
          (here.path && extension.path))
        return problem(multiple, filter.get("type"));
      core.host = core.host || here.host;
      core.path = core.path || here.path;
      continue;
    }
    if (type != "ExtensionRef") continue;
    if (const yaml::NodeRef ref = filter.get("extensionRef");
        present(ref) && !namesHttpRouteFilter(ref))
      return problem("Unknown kind " + std::string(ref.get("group").str()) + "/" +
                         std::string(ref.get("kind").str()) +
                         " in an ExtensionRef filter: Envoy Gateway knows only its "
                         "HTTPRouteFilter (group gateway.envoyproxy.io) unless an extension "
                         "server registers the kind",
                     ref.get("kind") ? ref.get("kind") : ref);
    const auto found = std::find_if(rule.extensionFilters.begin(), rule.extensionFilters.end(),
                                    [&](const ExtensionFilter& f) { return f.filter == filter; });
    if (found == rule.extensionFilters.end() || !found->object) continue;
    const model::Resource& object = *found->object;
    const yaml::NodeRef at = filter.keyNode("extensionRef");
    const yaml::NodeRef spec = object.spec();
    // "<what is wrong> in HTTPRouteFilter ns/name", then the detail.
    const std::string in =
        " in HTTPRouteFilter " + std::string(object.namespace_) + "/" + std::string(object.name);
    if (spec.get("matches").size() > 0) {
      if (matchesSeen)
        return problem(
            "Only one HTTPRouteFilter with matches is supported per HTTPRouteRule, "
            "and" +
                in + " has matches too: merge them into one filter",
            at, &object, spec.get("matches"));
      matchesSeen = true;
    }
    // A pattern the translator compiles (with Go's RE2 syntax) and refuses.
    auto notRe2 = [&](std::string_view what, yaml::NodeRef pattern) {
      return problem(std::string(what) + " must be a valid RE2 regular expression" + in + ": " +
                         model::quoted(pattern.str()) + " does not compile",
                     at, &object, pattern);
    };
    if (const yaml::NodeRef rewrite = spec.get("urlRewrite"); present(rewrite)) {
      const yaml::NodeRef hostname = rewrite.get("hostname");
      const yaml::NodeRef path = rewrite.get("path");
      const Rewrites here{present(hostname), present(path)};
      if ((extension.any() && here.any()) || (here.host && core.host) || (here.path && core.path))
        return problem(multiple, at, &object, rewrite);
      if (here.path && path.get("type").str() == "ReplaceRegexMatch") {
        const yaml::NodeRef pattern = path.get("replaceRegexMatch").get("pattern");
        if (pattern.str().empty())
          return problem(
              "ReplaceRegexMatch Pattern must be set when rewrite path type is "
              "\"ReplaceRegexMatch\"" +
                  in,
              at, &object, path);
        if (!model::re2Error(pattern.str()).empty()) return notRe2("ReplaceRegexMatch", pattern);
      }
      if (here.host) {
        const std::string_view hostType = hostname.get("type").str();
        if (hostType == "Header" && !present(hostname.get("header")))
          return problem("Header must be set when rewrite hostname type is \"Header\"" + in, at,
                         &object, hostname);
        if (hostType == "PathRegex") {
          const yaml::NodeRef regex = hostname.get("pathRegex");
          const yaml::NodeRef pattern = regex.get("pattern");
          if (pattern.str().empty() || regex.get("substitution").str().empty())
            return problem(
                "PathRegex Pattern and Substitution must be set when rewrite hostname "
                "type is \"PathRegex\"" +
                    in,
                at, &object, hostname);
          if (!model::re2Error(pattern.str()).empty()) return notRe2("PathRegex", pattern);
        }
      }
      extension.host = extension.host || here.host;
      extension.path = extension.path || here.path;
    }
    // A 2xx answer maps to gRPC's OK, which needs a response message a direct response
    // cannot carry.
    if (const yaml::NodeRef direct = spec.get("directResponse");
        present(direct) && route.kind == RouteKind::GRPC) {
      const std::int64_t status = direct.get("statusCode").asInt().value_or(200);
      if (status >= 200 && status < 300)
        return problem("DirectResponse with a 2xx status code is not supported for GRPCRoute" + in +
                           ": a 2xx status maps to gRPC's OK, which needs a response message a "
                           "direct response cannot carry; use a non-2xx status code to deny or "
                           "block the request",
                       at, &object, direct.get("statusCode") ? direct.get("statusCode") : direct);
    }
  }
  return std::nullopt;
}

}  // namespace pg::graph
