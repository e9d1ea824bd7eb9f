// The Kuadrant family: blocks (defaults, overrides, bare rules, strategy, unset), the
// effective policy of RFC 0009's matrix per hierarchy path, and the status Kuadrant writes.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/policy/engine.h"
#include "tests/unit/test_folder.h"

using namespace pg;

namespace {

// A Gateway `gw` with one listener, a route attached to it and its Service, all in `shop`.
constexpr const char* kTopology = R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: kuadrant
spec:
  controllerName: kuadrant.io/policy-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: shop
spec:
  gatewayClassName: kuadrant
  listeners:
    - name: http
      protocol: HTTP
      port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route
  namespace: shop
spec:
  parentRefs:
    - name: gw
  rules:
    - backendRefs:
        - name: app
          port: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: shop
spec:
  ports:
    - port: 8080
)";

// A RateLimitPolicy in `shop` named `name` on `target` (`Gateway/gw`, `HTTPRoute/route`)
// whose spec continues with `body` (indented by two spaces).
std::string rlp(const std::string& name, const std::string& target, const std::string& body,
                const std::string& version = "v1") {
  std::string kind = target.substr(0, target.find('/'));
  std::string targetName = target.substr(target.find('/') + 1);
  return "---\napiVersion: kuadrant.io/" + version + "\nkind: RateLimitPolicy\nmetadata:\n  name: " +
         name +
         "\n  namespace: shop\nspec:\n  targetRef:\n    group: gateway.networking.k8s.io\n"
         "    kind: " +
         kind + "\n    name: " + targetName + "\n" + body;
}

// `limits` with one entry per name, each a distinct rate so values are told apart.
std::string limits(const std::vector<std::string>& names, const std::string& indent = "  ") {
  std::string out = indent + "limits:\n";
  int n = 1;
  for (const std::string& name : names)
    out += indent + "  " + name + ":\n" + indent + "    rates:\n" + indent +
           "      - limit: " + std::to_string(n++) + "\n" + indent + "        window: 1m\n";
  return out;
}

std::string block(const std::string& role, const std::string& strategy,
                  const std::vector<std::string>& names) {
  return "  " + role + ":\n    strategy: " + strategy + "\n" + limits(names, "    ");
}

struct Fixture {
  testing::TestFolder dir;
  analysis::Analysis a;

  explicit Fixture(const std::string& extra, const std::string& topology = kTopology,
                   const policy::PolicyOptions& options = {}) {
    dir.write("manifests.yaml", topology + extra);
    a = analysis::analyze({}, {{dir.path().string()}, dir.path(), 1, {}, {}, options});
  }

  const model::Resource& object(std::string_view group, std::string_view kind,
                                std::string_view name, std::string_view ns = "shop") const {
    const model::Resource* r = a.store.find(group, kind, ns, name);
    REQUIRE(r);
    return *r;
  }

  const model::Resource& route(std::string_view name = "route") const {
    return object("gateway.networking.k8s.io", "HTTPRoute", name);
  }

  std::vector<policy::Effective> on(const model::Resource& target) const {
    return policy::effectiveOn(a.policies, a.topology, a.store, target);
  }

  const policy::Policy& policy(std::string_view name,
                               std::string_view kind = "RateLimitPolicy") const {
    const policy::Policy* p = a.policies.find(object("kuadrant.io", kind, name));
    REQUIRE(p);
    return *p;
  }

  const graph::Condition* condition(std::string_view name, std::string_view type,
                                    std::string_view kind = "RateLimitPolicy") const {
    for (const graph::Condition& c : policy(name, kind).conditions)
      if (c.type == type) return &c;
    return nullptr;
  }

  std::vector<graph::Condition> targetConditions(const model::Resource& target) const {
    std::vector<graph::Condition> out;
    for (const policy::TargetCondition& tc : a.policies.targetConditions)
      if (tc.target == &target) out.push_back(tc.condition);
    return out;
  }
};

// field → name of the policy that set it, in the order of the effective value.
std::vector<std::pair<std::string, std::string>> fields(const policy::Effective& e) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const policy::Provenance& p : policy::provenanceOf(e.value))
    out.emplace_back(p.field, std::string(p.origin.policy->resource->name));
  return out;
}

using Fields = std::vector<std::pair<std::string, std::string>>;

// The single effective RateLimitPolicy on the route.
policy::Effective onRoute(const Fixture& f) {
  std::vector<policy::Effective> all = f.on(f.route());
  REQUIRE(all.size() == 1);
  CHECK(all[0].profile->kind == "RateLimitPolicy");
  return all[0];
}

std::string conditionText(const graph::Condition* c) {
  REQUIRE(c);
  return c->status + " " + c->reason + " " + c->message;
}

}  // namespace

TEST_CASE("kuadrant: atomic defaults are taken whole, only when nothing lower has rules") {
  SUBCASE("alone, the gateway's defaults apply to the route") {
    Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "atomic", {"a", "b"})));
    policy::Effective e = onRoute(f);
    CHECK(fields(e) == Fields{{"limits.a", "gw-limits"}, {"limits.b", "gw-limits"}});
    CHECK(e.ineffective.empty());
    CHECK(conditionText(f.condition("gw-limits", "Enforced")) ==
          "True Enforced Policy has been successfully enforced");
  }
  SUBCASE("a route policy replaces them entirely") {
    Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "atomic", {"a", "b"})) +
              rlp("route-limits", "HTTPRoute/route", limits({"c"})));
    policy::Effective e = onRoute(f);
    CHECK(fields(e) == Fields{{"limits.c", "route-limits"}});
    REQUIRE(e.ineffective.size() == 1);
    CHECK(e.ineffective[0]->resource->name == "gw-limits");
    REQUIRE(e.overridden.size() == 2);
    CHECK(e.overridden[0].field == "limits.a");
    CHECK(e.overridden[0].by->resource->name == "route-limits");
    CHECK(conditionText(f.condition("gw-limits", "Enforced")) ==
          "False Overridden Policy is overridden by [shop/route-limits]");
    CHECK(conditionText(f.condition("route-limits", "Enforced")) ==
          "True Enforced Policy has been successfully enforced");
  }
}

TEST_CASE("kuadrant: merged defaults fill in the rules the lower policy lacks") {
  Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "merge", {"a", "b"})) +
            rlp("route-limits", "HTTPRoute/route", limits({"b", "c"})));
  policy::Effective e = onRoute(f);
  CHECK(fields(e) == Fields{{"limits.a", "gw-limits"},
                            {"limits.b", "route-limits"},
                            {"limits.c", "route-limits"}});
  REQUIRE(e.overridden.size() == 1);
  CHECK(e.overridden[0].field == "limits.b");
  CHECK(e.overridden[0].role == policy::Role::Default);
  CHECK(e.overridden[0].byRole == policy::Role::Intent);
  CHECK(conditionText(f.condition("gw-limits", "Enforced")) ==
        "True PartiallyEnforced Policy has been successfully enforced. The following rules have "
        "been overridden by [shop/route-limits]: b");
  CHECK(conditionText(f.condition("route-limits", "Enforced")) ==
        "True Enforced Policy has been successfully enforced");
}

TEST_CASE("kuadrant: atomic overrides replace every lower rule") {
  Fixture f(rlp("gw-limits", "Gateway/gw", block("overrides", "atomic", {"a"})) +
            rlp("route-limits", "HTTPRoute/route", limits({"a", "b"})));
  policy::Effective e = onRoute(f);
  CHECK(fields(e) == Fields{{"limits.a", "gw-limits"}});
  CHECK(e.overridden.size() == 2);
  CHECK(conditionText(f.condition("route-limits", "Enforced")) ==
        "False Overridden Policy is overridden by [shop/gw-limits]");
  CHECK(conditionText(f.condition("gw-limits", "Enforced")) ==
        "True Enforced Policy has been successfully enforced");
}

TEST_CASE("kuadrant: merged overrides replace the lower rules of the same name") {
  Fixture f(rlp("gw-limits", "Gateway/gw", block("overrides", "merge", {"a"})) +
            rlp("route-limits", "HTTPRoute/route", limits({"a", "b"})));
  policy::Effective e = onRoute(f);
  CHECK(fields(e) == Fields{{"limits.a", "gw-limits"}, {"limits.b", "route-limits"}});
  REQUIRE(e.overridden.size() == 1);
  CHECK(e.overridden[0].policy->resource->name == "route-limits");
  CHECK(e.overridden[0].by->resource->name == "gw-limits");
  CHECK(conditionText(f.condition("route-limits", "Enforced")) ==
        "True PartiallyEnforced Policy has been successfully enforced. The following rules have "
        "been overridden by [shop/gw-limits]: a");
}

TEST_CASE("kuadrant: the less specific policy's strategy decides, whatever the lower one says") {
  // A lower override does not beat a higher atomic default: the route's policy has rules, so
  // the gateway's defaults give way, and nothing more.
  Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "atomic", {"a"})) +
            rlp("route-limits", "HTTPRoute/route", block("overrides", "merge", {"b"})));
  CHECK(fields(onRoute(f)) == Fields{{"limits.b", "route-limits"}});
}

TEST_CASE("kuadrant: unset removes a higher default, not a higher override") {
  SUBCASE("default") {
    Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "merge", {"a", "b"})) +
              rlp("route-limits", "HTTPRoute/route", limits({"c"}) + "  unset: [a]\n"));
    policy::Effective e = onRoute(f);
    CHECK(fields(e) == Fields{{"limits.b", "gw-limits"}, {"limits.c", "route-limits"}});
    REQUIRE(e.overridden.size() == 1);
    CHECK(e.overridden[0].field == "limits.a");
    CHECK(e.overridden[0].by->resource->name == "route-limits");
    CHECK(conditionText(f.condition("gw-limits", "Enforced")) ==
          "True PartiallyEnforced Policy has been successfully enforced. The following rules "
          "have been overridden by [shop/route-limits]: a");
  }
  SUBCASE("the dotted form names the same rule, and atomic defaults are unset too") {
    Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "atomic", {"a", "b"})) +
              rlp("route-limits", "HTTPRoute/route", "  unset: [limits.a]\n"));
    CHECK(fields(onRoute(f)) == Fields{{"limits.b", "gw-limits"}});
  }
  SUBCASE("override") {
    Fixture f(rlp("gw-limits", "Gateway/gw", block("overrides", "merge", {"a"})) +
              rlp("route-limits", "HTTPRoute/route", limits({"b"}) + "  unset: [a]\n"));
    CHECK(fields(onRoute(f)) == Fields{{"limits.a", "gw-limits"}, {"limits.b", "route-limits"}});
    CHECK(conditionText(f.condition("gw-limits", "Enforced")) ==
          "True Enforced Policy has been successfully enforced");
  }
}

// The v1 schema refuses the first three shapes (its CEL rules and strategy enum), so the API
// server never stores them; v1beta3, which no bundled schema serves, is simulated as written
// and the family rejects them itself.
TEST_CASE("kuadrant: malformed blocks make the policy Invalid and leave it out of the merge") {
  SUBCASE("v1: the schema refuses them, so they are never simulated") {
    Fixture f(rlp("gw-limits", "Gateway/gw",
                  block("defaults", "atomic", {"a"}) + block("overrides", "atomic", {"b"})));
    const model::Resource* r = f.a.store.find("kuadrant.io", "RateLimitPolicy", "shop", "gw-limits");
    CHECK((r == nullptr || f.a.policies.find(*r) == nullptr));
    CHECK(f.on(f.route()).empty());
  }
  SUBCASE("defaults and bare rules together") {
    Fixture f(rlp("gw-limits", "Gateway/gw",
                  block("defaults", "atomic", {"a"}) + limits({"b"}, "  "), "v1beta3"));
    const policy::Policy& p = f.policy("gw-limits");
    CHECK(p.invalidMessage.find("implicit defaults") != std::string::npos);
    CHECK(conditionText(f.condition("gw-limits", "Accepted")).starts_with("False Invalid "));
    CHECK(f.condition("gw-limits", "Enforced") == nullptr);
    // Rejected for its content, it attaches nowhere: nothing reaches the route.
    CHECK(f.on(f.route()).empty());
  }
  SUBCASE("defaults and overrides together") {
    Fixture f(rlp("gw-limits", "Gateway/gw",
                  block("defaults", "atomic", {"a"}) + block("overrides", "atomic", {"b"}),
                  "v1beta3"));
    CHECK(conditionText(f.condition("gw-limits", "Accepted")) ==
          "False Invalid Policy is invalid: spec.defaults and spec.overrides are mutually "
          "exclusive");
  }
  SUBCASE("an unknown strategy") {
    Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "deep", {"a"}), "v1beta3"));
    CHECK(f.policy("gw-limits").invalidMessage ==
          "spec.defaults.strategy must be \"atomic\" or \"merge\", not \"deep\"");
  }
  SUBCASE("a condition on the lower policy outside the CEL subset policygraph evaluates") {
    Fixture f(rlp("gw-limits", "Gateway/gw",
                  block("overrides", "merge", {"a"}) +
                      "    when: self.limits.all(r, r.rates[0].limit > 1)\n"));
    CHECK(f.policy("gw-limits").invalidMessage.starts_with("spec.overrides.when must be a list"));
  }
  SUBCASE("request predicates are a rule of the block, merged like the others") {
    Fixture f(rlp("gw-limits", "Gateway/gw",
                  block("defaults", "merge", {"a"}) + "    when:\n      - predicate: 'true'\n"));
    CHECK(f.policy("gw-limits").invalidMessage.empty());
    CHECK(fields(onRoute(f)) == Fields{{"limits.a", "gw-limits"}, {"when", "gw-limits"}});
  }
}

TEST_CASE("kuadrant: a missing target") {
  Fixture f(rlp("lost", "HTTPRoute/nowhere", limits({"a"})));
  CHECK(conditionText(f.condition("lost", "Accepted")) ==
        "False TargetNotFound Policy target nowhere was not found");
  CHECK(f.condition("lost", "Enforced") == nullptr);
}

TEST_CASE("kuadrant: a gateway without routes enforces nothing yet") {
  Fixture f(rlp("gw-limits", "Gateway/gw", limits({"a"})),
            R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: kuadrant
spec:
  controllerName: kuadrant.io/policy-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: shop
spec:
  gatewayClassName: kuadrant
  listeners:
    - name: http
      protocol: HTTP
      port: 80
)");
  CHECK(conditionText(f.condition("gw-limits", "Accepted")) ==
        "True Accepted Policy has been accepted");
  CHECK(conditionText(f.condition("gw-limits", "Enforced")) ==
        "False Unknown Policy is not in the path to any existing routes");
}

TEST_CASE("kuadrant: Affected conditions go on what an enforced policy reaches") {
  Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "merge", {"a"})) +
            rlp("route-limits", "HTTPRoute/route", limits({"b"})));
  const model::Resource& gw = f.object("gateway.networking.k8s.io", "Gateway", "gw");
  std::vector<graph::Condition> onGateway = f.targetConditions(gw);
  REQUIRE(onGateway.size() == 1);
  CHECK(onGateway[0].type == "kuadrant.io/RateLimitPolicyAffected");
  CHECK(conditionText(&onGateway[0]) ==
        "True Affected Object affected by RateLimitPolicy [shop/gw-limits]");
  std::vector<graph::Condition> onRoute = f.targetConditions(f.route());
  REQUIRE(onRoute.size() == 1);
  CHECK(onRoute[0].message ==
        "Object affected by RateLimitPolicy [shop/gw-limits shop/route-limits]");

  SUBCASE("an overridden policy affects nothing") {
    Fixture g(rlp("gw-limits", "Gateway/gw", block("defaults", "atomic", {"a"})) +
              rlp("route-limits", "HTTPRoute/route", limits({"b"})));
    CHECK(g.targetConditions(g.object("gateway.networking.k8s.io", "Gateway", "gw")).empty());
    REQUIRE(g.targetConditions(g.route()).size() == 1);
    CHECK(g.targetConditions(g.route())[0].message ==
          "Object affected by RateLimitPolicy [shop/route-limits]");
  }
}

TEST_CASE("kuadrant: without the enforcement status, policies are Accepted and nothing else") {
  // What `lint` runs: the same effective policies, no Enforced or Affected conditions.
  const std::string policies = rlp("gw-limits", "Gateway/gw", block("defaults", "merge", {"a"})) +
                               rlp("route-limits", "HTTPRoute/route", limits({"b"}));
  policy::PolicyOptions options;
  options.enforcementStatus = false;
  Fixture lint(policies, kTopology, options);
  Fixture status(policies);
  for (const char* name : {"gw-limits", "route-limits"}) {
    CAPTURE(name);
    CHECK(conditionText(lint.condition(name, "Accepted")) ==
          "True Accepted Policy has been accepted");
    CHECK(lint.condition(name, "Enforced") == nullptr);
    CHECK(status.condition(name, "Enforced") != nullptr);
  }
  CHECK(lint.a.policies.targetConditions.empty());
  CHECK(!status.a.policies.targetConditions.empty());
  CHECK(fields(onRoute(lint)) == fields(onRoute(status)));
  CHECK(fields(onRoute(lint)) == Fields{{"limits.a", "gw-limits"}, {"limits.b", "route-limits"}});
}

TEST_CASE("kuadrant: a route under two Gateways has one effective policy per Gateway") {
  std::string topology = kTopology;
  topology += R"(---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw2
  namespace: shop
spec:
  gatewayClassName: kuadrant
  listeners:
    - name: http
      protocol: HTTP
      port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: both
  namespace: shop
spec:
  parentRefs:
    - name: gw
    - name: gw2
  rules:
    - backendRefs:
        - name: app
          port: 8080
)";
  Fixture f(rlp("gw-limits", "Gateway/gw", block("defaults", "merge", {"a"})) +
                rlp("gw2-limits", "Gateway/gw2", block("overrides", "atomic", {"z"})) +
                rlp("both-limits", "HTTPRoute/both", limits({"b"})),
            topology);
  std::vector<policy::Effective> all = f.on(f.route("both"));
  REQUIRE(all.size() == 2);
  std::map<std::string, Fields> byGateway;
  for (const policy::Effective& e : all) byGateway[e.path.front().display()] = fields(e);
  CHECK(byGateway["Gateway/shop/gw"] ==
        Fields{{"limits.a", "gw-limits"}, {"limits.b", "both-limits"}});
  CHECK(byGateway["Gateway/shop/gw2"] == Fields{{"limits.z", "gw2-limits"}});
  // Kept through one Gateway, overridden through the other.
  CHECK(conditionText(f.condition("both-limits", "Enforced")) ==
        "True PartiallyEnforced Policy has been successfully enforced. The following rules have "
        "been overridden by [shop/gw2-limits]: b");
}

TEST_CASE("kuadrant: at one level the established policy wins") {
  SUBCASE("by name when no timestamps say otherwise") {
    Fixture f(rlp("b-limits", "Gateway/gw", block("overrides", "atomic", {"b"})) +
              rlp("a-limits", "Gateway/gw", block("overrides", "atomic", {"a"})));
    CHECK(fields(onRoute(f)) == Fields{{"limits.a", "a-limits"}});
  }
  SUBCASE("merged defaults: the established policy's rule stays") {
    Fixture f(rlp("a-limits", "Gateway/gw", block("defaults", "merge", {"x"})) +
              rlp("b-limits", "Gateway/gw", block("defaults", "merge", {"x", "y"})));
    CHECK(fields(onRoute(f)) == Fields{{"limits.x", "a-limits"}, {"limits.y", "b-limits"}});
  }
}

TEST_CASE("kuadrant: AuthPolicy merges named rules per section") {
  std::string gw = R"(---
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: gw-auth
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: gw
  defaults:
    strategy: merge
    rules:
      authentication:
        api-key:
          apiKey: {selector: {}}
      authorization:
        allow:
          opa: {rego: allow = true}
      response:
        unauthorized:
          code: 403
)";
  std::string route = R"(---
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: route-auth
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: route
  rules:
    authentication:
      jwt:
        jwt: {issuerUrl: https://issuer.example.com}
    authorization:
      allow:
        opa: {rego: allow = false}
)";
  Fixture f(gw + route);
  std::vector<policy::Effective> all = f.on(f.route());
  REQUIRE(all.size() == 1);
  CHECK(all[0].profile->kind == "AuthPolicy");
  CHECK(fields(all[0]) == Fields{{"rules.authentication.api-key", "gw-auth"},
                                 {"rules.authentication.jwt", "route-auth"},
                                 {"rules.authorization.allow", "route-auth"},
                                 {"rules.response.unauthorized", "gw-auth"}});
  CHECK(conditionText(f.condition("gw-auth", "Enforced", "AuthPolicy")) ==
        "True PartiallyEnforced Policy has been successfully enforced. The following rules have "
        "been overridden by [shop/route-auth]: authorization.allow");
}

// A section the v1 schema does not define (an unknown field) is refused with the whole policy
// (testdata/schema/refuse/kuadrant-authpolicy-unknown-section.yaml).
TEST_CASE("kuadrant: every AuthPolicy section is read, in Authorino's order") {
  std::string route = R"(---
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: route-auth
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: route
  patterns:
    admin: {allOf: [{selector: auth.identity.group, operator: eq, value: admin}]}
  rules:
    callbacks:
      audit: {http: {url: https://audit.example.com}}
    response:
      success:
        filters:
          identity: {json: {properties: {}}}
        headers:
          x-user: {plain: {value: someone}}
      unauthorized:
        code: 403
      unauthenticated:
        code: 401
    authorization:
      allow:
        opa: {rego: allow = true}
    metadata:
      profile: {http: {url: https://profiles.example.com}}
    authentication:
      api-key:
        apiKey: {selector: {}}
)";
  Fixture f(route);
  std::vector<policy::Effective> all = f.on(f.route());
  REQUIRE(all.size() == 1);
  CHECK(fields(all[0]) == Fields{{"rules.authentication.api-key", "route-auth"},
                                 {"rules.metadata.profile", "route-auth"},
                                 {"rules.authorization.allow", "route-auth"},
                                 {"rules.response.unauthenticated", "route-auth"},
                                 {"rules.response.unauthorized", "route-auth"},
                                 {"rules.response.success.headers.x-user", "route-auth"},
                                 {"rules.response.success.filters.identity", "route-auth"},
                                 {"rules.callbacks.audit", "route-auth"},
                                 {"patterns.admin", "route-auth"}});
}

TEST_CASE("kuadrant: direct kinds — the established policy wins, the other is Conflicted") {
  auto dns = [](const std::string& name) {
    return "---\napiVersion: kuadrant.io/v1\nkind: DNSPolicy\nmetadata:\n  name: " + name +
           "\n  namespace: shop\nspec:\n  targetRef:\n    group: gateway.networking.k8s.io\n"
           "    kind: Gateway\n    name: gw\n  providerRefs:\n    - name: " +
           name + "-credentials\n";
  };
  Fixture f(dns("second") + dns("first"));
  CHECK(conditionText(f.condition("first", "Accepted", "DNSPolicy")) ==
        "True Accepted Policy has been accepted");
  CHECK(conditionText(f.condition("second", "Accepted", "DNSPolicy")) ==
        "False Conflicted Policy is conflicted by shop/first");
  CHECK(f.condition("first", "Enforced", "DNSPolicy") == nullptr);
  std::vector<policy::Effective> all = f.on(f.object("gateway.networking.k8s.io", "Gateway", "gw"));
  REQUIRE(all.size() == 1);
  CHECK(fields(all[0]) == Fields{{"providerRefs", "first"}});
  REQUIRE(all[0].ineffective.size() == 1);
  CHECK(all[0].ineffective[0]->resource->name == "second");
  // A direct policy on the Gateway does not reach the routes below it.
  CHECK(f.on(f.route()).empty());
}

TEST_CASE("kuadrant: a constraint applies its block only where it holds for the lower policy") {
  auto fixture = [](const std::string& condition) {
    return rlp("gw-limits", "Gateway/gw",
               block("overrides", "merge", {"a"}) + "    when: " + condition + "\n") +
           rlp("route-limits", "HTTPRoute/route", limits({"a"}));
  };
  SUBCASE("the lower policy violates it: the override applies") {
    Fixture f(fixture("self.limits.a.rates[0].limit > 0"));
    CHECK(f.policy("gw-limits").invalidMessage.empty());
    CHECK(fields(onRoute(f)) == Fields{{"limits.a", "gw-limits"}});
  }
  SUBCASE("the lower policy complies: its own rule stays") {
    Fixture f(fixture("self.limits.a.rates[0].limit > 5"));
    CHECK(fields(onRoute(f)) == Fields{{"limits.a", "route-limits"}});
    CHECK(conditionText(f.condition("gw-limits", "Enforced")).starts_with("False Unknown "));
  }
}
