// Kuma: Universal input, conf merging, Kuma's policy order, and the rule builder, the last
// against Kuma's own matcher goldens (../shared/oracles/kuma, read at run time when present).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/graph/kuma.h"
#include "lib/load/loader.h"
#include "lib/model/store.h"
#include "lib/policy/kuma/kuma.h"
#include "lib/yaml/parser.h"
#include "tests/unit/load_store.h"
#include "tests/unit/skip.h"

using namespace pg;
namespace kuma = pg::policy::kuma;

namespace {

using testing::Loaded;
using testing::loadStore;

std::string canon(const kuma::Conf& c) {
  return kuma::canonicalText(c);
}

kuma::Conf parseConf(const std::string& text) {
  static std::vector<yaml::ParseResult> keep;  // the conf's nodes point into the tree
  keep.push_back(yaml::parse(text, {}, false));
  return kuma::fromYaml(keep.back().tree->root(0), nullptr);
}

}  // namespace

TEST_CASE("kuma: a Universal document is a kuma.io resource of its mesh") {
  Loaded l = loadStore(
      "type: Mesh\nname: default\n---\n"
      "type: Dataplane\nname: dp-1\nmesh: default\n---\n"
      "type: Dataplane\nname: dp-1\nmesh: other\n---\n"
      "type: Dataplane\nname: dp-1\nmesh: default\nlabels:\n  team: a\n---\n"
      "type: Dataplane\nname: no-mesh\n");
  // One name in two meshes; one duplicate, whose later definition counts.
  REQUIRE(l.store.ofKind("Dataplane").size() == 2);
  CHECK(l.store.duplicates().size() == 1);
  const model::Resource* dp = l.store.findInMesh("Dataplane", "default", "dp-1").front();
  CHECK(dp->universal);
  CHECK(dp->group == "kuma.io");
  CHECK(dp->label("team") == "a");
  CHECK(dp->display() == "Dataplane/dp-1 in mesh default");
  CHECK(l.store.findInMesh("Mesh", "", "default").size() == 1);
  // Without a mesh it is not a Universal resource: the missing-apiVersion problem.
  REQUIRE(l.file.problems.size() == 1);
  CHECK(l.file.problems[0].message == "this object has no apiVersion");
}

TEST_CASE("kuma: Kubernetes-form objects take their mesh from the kuma.io/mesh label") {
  Loaded l = loadStore(
      "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: a\n  namespace: n\n"
      "  labels:\n    kuma.io/mesh: m2\n---\n"
      "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: b\n  namespace: n\n");
  CHECK(l.store.findInMesh("MeshTimeout", "m2", "a").size() == 1);
  CHECK(l.store.findInMesh("MeshTimeout", "default", "b").size() == 1);
}

TEST_CASE("kuma: confs merge as JSON merge patches, append* lists concatenate") {
  kuma::Conf a = parseConf("x: {y: 1, z: [1, 2]}\nappendModifications: [a]\nkeep: k\n");
  kuma::Conf b = parseConf("x: {z: [3]}\nappendModifications: [b]\nkeep: null\n");
  kuma::Conf merged = kuma::mergeAll({&a, &b});
  CHECK(canon(merged) == "{appendModifications:[\"a\",\"b\",],x:{y:1,z:[3,],},}");
}

TEST_CASE("kuma: durations are written the way Go writes them") {
  CHECK(kuma::goDuration("60s") == "1m0s");
  CHECK(kuma::goDuration("1h") == "1h0m0s");
  CHECK(kuma::goDuration("30m") == "30m0s");
  CHECK(kuma::goDuration("10s") == "10s");
  CHECK(kuma::goDuration("1.5s") == "1.5s");
  CHECK(kuma::goDuration("500ms") == "500ms");
  CHECK(kuma::goDuration("90m") == "1h30m0s");
  CHECK(kuma::goDuration("0") == "0s");
  CHECK_FALSE(kuma::goDuration("ten seconds"));
  CHECK_FALSE(kuma::goDuration("5"));
}

TEST_CASE("kuma: policies are ordered by targetRef kind, origin, role, then name descending") {
  Loaded l = loadStore(
      "type: MeshTimeout\nname: b\nmesh: m\nspec:\n  targetRef: {kind: MeshService, name: s}\n"
      "  to: [{targetRef: {kind: Mesh}, default: {}}]\n---\n"
      "type: MeshTimeout\nname: a\nmesh: m\nspec:\n  targetRef: {kind: Mesh}\n"
      "  to: [{targetRef: {kind: Mesh}, default: {}}]\n---\n"
      "type: MeshTimeout\nname: c\nmesh: m\nspec:\n  targetRef: {kind: Mesh}\n"
      "  to: [{targetRef: {kind: Mesh}, default: {}}]\n---\n"
      "type: MeshTimeout\nname: g\nmesh: m\nlabels: {kuma.io/origin: global}\nspec:\n"
      "  targetRef: {kind: Mesh}\n  to: [{targetRef: {kind: Mesh}, default: {}}]\n---\n"
      "type: MeshTimeout\nname: d\nmesh: m\nspec:\n  to: [{targetRef: {kind: Mesh}, default: "
      "{}}]\n");
  std::vector<kuma::Policy> ps = kuma::readPolicies(l.store, "m", {});
  std::stable_sort(ps.begin(), ps.end(), kuma::lessByTargetRef);
  std::vector<std::string> names;
  for (const kuma::Policy& p : ps) names.emplace_back(p.resource->name);
  // No targetRef means Mesh; global before zone; among equals the smaller name comes last.
  CHECK(names == std::vector<std::string>{"g", "d", "c", "a", "b"});
}

TEST_CASE("kuma: on a MeshGateway the policy naming fewer listener tags comes first") {
  Loaded l = loadStore(
      "type: MeshHTTPRoute\nname: a\nmesh: m\nspec:\n"
      "  targetRef: {kind: MeshGateway, name: gw, tags: {port: http}}\n---\n"
      "type: MeshHTTPRoute\nname: b\nmesh: m\nspec:\n"
      "  targetRef: {kind: MeshGateway, name: gw}\n---\n"
      "type: MeshHTTPRoute\nname: c\nmesh: m\nspec:\n"
      "  targetRef: {kind: MeshGateway, name: gw, tags: {port: http}}\n");
  std::vector<kuma::Policy> ps = kuma::readPolicies(l.store, "m", {});
  auto order = [&](auto less) {
    std::vector<kuma::Policy> sorted = ps;
    std::stable_sort(sorted.begin(), sorted.end(), less);
    std::vector<std::string> names;
    for (const kuma::Policy& p : sorted) names.emplace_back(p.resource->name);
    return names;
  };
  CHECK(order(kuma::lessByTargetRef) == std::vector<std::string>{"b", "c", "a"});
  // Resource rules leave the tag count out: name descending only.
  CHECK(order(kuma::lessByPolicyAttributes) == std::vector<std::string>{"c", "b", "a"});
}

TEST_CASE("kuma: MeshHTTPRoute confs merge per hostname, in order of first appearance") {
  kuma::Conf a = parseConf("rules: [{matches: [{path: {value: /a}}], default: {}}]\n");
  kuma::Conf b = parseConf(
      "hostnames: [x.test, y.test]\nrules: [{matches: [{path: {value: /b}}], default: {}}]\n");
  kuma::Conf c = parseConf("rules: [{matches: [{path: {value: /c}}], default: {}}]\n");
  std::vector<kuma::Conf> merged = kuma::mergedConfs("MeshHTTPRoute", {&a, &b, &c});
  REQUIRE(merged.size() == 3);
  // Group "": a and c, the later route's rule first.
  CHECK(canon(merged[0]) ==
        "{rules:[{default:{},matches:[{path:{value:\"/c\",},},],},{default:{},matches:[{path:{"
        "value:\"/a\",},},],},],}");
  CHECK(canon(merged[1]) ==
        "{hostnames:[\"x.test\",],rules:[{default:{},matches:[{path:{value:\"/b\",},},],},],}");
  CHECK(canon(merged[2]) ==
        "{hostnames:[\"y.test\",],rules:[{default:{},matches:[{path:{value:\"/b\",},},],},],}");
  // Other types merge into one conf, hostnames or not.
  CHECK(kuma::mergedConfs("MeshTimeout", {&a, &b}).size() == 1);
}

namespace {

struct Proxied {
  Loaded loaded;
  graph::kuma::Topology topo;
  std::vector<kuma::Policy> policies;
  std::vector<kuma::TypeRules> rules;
};

// The rules Kuma builds for Dataplane `dp` of mesh `m` in `text`.
Proxied rulesOf(std::string text) {
  Proxied p{loadStore(std::move(text)), {}, {}, {}};
  p.topo = graph::kuma::build(p.loaded.store);
  p.policies = kuma::readPolicies(p.loaded.store, "m", {});
  const graph::kuma::Dataplane* dp = p.topo.dataplane("m", "dp");
  REQUIRE(dp);
  kuma::Proxy proxy{dp->resource, dp, p.topo.gatewayOf(*dp), dp->gatewayTags};
  p.rules = kuma::buildProxyRules(proxy, p.policies, p.loaded.store, p.topo, {});
  return p;
}

const char* kMeshAndDp =
    "type: Mesh\nname: m\n---\n"
    "type: Dataplane\nname: dp\nmesh: m\nlabels: {k8s.kuma.io/namespace: app}\nnetworking:\n"
    "  address: 1.1.1.1\n  inbound:\n    - port: 80\n      tags: {kuma.io/service: web}\n---\n";

}  // namespace

TEST_CASE("kuma: from rules split sources into cliques of tag subsets with negations") {
  Proxied p = rulesOf(
      "type: Mesh\nname: m\n---\n"
      "type: Dataplane\nname: dp\nmesh: m\nnetworking:\n  address: 1.1.1.1\n  inbound:\n"
      "    - port: 80\n      tags: {kuma.io/service: web}\n---\n"
      "type: MeshTrafficPermission\nname: all\nmesh: m\nspec:\n  targetRef: {kind: Mesh}\n"
      "  from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]\n---\n"
      "type: MeshTrafficPermission\nname: some\nmesh: m\nspec:\n"
      "  targetRef: {kind: MeshService, name: web}\n  from:\n"
      "    - {targetRef: {kind: MeshService, name: a}, default: {action: Allow}}\n"
      "    - {targetRef: {kind: MeshService, name: b}, default: {action: Allow}}\n");
  std::vector<kuma::TypeRules>& rules = p.rules;
  REQUIRE(rules.size() == 1);
  REQUIRE(rules[0].fromRules.size() == 1);
  std::vector<std::string> got;
  for (const kuma::SubsetRule& r : rules[0].fromRules[0].rules) {
    std::string s;
    for (const kuma::Tag& t : r.subset) s += (t.negated ? "!" : "") + t.value;
    got.push_back(s + "=" + canon(r.conf));
  }
  // Cliques {all, b} and {all, a}, the later clique first; positives before negations.
  CHECK(got == std::vector<std::string>{"b={action:\"Allow\",}", "a={action:\"Allow\",}",
                                        "!b={action:\"Deny\",}", "!a={action:\"Deny\",}"});
}

namespace {

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A golden's conf (YAML) in the same canonical text as canon(Conf).
std::string canonYaml(yaml::NodeRef node) {
  return canon(kuma::fromYaml(node, nullptr));
}

}  // namespace

TEST_CASE("kuma: from and to rules agree with Kuma's matcher goldens") {
  std::filesystem::path root = std::filesystem::path(PG_SOURCE_DIR) / ".." / "shared" / "oracles" /
                               "kuma" / "matchers" / "testdata" / "matchedpolicies";
  if (!std::filesystem::exists(root)) {
    pg::testing::skipCheck("no Kuma oracle at " + root.string());
    return;
  }
  int compared = 0;
  int skipped = 0;
  for (std::string folder : {"fromrules", "torules"}) {
    std::vector<std::filesystem::path> goldens;
    for (const auto& e : std::filesystem::directory_iterator(root / folder))
      if (e.path().string().ends_with(".golden.yaml")) goldens.push_back(e.path());
    std::sort(goldens.begin(), goldens.end());
    for (const std::filesystem::path& golden : goldens) {
      std::string base = golden.string().substr(0, golden.string().size() - 12);
      std::string dpText = readFile(base + ".dataplane.yaml");
      std::string text = dpText + "\n---\n" + readFile(base + ".policies.yaml");
      Loaded l = loadStore(text);
      if (!l.file.problems.empty()) {
        // An input we cannot read as Kuma does (torules/03 writes two policies in one
        // document: Kuma's parser keeps the later duplicate keys, the loader reports them).
        MESSAGE("not compared, the loader reports " << l.file.problems.front().message << ": "
                                                    << golden.string());
        ++skipped;
        continue;
      }
      if (!l.store.duplicates().empty()) {
        // Kuma's matcher is handed both definitions of one name (select-single-inbound has
        // two mtp-1); a cluster holds only the one applied last, which is what we simulate.
        MESSAGE("not compared, the input defines " << l.store.duplicates().front().second->display()
                                                   << " twice: " << golden.string());
        ++skipped;
        continue;
      }
      graph::kuma::Topology topo = graph::kuma::build(l.store);
      REQUIRE(!topo.dataplanes.empty());
      const graph::kuma::Dataplane& dp = topo.dataplanes.front();
      std::vector<kuma::Policy> ps = kuma::readPolicies(l.store, dp.resource->mesh, {});
      kuma::Proxy proxy{dp.resource, &dp, topo.gatewayOf(dp), dp.gatewayTags};
      std::vector<kuma::TypeRules> rules = kuma::buildProxyRules(proxy, ps, l.store, topo, {});
      yaml::ParseResult g = yaml::parse(readFile(golden), {}, false);
      yaml::NodeRef doc = g.tree->root(0);
      // The rules of the one type that is not a route.
      const kuma::TypeRules* tr = nullptr;
      for (const kuma::TypeRules& t : rules)
        if (t.type != "MeshHTTPRoute") tr = &t;
      auto subsetText = [](yaml::NodeRef subset) {
        std::vector<std::string> parts;
        for (yaml::NodeRef t : subset.items())
          parts.push_back(std::string(t.get("Key").str()) + "=" +
                          (t.get("Not").str() == "true" ? "!" : "") +
                          std::string(t.get("Value").str()));
        std::sort(parts.begin(), parts.end());
        std::string s;
        for (const std::string& p : parts) s += p + ";";
        return s;
      };
      auto ourSubset = [](const kuma::Subset& subset) {
        std::vector<std::string> parts;
        for (const kuma::Tag& t : subset)
          parts.push_back(t.key + "=" + (t.negated ? "!" : "") + t.value);
        std::sort(parts.begin(), parts.end());
        std::string s;
        for (const std::string& p : parts) s += p + ";";
        return s;
      };
      auto describe = [&](yaml::NodeRef list) {
        std::string out;
        for (yaml::NodeRef r : list.items()) {
          out += subsetText(r.get("Subset")) + " " + canonYaml(r.get("Conf")) + " <-";
          for (yaml::NodeRef o : r.get("Origin").items())
            out += " " + std::string(o.get("name").str());
          out += "\n";
        }
        return out;
      };
      auto describeOurs = [&](const std::vector<kuma::SubsetRule>& list) {
        std::string out;
        for (const kuma::SubsetRule& r : list) {
          out += ourSubset(r.subset) + " " + canon(r.conf) + " <-";
          for (const kuma::Policy* p : r.origin) out += " " + std::string(p->resource->name);
          out += "\n";
        }
        return out;
      };
      if (std::string(folder) == "fromrules") {
        for (yaml::Entry entry : doc.get("Rules").entries()) {
          yaml::NodeRef addr = entry.key;
          yaml::NodeRef list = entry.value;
          std::string ours;
          if (tr)
            for (const kuma::FromRules& f : tr->fromRules)
              if (std::string(f.listener.address) + ":" + std::to_string(f.listener.port) ==
                  addr.str())
                ours = describeOurs(f.rules);
          INFO(golden.string() << " " << addr.str());
          CHECK(ours == describe(list));
          ++compared;
        }
      } else {
        std::string ours = tr ? describeOurs(tr->toRules) : std::string();
        INFO(golden.string());
        CHECK(ours == describe(doc.get("Rules")));
        ++compared;
      }
    }
  }
  MESSAGE("compared " << compared << " rule lists with Kuma's goldens; " << skipped
                      << " golden(s) not compared");
  CHECK(compared > 0);
  CHECK(skipped <= 2);  // torules/03 (repeated keys), fromrules/select-single-inbound (mtp-1 twice)
}

TEST_CASE("kuma: to rules over one tag key are one rule per distinct subset, longest first") {
  Proxied p =
      rulesOf(std::string(kMeshAndDp) +
              "type: MeshTimeout\nname: t\nmesh: m\nspec:\n  to:\n"
              "    - {targetRef: {kind: MeshService, name: a}, default: {idleTimeout: 1s}}\n"
              "    - {targetRef: {kind: Mesh}, default: {idleTimeout: 2s}}\n"
              "    - {targetRef: {kind: MeshService, name: b}, default: {idleTimeout: 3s}}\n");
  REQUIRE(p.rules.size() == 1);
  std::vector<std::string> got;
  for (const kuma::SubsetRule& r : p.rules[0].toRules)
    got.push_back((r.subset.empty() ? std::string("*") : r.subset[0].value) + "=" + canon(r.conf));
  // No negations: the mesh-wide rule stays a rule of its own, after the services; each rule
  // merges the items that cover it in their order, so the later mesh-wide item wins over `a`.
  CHECK(got == std::vector<std::string>{"a={idleTimeout:\"2s\",}", "b={idleTimeout:\"3s\",}",
                                        "*={idleTimeout:\"2s\",}"});
}

TEST_CASE("kuma: inbound rules keep each entry's own conf, in policy order") {
  Proxied p = rulesOf(std::string(kMeshAndDp) +
                      "type: MeshTimeout\nname: b\nmesh: m\nspec:\n"
                      "  rules: [{default: {idleTimeout: 60s}}]\n---\n"
                      "type: MeshTimeout\nname: a\nmesh: m\nspec:\n"
                      "  from: [{targetRef: {kind: Mesh}, default: {connectionTimeout: 1s}}]\n");
  REQUIRE(p.rules.size() == 1);
  REQUIRE(p.rules[0].inboundRules.size() == 1);
  const auto& rules = p.rules[0].inboundRules[0].rules;
  REQUIRE(rules.size() == 2);
  // Name descending: b, then a (which wins); a `from` on the whole mesh is an inbound rule too.
  CHECK(rules[0].origin[0].policy->resource->name == "b");
  CHECK(canon(rules[0].conf[0]) == "{idleTimeout:\"1m0s\",}");
  CHECK(rules[1].origin[0].policy->resource->name == "a");
}

TEST_CASE("kuma: a Universal policy without a role label is a system policy, in any namespace") {
  Proxied p = rulesOf(std::string(kMeshAndDp) +
                      "type: MeshTimeout\nname: other-ns\nmesh: m\n"
                      "labels: {k8s.kuma.io/namespace: other}\nspec:\n"
                      "  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]\n---\n"
                      "type: MeshTimeout\nname: consumer\nmesh: m\n"
                      "labels: {k8s.kuma.io/namespace: other, kuma.io/policy-role: consumer}\n"
                      "spec:\n  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 2s}}]\n");
  REQUIRE(p.rules.size() == 1);
  // The consumer policy of another namespace does not reach the proxy; the system one does.
  REQUIRE(p.rules[0].matched.size() == 1);
  CHECK(p.rules[0].matched[0]->resource->name == "other-ns");
}

TEST_CASE("kuma: route rules merge by matches, in the order of the route that set them last") {
  kuma::Conf r1 = parseConf(
      "rules:\n  - matches: [{path: {type: Exact, value: /a}}]\n"
      "    default: {backendRefs: [{kind: MeshService, name: x}]}\n");
  kuma::Conf r2 = parseConf(
      "rules:\n  - matches: [{path: {type: Exact, value: /b}}]\n    default: {}\n"
      "  - matches: [{path: {type: Exact, value: /a}}]\n"
      "    default: {backendRefs: [{kind: MeshService, name: y, weight: 5}]}\n");
  kuma::Conf merged = kuma::mergeRoutes("MeshHTTPRoute", {&r1, &r2}, {}, nullptr);
  // /a merges (y wins) and takes its place in the later route's own order: /b, then /a.
  CHECK(canon(merged) ==
        "{rules:[{default:{},matches:[{path:{type:\"Exact\",value:\"/b\",},},],},"
        "{default:{backendRefs:[{kind:\"MeshService\",name:\"y\",weight:5,},],},"
        "matches:[{path:{type:\"Exact\",value:\"/a\",},},],},],}");
  kuma::Conf t1 = parseConf("rules: [{default: {backendRefs: [{name: a, weight: 10}]}}]\n");
  kuma::Conf t2 = parseConf("rules: [{default: {backendRefs: [{name: b, weight: 90}]}}]\n");
  CHECK(canon(kuma::mergeRoutes("MeshTCPRoute", {&t1, &t2}, {}, nullptr)) ==
        "{rules:[{default:{backendRefs:[{name:\"b\",weight:90,},],},},],}");
}

TEST_CASE("kuma: a zone's policy names only objects of its zone; MeshAccessLog defaults") {
  Loaded l = loadStore(
      "type: Mesh\nname: m\n---\n"
      "type: MeshGateway\nname: gw\nmesh: m\nlabels: {kuma.io/origin: zone, kuma.io/zone: z1}\n"
      "selectors: [{match: {kuma.io/service: gw}}]\nconf:\n  listeners: [{port: 80}]\n---\n"
      "type: MeshProxyPatch\nname: same\nmesh: m\nlabels: {kuma.io/origin: zone, kuma.io/zone: "
      "z1}\n"
      "spec:\n  targetRef: {kind: MeshGateway, name: gw}\n  default: {appendModifications: [a]}\n"
      "---\n"
      "type: MeshProxyPatch\nname: other\nmesh: m\nlabels: {kuma.io/origin: zone, kuma.io/zone: "
      "z2}\n"
      "spec:\n  targetRef: {kind: MeshGateway, name: gw}\n  default: {appendModifications: [b]}\n");
  graph::kuma::Topology topo = graph::kuma::build(l.store);
  std::vector<kuma::Policy> ps = kuma::readPolicies(l.store, "m", {});
  kuma::Proxy proxy;
  proxy.resource = topo.gateways[0].resource;
  proxy.gateway = &topo.gateways[0];
  proxy.gatewayTags = topo.gateways[0].selectors[0];
  std::vector<kuma::TypeRules> rules = kuma::buildProxyRules(proxy, ps, l.store, topo, {});
  REQUIRE(rules.size() == 1);
  REQUIRE(rules[0].proxyRule);
  CHECK(canon(rules[0].proxyRule->conf) == "{appendModifications:[\"a\",],}");

  kuma::Conf log = parseConf("backends: [{type: File, file: {path: /x, format: {type: Plain}}}]\n");
  kuma::normalize(log, "MeshAccessLog");
  CHECK(canon(log) ==
        "{backends:[{file:{format:{omitEmptyValues:false,type:\"Plain\",},path:\"/x\",},"
        "type:\"File\",},],}");
}

TEST_CASE("kuma: inbound rules agree with Kuma's rule-builder goldens") {
  std::filesystem::path root = std::filesystem::path(PG_SOURCE_DIR) / ".." / "shared" / "oracles" /
                               "kuma" / "rules" / "inbound" / "testdata" / "inboundrules";
  if (!std::filesystem::exists(root)) {
    pg::testing::skipCheck("no Kuma oracle at " + root.string());
    return;
  }
  int compared = 0;
  std::vector<std::filesystem::path> goldens;
  for (const auto& e : std::filesystem::directory_iterator(root))
    if (e.path().string().ends_with(".golden.yaml")) goldens.push_back(e.path());
  std::sort(goldens.begin(), goldens.end());
  for (const std::filesystem::path& golden : goldens) {
    std::string base = golden.string().substr(0, golden.string().size() - 12);
    if (!std::filesystem::exists(base + ".input.yaml")) continue;
    // The policies of the golden's input on a proxy with one inbound, in a mesh of their own.
    Proxied p = [&] {
      std::string text =
          "type: Mesh\nname: mesh-1\n---\n"
          "type: Dataplane\nname: dp\nmesh: mesh-1\nnetworking:\n  address: 1.1.1.1\n"
          "  inbound:\n    - port: 80\n      tags: {kuma.io/service: web}\n---\n" +
          readFile(base + ".input.yaml");
      Proxied out{loadStore(std::move(text)), {}, {}, {}};
      out.topo = graph::kuma::build(out.loaded.store);
      out.policies = kuma::readPolicies(out.loaded.store, "mesh-1", {});
      const graph::kuma::Dataplane* dp = out.topo.dataplane("mesh-1", "dp");
      REQUIRE(dp);
      kuma::Proxy proxy{dp->resource, dp, nullptr, {}};
      out.rules = kuma::buildProxyRules(proxy, out.policies, out.loaded.store, out.topo, {});
      return out;
    }();
    std::string ours;
    for (const kuma::TypeRules& tr : p.rules)
      for (const kuma::InboundRules& in : tr.inboundRules)
        for (const kuma::InboundRules::Rule& r : in.rules)
          ours += std::string(r.origin[0].policy->resource->name) + "#" +
                  std::to_string(r.origin[0].ruleIndex) + " " + canon(r.conf[0]) + "\n";
    yaml::ParseResult g = yaml::parse(readFile(golden), {}, false);
    std::string want;
    for (yaml::NodeRef r : g.tree->root(0).get("rules").items())
      want += std::string(r.get("origin").get("Resource").get("name").str()) + "#" +
              std::string(r.get("origin").get("RuleIndex").str()) + " " + canonYaml(r.get("conf")) +
              "\n";
    INFO(golden.string());
    CHECK(ours == want);
    ++compared;
  }
  MESSAGE("compared " << compared << " inbound rule lists with Kuma's goldens");
  CHECK(compared > 0);
}
