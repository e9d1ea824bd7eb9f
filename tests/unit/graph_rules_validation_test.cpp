#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "lib/graph/rules_validation.h"
#include "lib/graph/topology.h"
#include "lib/load/loader.h"
#include "lib/model/store.h"

using namespace pg;

namespace {

// The loaded file, its store and the topology built from it: the topology points into both,
// so they live and die together.
struct Fixture {
  load::FileResult file;
  model::Store store{"default"};
  graph::Topology topology;
};

const char* kGateway = R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: tcp, protocol: TCP, port: 9000}
---
)";

// A Gateway and one route of `kind` whose spec.rules is `rules` (block YAML, indented by two).
std::unique_ptr<Fixture> build(std::string_view kind, std::string_view rules) {
  std::string text = std::string(kGateway) +
                     "apiVersion: gateway.networking.k8s.io/v1\nkind: " + std::string(kind) +
                     "\nmetadata: {name: r, namespace: default}\nspec:\n"
                     "  parentRefs: [{name: gw}]\n  rules:" +
                     std::string(rules);
  auto f = std::make_unique<Fixture>();
  f->file = load::loadText("test.yaml", std::move(text), {});
  f->store.build(f->file.resources);
  f->topology = graph::buildTopology(f->store, {});
  return f;
}

// What validateRouteRules said, copied out of the fixture.
struct Outcome {
  bool valid = true;
  std::string reason;
  std::string message;
  std::string at;  // the text of the scalar at fault, or "<node>" for a container
};

Outcome check(std::string_view kind, std::string_view rules) {
  auto f = build(kind, rules);
  REQUIRE(f->topology.routes.size() == 1);
  std::optional<graph::RouteProblem> p = graph::validateRouteRules(f->topology.routes[0]);
  if (!p) return {};
  return {false, p->reason, p->message, p->at.isScalar() ? std::string(p->at.str()) : "<node>"};
}

Outcome http(std::string_view rules) {
  return check("HTTPRoute", rules);
}
Outcome grpc(std::string_view rules) {
  return check("GRPCRoute", rules);
}

}  // namespace

TEST_CASE("filter types: unknown values are UnsupportedValue, per route kind") {
  Outcome o = http(R"(
  - filters:
    - type: Rewrite
)");
  CHECK_FALSE(o.valid);
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.at == "Rewrite");
  CHECK(http(R"(
  - filters:
    - type: CORS
      cors: {allowOrigins: ["https://example.com"]}
)")
            .valid);
  // GRPCRoute has no redirect filter.
  o = grpc(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {scheme: https}
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.message.find("GRPCRoute") != std::string::npos);
  CHECK(grpc(R"(
  - filters:
    - type: RequestMirror
      requestMirror: {backendRef: {name: svc, port: 80}}
)")
            .valid);
}

TEST_CASE("header modifiers: names, the Host header and values") {
  Outcome o = http(R"(
  - filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        set: [{name: "example:1", value: v}]
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.at == "example:1");
  o = http(R"(
  - filters:
    - type: ResponseHeaderModifier
      responseHeaderModifier:
        add: [{name: "", value: v}]
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.message.find("empty name") != std::string::npos);
  o = http(R"(
  - filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        remove: [example/2]
)");
  CHECK(o.at == "example/2");
  o = http(R"(
  - filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        set: [{name: Host, value: example.com}]
)");
  CHECK(o.message.find("URLRewrite") != std::string::npos);
  o = http(R"(
  - filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        add: [{name: x-empty, value: ""}]
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.message.find("invalid value") != std::string::npos);
  o = http(R"(
  - filters:
    - type: ResponseHeaderModifier
      responseHeaderModifier:
        set: [{name: x-lines, value: "one\ntwo"}]
)");
  CHECK(o.reason == "UnsupportedValue");
  // Valid entries; repeated names and repeated modifier filters are merged, not rejected.
  CHECK(http(R"(
  - filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        set: [{name: X-Version, value: "v1 beta"}]
        add: [{name: x-version, value: "a,b"}, {name: x-version, value: c}]
        remove: [x-debug]
    - type: RequestHeaderModifier
      requestHeaderModifier:
        remove: [x-debug]
)")
            .valid);
  CHECK(grpc(R"(
  - filters:
    - type: ResponseHeaderModifier
      responseHeaderModifier:
        set: [{name: grpc-status-details, value: ok}]
)")
            .valid);
}

TEST_CASE("request redirects: scheme, status code, hostname and path") {
  Outcome o = http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {scheme: ftp}
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.at == "ftp");
  o = http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {statusCode: 304}
)");
  CHECK(o.at == "304");
  CHECK(o.message.find("301, 302") != std::string::npos);
  CHECK(http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {statusCode: "301"}
)")
            .at == "301");
  o = http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {hostname: "*.example.com"}
)");
  CHECK(o.reason == "UnsupportedValue");
  o = http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect:
        path: {type: ReplaceFullPath}
)");
  CHECK(o.message.find("needs replaceFullPath") != std::string::npos);
  CHECK(http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect:
        scheme: https
        hostname: redirect.example.com
        statusCode: 308
        port: 8443
        path: {type: ReplaceFullPath, replaceFullPath: /new}
)")
            .valid);
}

TEST_CASE("URL rewrites: hostname and path modifier") {
  Outcome o = http(R"(
  - filters:
    - type: URLRewrite
      urlRewrite: {hostname: -rewrite.com}
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.at == "-rewrite.com");
  o = http(R"(
  - filters:
    - type: URLRewrite
      urlRewrite:
        path: {type: ReplacePrefixMatches, replacePrefixMatch: /x}
)");
  CHECK(o.at == "ReplacePrefixMatches");
  o = http(R"(
  - filters:
    - type: URLRewrite
      urlRewrite:
        path: {type: ReplacePrefixMatch}
)");
  CHECK(o.message.find("needs replacePrefixMatch") != std::string::npos);
  o = http(R"(
  - filters:
    - type: URLRewrite
      urlRewrite:
        path: {type: ReplaceFullPath, replaceFullPath: /a, replacePrefixMatch: /b}
)");
  CHECK(o.at == "/b");
  CHECK(http(R"(
  - filters:
    - type: URLRewrite
      urlRewrite:
        hostname: rewrite.example.com
        path: {type: ReplaceFullPath, replaceFullPath: /new}
)")
            .valid);
}

TEST_CASE("ReplacePrefixMatch needs PathPrefix matches") {
  Outcome o = http(R"(
  - matches:
    - path: {type: PathPrefix, value: /a}
    - path: {type: Exact, value: /b}
    filters:
    - type: URLRewrite
      urlRewrite:
        path: {type: ReplacePrefixMatch, replacePrefixMatch: /x}
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.at == "Exact");
  o = http(R"(
  - matches:
    - path: {type: RegularExpression, value: /b.*}
    filters:
    - type: RequestRedirect
      requestRedirect:
        path: {type: ReplacePrefixMatch, replacePrefixMatch: /x}
)");
  CHECK(o.at == "RegularExpression");
  // No path, or no type, means PathPrefix.
  CHECK(http(R"(
  - matches:
    - path: {value: /a}
    - headers: [{name: x-canary, value: "on"}]
    filters:
    - type: URLRewrite
      urlRewrite:
        path: {type: ReplacePrefixMatch, replacePrefixMatch: /x}
)")
            .valid);
}

TEST_CASE("filter combinations") {
  Outcome o = http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {scheme: https}
    - type: RequestRedirect
      requestRedirect: {scheme: http}
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.message.find("only one RequestRedirect") != std::string::npos);
  o = http(R"(
  - filters:
    - type: URLRewrite
      urlRewrite: {hostname: a.example.com}
    - type: URLRewrite
      urlRewrite: {hostname: b.example.com}
)");
  CHECK(o.message.find("only one URLRewrite") != std::string::npos);
  o = http(R"(
  - filters:
    - type: URLRewrite
      urlRewrite: {hostname: a.example.com}
    - type: RequestRedirect
      requestRedirect: {scheme: https}
)");
  CHECK(o.reason == "IncompatibleFilters");
  o = http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {scheme: https}
    - type: RequestMirror
      requestMirror: {backendRef: {name: svc, port: 80}}
)");
  CHECK(o.reason == "IncompatibleFilters");
  CHECK(o.message.find("RequestMirror") != std::string::npos);
  // Mirrors may repeat, and a mirror goes with a rewrite.
  CHECK(http(R"(
  - filters:
    - type: RequestMirror
      requestMirror: {backendRef: {name: a, port: 80}}
    - type: RequestMirror
      requestMirror: {backendRef: {name: b, port: 80}}
    - type: URLRewrite
      urlRewrite: {hostname: a.example.com}
)")
            .valid);
}

TEST_CASE("ExtensionRef filters name their object") {
  Outcome o = http(R"(
  - filters:
    - type: ExtensionRef
)");
  CHECK(o.reason == "UnsupportedValue");
  CHECK(o.at == "<node>");
  CHECK(grpc(R"(
  - filters:
    - type: ExtensionRef
      extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: f}
)")
            .valid);
}

TEST_CASE("HTTP match types and methods") {
  CHECK(http(R"(
  - matches:
    - path: {type: Prefix, value: /}
)")
            .at == "Prefix");
  CHECK(http(R"(
  - matches:
    - headers: [{name: x, value: y, type: Contains}]
)")
            .at == "Contains");
  CHECK(http(R"(
  - matches:
    - queryParams: [{name: q, value: y, type: Prefix}]
)")
            .reason == "UnsupportedValue");
  CHECK(http(R"(
  - matches:
    - method: FETCH
)")
            .at == "FETCH");
  CHECK(http(R"(
  - matches:
    - path: {type: Exact, value: /a}
      headers: [{name: x, value: y, type: RegularExpression}]
      queryParams: [{name: q, value: y}]
      method: PATCH
)")
            .valid);
}

TEST_CASE("a route is invalid only when every rule is") {
  const char* rules = R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {scheme: ftp}
  - backendRefs: [{name: svc, port: 80}]
)";
  CHECK(http(rules).valid);
  auto f = build("HTTPRoute", rules);
  const graph::Route& route = f->topology.routes.at(0);
  CHECK(graph::validateRouteRule(route, route.rules.at(0)));
  CHECK_FALSE(graph::validateRouteRule(route, route.rules.at(1)));

  Outcome o = http(R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {scheme: ftp}
  - filters:
    - type: Bogus
)");
  CHECK(o.at == "ftp");
  CHECK(o.message.rfind("All 2 rules are invalid", 0) == 0);
  CHECK(http(" []\n").valid);  // no rules: the default rule matches everything
}

TEST_CASE("TCP and UDP routes have exactly one rule") {
  const char* two = R"(
  - backendRefs: [{name: a, port: 80}]
  - backendRefs: [{name: b, port: 80}]
)";
  Outcome o = check("UDPRoute", two);
  CHECK(o.reason == "InvalidRule");
  CHECK(o.at == "<node>");
  CHECK(check("TCPRoute", two).reason == "InvalidRule");
  CHECK(check("TCPRoute", "\n  - backendRefs: [{name: a, port: 80}]\n").valid);
  CHECK(check("TLSRoute", two).valid);
}

TEST_CASE("an invalid rule sets Accepted False on an attached parent, attachment still counts") {
  auto f = build("HTTPRoute", R"(
  - filters:
    - type: RequestRedirect
      requestRedirect: {statusCode: 666}
)");
  const graph::Route& route = f->topology.routes.at(0);
  REQUIRE(route.invalidRule);
  CHECK(route.invalidRule->at.start().line > 0);
  REQUIRE(route.parents.size() == 1);
  const graph::RouteParent& parent = route.parents[0];
  REQUIRE_FALSE(parent.conditions.empty());
  CHECK(parent.conditions[0].type == "Accepted");
  CHECK(parent.conditions[0].status == "False");
  CHECK(parent.conditions[0].reason == "UnsupportedValue");
  CHECK_FALSE(parent.accepted());
  CHECK(f->topology.gateways.at(0).listeners.at(0).attachedRoutes == 1);
}

TEST_CASE("ReferenceGrantIndex answers by the grant's namespace, from and to") {
  const char* kGrants = R"(apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: routes-to-billing, namespace: billing}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: GRPCRoute, namespace: web}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}
  to:
  - {group: "", kind: Service, name: api}
  - {group: "", kind: Secret}
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: web-to-infra, namespace: infra}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: web}
  to:
  - {group: "", kind: Service}
---
apiVersion: example.com/v1
kind: ReferenceGrant
metadata: {name: not-gateway-api, namespace: infra}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}
  to:
  - {group: "", kind: Service}
)";
  Fixture f;
  f.file = load::loadText("grants.yaml", kGrants, {});
  f.store.build(f.file.resources);
  const graph::ReferenceGrantIndex grants(f.store);
  const std::string_view route = graph::kGatewayGroup;
  // The named Service and any Secret of billing, from shop's HTTPRoutes.
  CHECK(grants.permits(route, "HTTPRoute", "shop", "", "Service", "billing", "api"));
  CHECK_FALSE(grants.permits(route, "HTTPRoute", "shop", "", "Service", "billing", "db"));
  CHECK(grants.permits(route, "HTTPRoute", "shop", "", "Secret", "billing", "anything"));
  // Every `from` entry counts; kind, namespace and group must all match one.
  CHECK(grants.permits(route, "GRPCRoute", "web", "", "Service", "billing", "api"));
  CHECK_FALSE(grants.permits(route, "HTTPRoute", "web", "", "Service", "billing", "api"));
  CHECK_FALSE(grants.permits("example.com", "HTTPRoute", "shop", "", "Service", "billing", "api"));
  // A grant only opens its own namespace, and a ReferenceGrant of another group none.
  CHECK(grants.permits(route, "HTTPRoute", "web", "", "Service", "infra", "any"));
  CHECK_FALSE(grants.permits(route, "HTTPRoute", "shop", "", "Service", "infra", "any"));
  CHECK_FALSE(grants.permits(route, "HTTPRoute", "web", "", "Service", "shop", "any"));
  CHECK_FALSE(graph::ReferenceGrantIndex().permits(route, "HTTPRoute", "web", "", "Service",
                                                   "infra", "any"));
}
