// lib/policy/kuma/validate: what the KM5xx rules report, on small stores.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/graph/kuma.h"
#include "lib/policy/kuma/validate.h"
#include "tests/unit/load_store.h"

namespace {

using pg::policy::kuma::Check;
using pg::policy::kuma::Problem;

std::vector<Problem> problemsOf(const pg::model::Store& store) {
  pg::graph::kuma::Topology topology = pg::graph::kuma::build(store);
  return pg::policy::kuma::validate(store, topology, {});
}

std::vector<std::string> messages(const std::vector<Problem>& problems, Check check) {
  std::vector<std::string> out;
  for (const Problem& p : problems)
    if (p.check == check) out.push_back(p.message);
  return out;
}

const char* const kProxy = R"(type: Dataplane
name: web-1
mesh: default
networking:
  address: 10.0.0.1
  inbound:
  - port: 8080
    tags:
      kuma.io/service: web
)";

}  // namespace

TEST_CASE("kuma validate: types without to/from sections accept only default") {
  for (const char* type : {"MeshTrace", "MeshMetric", "MeshProxyPatch", "MeshPassthrough"}) {
    const pg::policy::kuma::AllowedKinds* allowed = pg::policy::kuma::allowedKinds(type);
    REQUIRE(allowed != nullptr);
    CHECK(allowed->to.empty());
    CHECK(allowed->from.empty());
    CHECK_FALSE(allowed->rules);
  }
  CHECK(pg::policy::kuma::allowedKinds("MeshUnknown") == nullptr);
}

TEST_CASE("kuma validate: the smaller name wins a same-rank conflict, reported on the other") {
  auto loaded = pg::testing::loadStore(std::string(kProxy) + R"(---
type: MeshTimeout
name: b-timeouts
mesh: default
spec:
  to:
  - targetRef: {kind: Mesh}
    default: {idleTimeout: 1m}
---
type: MeshTimeout
name: a-timeouts
mesh: default
spec:
  to:
  - targetRef: {kind: Mesh}
    default: {idleTimeout: 30s}
)");
  std::vector<Problem> problems = problemsOf(loaded.store);
  std::vector<std::string> same = messages(problems, Check::SameRank);
  REQUIRE(same.size() == 1);
  CHECK(same.front().find("a-timeouts wins") != std::string::npos);
  for (const Problem& p : problems)
    if (p.check == Check::SameRank) CHECK(p.resource->name == "b-timeouts");
}

TEST_CASE("kuma validate: a MeshService name resolves to a Kubernetes Service of the namespace") {
  // Kuma generates MeshServices from Services at run time: the input holds only the Service.
  auto loaded = pg::testing::loadStore(R"(type: Dataplane
name: api-1
mesh: default
labels:
  k8s.kuma.io/namespace: shop
networking:
  address: 10.0.0.1
  inbound:
  - port: 8080
    tags:
      kuma.io/service: api_shop_svc_80
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec:
  ports:
  - port: 80
---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: api, namespace: shop}
spec:
  to:
  - targetRef: {kind: MeshService, name: api}
    default: {idleTimeout: 30s}
  - targetRef: {kind: MeshService, name: cart}
    default: {idleTimeout: 30s}
)");
  std::vector<std::string> missing = messages(problemsOf(loaded.store), Check::TargetMissing);
  REQUIRE(missing.size() == 1);
  CHECK(missing.front().find("MeshService cart") != std::string::npos);
}

TEST_CASE("kuma validate: without proxies of the mesh, top-level targets are not checked") {
  const std::string policy = R"(type: MeshTimeout
name: somewhere
mesh: default
spec:
  targetRef:
    kind: MeshSubset
    tags: {kuma.io/service: nowhere}
  from:
  - targetRef: {kind: Mesh}
    default: {idleTimeout: 30s}
)";
  auto alone = pg::testing::loadStore(policy);
  CHECK(messages(problemsOf(alone.store), Check::TargetMissing).empty());
  auto withProxy = pg::testing::loadStore(std::string(kProxy) + "---\n" + policy);
  CHECK(messages(problemsOf(withProxy.store), Check::TargetMissing).size() == 1);
}
