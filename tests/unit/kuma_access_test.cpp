// Kuma's answer to `policygraph access`: MeshTrafficPermission `from` rules on one inbound, as
// Kuma's rule builder orders them and Envoy's RBAC filter reads them; the mesh's mutual TLS.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/graph/kuma.h"
#include "lib/policy/kuma/access.h"
#include "tests/unit/load_store.h"

using namespace pg;
namespace kuma = pg::policy::kuma;

namespace {

const char* const kMesh =
    "type: Mesh\nname: m\nmtls:\n  enabledBackend: ca\n  backends:\n  - name: ca\n    type: "
    "builtin\n---\n"
    "type: Dataplane\nname: backend\nmesh: m\nnetworking:\n  address: 10.0.0.2\n  inbound:\n"
    "  - port: 8080\n    tags:\n      kuma.io/service: backend\n"
    "  - port: 9090\n    name: admin\n    tags:\n      kuma.io/service: backend-admin\n---\n"
    "type: Dataplane\nname: web-v1\nmesh: m\nnetworking:\n  address: 10.0.0.3\n  inbound:\n"
    "  - port: 80\n    tags:\n      kuma.io/service: web\n      version: v1\n---\n"
    "type: Dataplane\nname: web-v2\nmesh: m\nnetworking:\n  address: 10.0.0.4\n  inbound:\n"
    "  - port: 80\n    tags:\n      kuma.io/service: web\n      version: v2\n---\n";

struct Fixture {
  testing::Loaded loaded;
  graph::kuma::Topology topology;
  std::vector<kuma::Policy> policies;
  explicit Fixture(const std::string& policyText, const std::string& mesh = kMesh)
      : loaded(testing::loadStore(mesh + policyText)),
        topology(graph::kuma::build(loaded.store)),
        policies(kuma::readPolicies(loaded.store, "m", {})) {}

  policy::AccessResult decide(const std::string& client, std::int64_t port = 8080) const {
    const graph::kuma::Dataplane* dp = topology.dataplane("m", "backend");
    REQUIRE(dp);
    const graph::kuma::Inbound* inbound = nullptr;
    for (const graph::kuma::Inbound& in : dp->inbounds)
      if (in.port == port) inbound = &in;
    REQUIRE(inbound);
    policy::AccessClient c;
    if (client.rfind("ip:", 0) == 0) {
      c.display = client;
    } else {
      const graph::kuma::Dataplane* from = topology.dataplane("m", client);
      REQUIRE(from);
      c = kuma::dataplaneClient(*from, "Dataplane/" + client);
    }
    return kuma::decideAccess(*dp, *inbound, c, policies, loaded.store, topology, {});
  }
};

std::string mtp(const std::string& name, const std::string& top, const std::string& from) {
  return "type: MeshTrafficPermission\nname: " + name + "\nmesh: m\nspec:\n  targetRef:\n" + top +
         "  from:\n" + from + "---\n";
}

const std::string kOnMesh = "    kind: Mesh\n";
const std::string kOnBackend = "    kind: MeshService\n    name: backend\n";

std::string item(const std::string& ref, const std::string& action) {
  return "  - targetRef:\n" + ref + "    default:\n      action: " + action + "\n";
}
const std::string kFromMesh = "      kind: Mesh\n";
std::string fromService(const std::string& s) {
  return "      kind: MeshSubset\n      tags:\n        kuma.io/service: " + s + "\n";
}
const std::string kFromWebV1 =
    "      kind: MeshServiceSubset\n      name: web\n      tags:\n        version: v1\n";

}  // namespace

TEST_CASE("kuma access: a later item on a smaller subset overrides a mesh-wide one") {
  // A mesh-wide Allow, then a Deny on web v1: web v1's rule merges both, the later wins.
  Fixture f(mtp("p", kOnMesh, item(kFromMesh, "Allow") + item(kFromWebV1, "Deny")));
  policy::AccessResult v1 = f.decide("web-v1");
  CHECK(v1.family == "kuma");
  CHECK(v1.decision == policy::AccessDecision::Refused);
  REQUIRE(v1.decidingRule);
  const policy::AccessTagRule& rule = v1.tagRules[*v1.decidingRule];
  CHECK(rule.action == "Deny");
  CHECK(rule.item == 1u);
  CHECK(rule.policy.name == "MeshTrafficPermission/p in mesh m");
  CHECK(rule.at.start.line > 0);
  // web v2 is in the negated part of the clique: `version != v1`, where only the Allow holds.
  policy::AccessResult v2 = f.decide("web-v2");
  CHECK(v2.decision == policy::AccessDecision::Allowed);
  REQUIRE(v2.decidingRule);
  const policy::AccessTagRule& v2rule = v2.tagRules[*v2.decidingRule];
  CHECK(v2rule.action == "Allow");
  CHECK(v2rule.item == 0u);
  bool negation = false;
  for (const policy::AccessTagMatch& m : v2rule.subset)
    negation = negation || (m.key == "version" && m.value == "v1" && m.negated);
  CHECK(negation);
}

TEST_CASE("kuma access: the order of items decides, not the size of their subsets (the seed)") {
  // The MADR's backend-permissions: Deny on web v1, then Allow on the mesh. Shipped Kuma merges
  // every item covering web v1 in order, so the later mesh-wide Allow wins (the seed says Deny).
  Fixture f(mtp("p", kOnMesh, item(kFromWebV1, "Deny") + item(kFromMesh, "Allow")));
  policy::AccessResult seed = f.decide("web-v1");
  CHECK(seed.decision == policy::AccessDecision::Allowed);
  REQUIRE(seed.decidingRule);
  CHECK(seed.tagRules[*seed.decidingRule].item == 1u);
  Fixture g(mtp("p", kOnMesh, item(kFromWebV1, "Allow") + item(kFromWebV1, "Deny")));
  policy::AccessResult r = g.decide("web-v1");
  CHECK(r.decision == policy::AccessDecision::Refused);
  REQUIRE(r.decidingRule);
  CHECK(r.tagRules[*r.decidingRule].item == 1u);
}

TEST_CASE("kuma access: a more specific policy overrides a mesh-wide one") {
  // allow-only-infra denies everyone on the mesh; backend's own policy allows web.
  Fixture f(mtp("allow-only-infra", kOnMesh, item(kFromMesh, "Deny")) +
            mtp("backend-allows-web", kOnBackend, item(fromService("web"), "Allow")));
  policy::AccessResult r = f.decide("web-v1");
  CHECK(r.decision == policy::AccessDecision::Allowed);
  REQUIRE(r.decidingRule);
  CHECK(r.tagRules[*r.decidingRule].policy.name ==
        "MeshTrafficPermission/backend-allows-web in mesh m");
  // The admin inbound has no other name for backend-admin: the same policies select it
  // (MeshService backend selects the inbound with kuma.io/service backend only).
  policy::AccessResult admin = f.decide("web-v1", 9090);
  CHECK(admin.decision == policy::AccessDecision::Refused);
  REQUIRE(admin.decidingRule);
  CHECK(admin.tagRules[*admin.decidingRule].policy.name ==
        "MeshTrafficPermission/allow-only-infra in mesh m");
}

TEST_CASE("kuma access: no rule covers the client: denied, with the default policy assumed") {
  Fixture f(mtp("p", kOnMesh, item(fromService("other"), "Allow")));
  policy::AccessResult r = f.decide("web-v1");
  CHECK(r.decision == policy::AccessDecision::Refused);
  CHECK_FALSE(r.decidingRule);
  CHECK(r.tagRules.size() == 1);  // kuma.io/service=other; `!= other` has no item, no rule
  bool assumed = false;
  for (const std::string& n : r.notes) assumed = assumed || n.find("assumed absent") != n.npos;
  CHECK(assumed);
  // No MeshTrafficPermission at all: the same.
  Fixture none("");
  CHECK(none.decide("web-v1").decision == policy::AccessDecision::Refused);
  CHECK(none.decide("web-v1").tagRules.empty());
}

TEST_CASE("kuma access: AllowWithShadowDeny allows and says the denial is logged") {
  Fixture f(mtp("p", kOnMesh, item(kFromMesh, "AllowWithShadowDeny")));
  policy::AccessResult r = f.decide("web-v2");
  CHECK(r.decision == policy::AccessDecision::Allowed);
  bool shadow = false;
  for (const std::string& n : r.notes) shadow = shadow || n.find("shadow") != n.npos;
  CHECK(shadow);
}

TEST_CASE("kuma access: mutual TLS decides before MeshTrafficPermission") {
  const std::string deny = mtp("p", kOnMesh, item(kFromMesh, "Deny"));
  std::string mesh = kMesh;
  // Without mTLS nothing is enforced.
  std::string plain = mesh;
  plain.replace(plain.find("mtls:"), plain.find("---") - plain.find("mtls:"), "");
  Fixture off(deny, plain);
  policy::AccessResult r = off.decide("web-v1");
  CHECK(r.decision == policy::AccessDecision::Allowed);
  CHECK(r.mtls == "disabled");
  // STRICT: a client without a proxy fails the handshake, even where everyone is allowed.
  Fixture strict(mtp("p", kOnMesh, item(kFromMesh, "Allow")));
  policy::AccessResult s = strict.decide("ip:10.9.9.9");
  CHECK(s.decision == policy::AccessDecision::Refused);
  CHECK(s.mtls == "STRICT");
  CHECK(strict.decide("web-v1").decision == policy::AccessDecision::Allowed);
  // PERMISSIVE: a plaintext client takes the plaintext filter chain, which has no RBAC filter:
  // allowed even where every client is denied; a meshed client is still checked.
  std::string permissive = mesh;
  permissive.replace(permissive.find("type: builtin"), 13, "type: builtin\n    mode: PERMISSIVE");
  Fixture q(mtp("p", kOnMesh, item(fromService("web"), "Allow") + item(fromService("web"), "Deny")),
            permissive);
  policy::AccessResult plaintext = q.decide("ip:10.9.9.9");
  CHECK(plaintext.decision == policy::AccessDecision::Allowed);
  CHECK(plaintext.mtls == "PERMISSIVE");
  CHECK(q.decide("web-v1").decision == policy::AccessDecision::Refused);
}

TEST_CASE("kuma access: subsets cover multi-valued client tags as certificates do") {
  // A client with two inbounds carries both services: a positive tag needs one of them, a
  // negated tag excludes it if any inbound has it.
  kuma::Subset positive{{"kuma.io/service", "b", false}};
  kuma::Subset negated{{"kuma.io/service", "b", true}};
  std::vector<policy::AccessTag> both{{"kuma.io/service", "a"}, {"kuma.io/service", "b"}};
  CHECK(kuma::covers(positive, both));
  CHECK_FALSE(kuma::covers(negated, both));
  CHECK(kuma::covers({}, both));
  CHECK(kuma::covers(negated, {}));
  CHECK_FALSE(kuma::covers(positive, {}));
}

TEST_CASE("kuma access: what the answer cannot see is said, not guessed") {
  // A policy in the `rules` form (SPIFFE ID matchers) is named, not evaluated.
  Fixture f(
      mtp("p", kOnMesh, item(kFromMesh, "Allow")) +
      "type: MeshTrafficPermission\nname: spiffe\nmesh: m\nspec:\n  rules:\n  - default:\n"
      "      deny:\n      - spiffeID:\n          type: Prefix\n          value: spiffe://m/\n");
  policy::AccessResult r = f.decide("web-v1");
  bool named = false;
  for (const std::string& n : r.notes)
    named = named ||
            (n.find("MeshTrafficPermission/spiffe") != n.npos && n.find("not evaluated") != n.npos);
  CHECK(named);
  // A Mesh that skips its initial policies needs no assumption about Kuma's default one.
  std::string skipping = kMesh;
  skipping.insert(skipping.find("mtls:"), "skipCreatingInitialPolicies: ['*']\n");
  Fixture s("", skipping);
  CHECK(kuma::meshTls(s.topology, "m").skipsInitialPermission);
  for (const std::string& n : s.decide("web-v1").notes) CHECK(n.find("assumed absent") == n.npos);
  // A Mesh missing from the repository: mTLS assumed, and said.
  Fixture missing(mtp("p", kOnMesh, item(kFromMesh, "Deny")),
                  std::string(kMesh).substr(std::string(kMesh).find("---\n") + 4));
  policy::AccessResult m = missing.decide("web-v1");
  CHECK(m.decision == policy::AccessDecision::Refused);
  CHECK(m.mtls == "STRICT");
  REQUIRE_FALSE(m.notes.empty());
  CHECK(m.notes.front().find("not in the repository") != std::string::npos);
}

TEST_CASE("kuma access: an HTTP inbound answers a denied client 403, a TCP one closes") {
  std::string http = kMesh;
  http.replace(http.find("kuma.io/service: backend\n"), 25,
               "kuma.io/service: backend\n      kuma.io/protocol: http\n");
  Fixture f(mtp("p", kOnMesh, item(kFromMesh, "Deny")), http);
  policy::AccessResult r = f.decide("web-v1");
  CHECK(r.decision == policy::AccessDecision::Unauthorized);
  CHECK(r.status == 403);
  CHECK(r.protocol == "http");
  Fixture g(mtp("p", kOnMesh, item(kFromMesh, "Deny")));
  policy::AccessResult tcp = g.decide("web-v1");
  CHECK(tcp.decision == policy::AccessDecision::Refused);
  CHECK_FALSE(tcp.status);
  CHECK(tcp.protocol == "tcp");
}
