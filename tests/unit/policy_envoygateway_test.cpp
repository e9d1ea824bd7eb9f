// The Envoy Gateway family and BackendTLSPolicy as Envoy Gateway writes it: ancestors,
// Conflicted (decided by establishment, not document order), Overridden, TargetNotFound,
// Invalid, mergeType and its provenance, and a CA reference that makes routes' ResolvedRefs
// False. Lua scripts, compiled as the controller compiles them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/model/regex.h"
#include "lib/policy/engine.h"
#include "lib/policy/envoygateway/lua.h"
#include "tests/unit/test_folder.h"

using namespace pg;

namespace {

constexpr std::string_view kEg = "gateway.envoyproxy.io";
constexpr std::string_view kGw = "gateway.networking.k8s.io";

// A Gateway `gw` with listeners `http` and `admin`, a route on it sending to Service `app`
// (port `https` 8443), all in `shop`.
constexpr const char* kTopology = R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: shop
spec:
  gatewayClassName: eg
  listeners:
    - name: http
      protocol: HTTP
      port: 80
    - name: admin
      protocol: HTTP
      port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route
  namespace: shop
spec:
  parentRefs:
    - name: gw
      sectionName: http
  rules:
    - name: main
      backendRefs:
        - name: app
          port: 8443
---
apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: shop
spec:
  ports:
    - name: https
      port: 8443
)";

// A policy of `kind` in `shop` named `name` on `target` (`Gateway/gw`, `HTTPRoute/route`,
// `Gateway/gw#http`), whose spec continues with `body` (indented by two spaces).
std::string policyText(const std::string& kind, const std::string& name, const std::string& target,
                       const std::string& body = {}, const std::string& metadata = {}) {
  std::string ref = target;
  std::string section;
  if (auto hash = ref.find('#'); hash != std::string::npos) {
    section = ref.substr(hash + 1);
    ref = ref.substr(0, hash);
  }
  std::string out = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: " + kind +
                    "\nmetadata:\n  name: " + name + "\n  namespace: shop\n" + metadata +
                    "spec:\n  targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: " +
                    ref.substr(0, ref.find('/')) +
                    "\n      name: " + ref.substr(ref.find('/') + 1) + "\n";
  if (!section.empty()) out += "      sectionName: " + section + "\n";
  return out + body;
}

std::string btp(const std::string& name, const std::string& target, const std::string& body = {},
                const std::string& metadata = {}) {
  return policyText("BackendTrafficPolicy", name, target, body, metadata);
}

struct Fixture {
  testing::TestFolder dir;
  analysis::Analysis a;

  explicit Fixture(const std::string& extra) {
    dir.write("manifests.yaml", kTopology + extra);
    a = analysis::analyze({}, {{dir.path().string()}, dir.path(), 1, {}, {}, {}});
  }

  const model::Resource& object(std::string_view group, std::string_view kind,
                                std::string_view name) const {
    const model::Resource* r = a.store.find(group, kind, "shop", name);
    REQUIRE(r);
    return *r;
  }

  const policy::Policy& policy(std::string_view name,
                               std::string_view kind = "BackendTrafficPolicy") const {
    std::string_view group = kind == "BackendTLSPolicy" ? kGw : kEg;
    const policy::Policy* p = a.policies.find(object(group, kind, name));
    REQUIRE(p);
    return *p;
  }

  // The condition of `type` on the policy's only ancestor.
  const graph::Condition* condition(std::string_view name, std::string_view type,
                                    std::string_view kind = "BackendTrafficPolicy") const {
    const policy::Policy& p = policy(name, kind);
    REQUIRE(p.ancestors.size() == 1);
    for (const graph::Condition& c : p.ancestors[0].conditions)
      if (c.type == type) return &c;
    return nullptr;
  }

  const graph::Route& route() const {
    const graph::Route* r = a.topology.findRoute(&object(kGw, "HTTPRoute", "route"));
    REQUIRE(r);
    return *r;
  }
};

std::string summary(const graph::Condition* c) {
  return c ? c->status + " " + c->reason : "none";
}

}  // namespace

TEST_CASE("Envoy Gateway: a second policy on the same target is Conflicted, by establishment") {
  // `b` comes first in the file, `a` first by name; with timestamps, the older one wins.
  SUBCASE("by name when no timestamps") {
    Fixture f(btp("b", "HTTPRoute/route") + btp("a", "HTTPRoute/route"));
    CHECK(summary(f.condition("a", "Accepted")) == "True Accepted");
    CHECK(summary(f.condition("b", "Accepted")) == "False Conflicted");
    CHECK(f.condition("b", "Accepted")->message ==
          "Unable to target HTTPRoute route, another BackendTrafficPolicy has already attached "
          "to it");
  }
  SUBCASE("by creationTimestamp first") {
    Fixture f(btp("b", "HTTPRoute/route", {}, "  creationTimestamp: \"2024-01-01T00:00:00Z\"\n") +
              btp("a", "HTTPRoute/route", {}, "  creationTimestamp: \"2025-01-01T00:00:00Z\"\n"));
    CHECK(summary(f.condition("b", "Accepted")) == "True Accepted");
    CHECK(summary(f.condition("a", "Accepted")) == "False Conflicted");
  }
  SUBCASE("different sections of one Gateway do not conflict") {
    Fixture f(btp("a", "Gateway/gw#http") + btp("b", "Gateway/gw#admin"));
    CHECK(summary(f.condition("a", "Accepted")) == "True Accepted");
    CHECK(summary(f.condition("b", "Accepted")) == "True Accepted");
  }
  SUBCASE("other kinds do not conflict") {
    Fixture f(btp("a", "Gateway/gw") + policyText("SecurityPolicy", "s", "Gateway/gw"));
    CHECK(summary(f.condition("a", "Accepted")) == "True Accepted");
    CHECK(summary(f.condition("s", "Accepted", "SecurityPolicy")) == "True Accepted");
  }
}

TEST_CASE("Envoy Gateway: ancestors are the Gateway target or the route's parentRefs") {
  Fixture f(btp("gwp", "Gateway/gw#http") + btp("rp", "HTTPRoute/route"));
  const policy::AncestorStatus& onGateway = f.policy("gwp").ancestors.at(0);
  CHECK(onGateway.ref.kind == "Gateway");
  CHECK(onGateway.ref.name == "gw");
  CHECK(onGateway.ref.sectionName == "http");
  CHECK(onGateway.controllerName == "gateway.envoyproxy.io/gatewayclass-controller");
  const policy::AncestorStatus& onRoute = f.policy("rp").ancestors.at(0);
  CHECK(onRoute.ref.name == "gw");
  CHECK(onRoute.ref.sectionName == "http");  // as the parentRef names it
}

TEST_CASE("Envoy Gateway: the Gateway policy is Overridden by the route's, and keeps Accepted") {
  std::string retry = "  retry:\n    numRetries: 2\n";
  Fixture f(btp("gwp", "Gateway/gw", retry) + btp("rp", "HTTPRoute/route", retry));
  CHECK(summary(f.condition("gwp", "Accepted")) == "True Accepted");
  const graph::Condition* overridden = f.condition("gwp", "Overridden");
  REQUIRE(overridden);
  CHECK(overridden->status == "True");
  CHECK(overridden->message ==
        "This policy is being overridden by other backendTrafficPolicies for these routes: "
        "[shop/route]");
  CHECK(f.condition("rp", "Overridden") == nullptr);

  // Effective: the route's policy wins whole; the Gateway's contributes nothing.
  std::vector<policy::Effective> all =
      policy::effectiveOn(f.a.policies, f.a.topology, f.a.store, *f.route().resource);
  REQUIRE(all.size() == 1);
  for (const policy::Provenance& p : policy::provenanceOf(all[0].value))
    CHECK(p.origin.policy->resource->name == "rp");
  REQUIRE(all[0].ineffective.size() == 1);
  CHECK(all[0].ineffective[0]->resource->name == "gwp");
}

TEST_CASE("Envoy Gateway: listener-level policies override the Gateway's") {
  Fixture f(btp("gwp", "Gateway/gw") + btp("lp", "Gateway/gw#admin"));
  const graph::Condition* overridden = f.condition("gwp", "Overridden");
  REQUIRE(overridden);
  CHECK(overridden->message ==
        "This policy is being overridden by other backendTrafficPolicies for these gateway "
        "listeners: [shop/gw/admin]");
}

TEST_CASE("Envoy Gateway: targets that do not exist") {
  SUBCASE("a missing route or Gateway gets no ancestor") {
    Fixture f(btp("r", "HTTPRoute/nowhere") + btp("g", "Gateway/nowhere"));
    CHECK(f.policy("r").ancestors.empty());
    CHECK(f.policy("g").ancestors.empty());
  }
  SUBCASE("a missing section is TargetNotFound on the ancestor") {
    Fixture f(btp("l", "Gateway/gw#nope") + btp("r", "HTTPRoute/route#nope"));
    CHECK(summary(f.condition("l", "Accepted")) == "False TargetNotFound");
    CHECK(f.policy("l").ancestors[0].ref.sectionName == "nope");
    CHECK(summary(f.condition("r", "Accepted")) == "False TargetNotFound");
    CHECK(f.policy("r").ancestors[0].ref.sectionName == "http");
  }
}

TEST_CASE("Envoy Gateway: structural problems are Invalid") {
  // A retry back-off whose maximum is under its base passes the schema (no rule compares
  // them) and the translator refuses it.
  Fixture f(btp("retry", "Gateway/gw#admin",
                "  retry:\n    perRetry:\n      backOff:\n        baseInterval: 2s\n"
                "        maxInterval: 1s\n") +
            btp("fine", "HTTPRoute/route", "  timeout:\n    http:\n      requestTimeout: 1m30s\n"));
  CHECK(summary(f.condition("retry", "Accepted")) == "False Invalid");
  CHECK(f.condition("retry", "Accepted")->message ==
        "Retry: maxInterval cannot be less than baseInterval.");
  CHECK(summary(f.condition("fine", "Accepted")) == "True Accepted");
}

TEST_CASE("Envoy Gateway: a value the BackendTrafficPolicy schema refuses is never simulated") {
  Fixture f(btp("timeout", "Gateway/gw#http",
                "  timeout:\n    http:\n      maxConnectionDuration: 22mib\n"));
  const model::Resource* r = f.a.store.find(kEg, "BackendTrafficPolicy", "shop", "timeout");
  CHECK((r == nullptr || f.a.policies.find(*r) == nullptr));
}

TEST_CASE("Envoy Gateway: mergeType merges the route policy over the Gateway's") {
  Fixture f(btp("gwp", "Gateway/gw",
                "  timeout:\n    http:\n      requestTimeout: 10s\n      connectionIdleTimeout: 5s\n"
                "  retry:\n    numRetries: 3\n") +
            btp("rp", "HTTPRoute/route",
                "  mergeType: JSONMerge\n  timeout:\n    http:\n      requestTimeout: 20s\n"
                "  retry: null\n"));
  const graph::Condition* merged = f.condition("rp", "Merged");
  // The route's parentRef names the listener, so the merge is reported on that ancestor.
  REQUIRE(merged);
  CHECK(merged->message == "Merged with policy shop/gwp");
  const graph::Condition* gatewayMerged = f.condition("gwp", "Merged");
  REQUIRE(gatewayMerged);
  CHECK(gatewayMerged->message ==
        "This policy is being merged by other backendTrafficPolicies for these routes: "
        "[shop/route]");
  CHECK(f.condition("gwp", "Overridden") == nullptr);

  std::vector<policy::Effective> all =
      policy::effectiveOn(f.a.policies, f.a.topology, f.a.store, *f.route().resource);
  REQUIRE(all.size() == 1);
  std::vector<std::pair<std::string, std::string>> fields;
  for (const policy::Provenance& p : policy::provenanceOf(all[0].value))
    fields.emplace_back(p.field, std::string(p.origin.policy->resource->name));
  using Fields = std::vector<std::pair<std::string, std::string>>;
  CHECK(fields == Fields{{"timeout.http.requestTimeout", "rp"},
                         {"timeout.http.connectionIdleTimeout", "gwp"},
                         {"mergeType", "rp"}});
  CHECK(all[0].ineffective.empty());
  bool replacedTimeout = false;
  for (const policy::Overridden& o : all[0].overridden)
    replacedTimeout =
        replacedTimeout || (o.field == "timeout.http.requestTimeout" &&
                            o.policy->resource->name == "gwp" && o.by->resource->name == "rp");
  CHECK(replacedTimeout);
}

namespace {

std::string backendTls(const std::string& name, const std::string& section,
                       const std::string& caRefs) {
  return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata:\n"
         "  name: " +
         name +
         "\n  namespace: shop\nspec:\n  targetRefs:\n    - group: \"\"\n      kind: Service\n"
         "      name: app\n" +
         (section.empty() ? "" : "      sectionName: " + section + "\n") +
         "  validation:\n    hostname: app.example.com\n" + caRefs;
}

const graph::Condition* resolvedRefs(const graph::Route& route) {
  for (const graph::Condition& c : route.parents.at(0).conditions)
    if (c.type == "ResolvedRefs") return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("BackendTLSPolicy: a CA reference that does not resolve") {
  SUBCASE("rejects the policy and the routes' backend") {
    Fixture f(
        backendTls("tls", "https",
                   "    caCertificateRefs:\n      - {group: \"\", kind: ConfigMap, name: ca}\n"));
    CHECK(summary(f.condition("tls", "Accepted", "BackendTLSPolicy")) ==
          "False NoValidCACertificate");
    CHECK(summary(f.condition("tls", "ResolvedRefs", "BackendTLSPolicy")) ==
          "False InvalidCACertificateRef");
    CHECK(summary(resolvedRefs(f.route())) == "False InvalidBackendTLS");
    // The route is still accepted: only its backend is unusable.
    CHECK(f.route().parents[0].accepted());
  }
  SUBCASE("an unsupported kind is InvalidKind") {
    Fixture f(backendTls("tls", {},
                         "    caCertificateRefs:\n      - {group: \"\", kind: Pod, name: ca}\n"));
    CHECK(summary(f.condition("tls", "ResolvedRefs", "BackendTLSPolicy")) == "False InvalidKind");
    CHECK(summary(resolvedRefs(f.route())) == "False InvalidBackendTLS");
  }
  SUBCASE("the system trust store and an existing ConfigMap are fine") {
    Fixture f(backendTls("tls", "https", "    wellKnownCACertificates: System\n"));
    CHECK(summary(f.condition("tls", "Accepted", "BackendTLSPolicy")) == "True Accepted");
    CHECK(summary(resolvedRefs(f.route())) == "True ResolvedRefs");
  }
}

TEST_CASE("BackendTLSPolicy: conflicts are per Service section") {
  std::string ca = "    wellKnownCACertificates: System\n";
  SUBCASE("same section: the established policy wins") {
    Fixture f(backendTls("b", "https", ca) + backendTls("a", "https", ca));
    CHECK(summary(f.condition("a", "Accepted", "BackendTLSPolicy")) == "True Accepted");
    CHECK(summary(f.condition("b", "Accepted", "BackendTLSPolicy")) == "False Conflicted");
  }
  SUBCASE("a whole-Service policy and a port's do not conflict") {
    Fixture f(backendTls("a", {}, ca) + backendTls("b", "https", ca));
    CHECK(summary(f.condition("a", "Accepted", "BackendTLSPolicy")) == "True Accepted");
    CHECK(summary(f.condition("b", "Accepted", "BackendTLSPolicy")) == "True Accepted");
  }
  SUBCASE("a rejected challenger does not touch the route") {
    Fixture f(
        backendTls("a", "https", ca) +
        backendTls("b", "https",
                   "    caCertificateRefs:\n      - {group: \"\", kind: ConfigMap, name: x}\n"));
    CHECK(summary(f.condition("b", "Accepted", "BackendTLSPolicy")) == "False Conflicted");
    CHECK(summary(resolvedRefs(f.route())) == "True ResolvedRefs");
  }
}

// Lua scripts are compiled, never run, as Lua 5.1; `goto`, which the controller's Lua knows
// and Lua 5.1 does not, makes a failure say nothing.
TEST_CASE("regular expressions are judged as Go's regexp judges them") {
  CHECK(pg::model::re2Error("^/api/(v1|v2)$").empty());
  CHECK(pg::model::re2Error("\\C") == "invalid escape sequence: `\\C`");  // RE2 takes it
  CHECK(pg::model::re2Error("[\\C]").size() > 0);
  CHECK(pg::model::re2Error("\\\\C").empty());  // an escaped backslash, then C
  CHECK(pg::model::re2Error("(?<version>v[0-9]+)").empty());  // Go 1.22 reads it
  CHECK(pg::model::re2Error("(?P<version>v[0-9]+)").empty());
  CHECK_FALSE(pg::model::re2Error("(?<=v)1").empty());  // lookbehind: neither reads it
  CHECK_FALSE(pg::model::re2Error("(unclosed").empty());
}

TEST_CASE("Lua scripts: compiled as the controller compiles them") {
  using pg::policy::envoygateway::compileLua;
  CHECK(compileLua("function envoy_on_request(h) h:logInfo('x') end").error.empty());
  CHECK(compileLua("").error.empty());

  auto missingThen = compileLua("function f()\n  if x == 1\n    y()\n  end\nend");
  CHECK(missingThen.error == "<string>:3: 'then' expected near 'y'");
  CHECK_FALSE(missingThen.usesGoto);

  // Lua 5.1 lexing, as gopher-lua's: an unknown escape is the character itself, and `//`
  // is no operator.
  CHECK(compileLua("local p = \"^/api\\/v1\"").error.empty());
  CHECK_FALSE(compileLua("local q = 7 // 2").error.empty());
  CHECK_FALSE(compileLua("local s = \"unterminated").error.empty());
  // A precompiled chunk (luac's output) is refused: the controller compiles source only.
  CHECK(compileLua(std::string_view("\033LuaQ\0\1\4\b\4\b\0", 12)).error ==
        "a precompiled Lua chunk, not Lua source");

  auto withGoto = compileLua("for i = 1, 3 do\n  if i == 2 then goto skip end\n  ::skip::\nend");
  CHECK(withGoto.error.empty());
  CHECK(withGoto.usesGoto);
  // `goto` inside a longer word does not count.
  auto gotoWord = compileLua("local gotoX = = 1");
  CHECK_FALSE(gotoWord.usesGoto);
  CHECK_FALSE(gotoWord.error.empty());

  // Deep nesting and large chunks end in an error, not a crash.
  CHECK_FALSE(compileLua(std::string(100000, '(')).error.empty());
  std::string big = "local t = {";
  for (int i = 0; i < 200000; ++i) big += "1,";
  big += "}";
  CHECK(compileLua(big).error.empty());
}
