#include <doctest/doctest.h>

#include "lib/load/loader.h"
#include "lib/schema/defaults.h"
#include "lib/yaml/parser.h"

namespace pg::schema {
namespace {

// Loads `text`, applies the built-in schemas' defaults to its first object and returns it.
struct Defaulted {
  load::FileResult file;
  std::size_t added = 0;
  yaml::NodeRef object() const { return file.resources.front().node; }
};

Defaulted defaulted(std::string text) {
  Defaulted d;
  d.file = load::loadText("test.yaml", std::move(text), {});
  REQUIRE(!d.file.resources.empty());
  Registry registry;
  const model::Resource& r = d.file.resources.front();
  const KindSchema* kind = registry.find(r.group, r.kind);
  REQUIRE(kind);
  const VersionSchema* version = kind->version(r.version);
  REQUIRE(version);
  d.added = applyDefaults(*d.file.file->tree, r, *version);
  return d;
}

TEST_CASE("Tree::addEntry adds a synthesized entry at the mapping, copying the value") {
  yaml::ParseResult object = yaml::parse("a: {b: 1}\nc: [x]\n", {}, false);
  yaml::ParseResult value = yaml::parse("{type: PathPrefix, value: /, n: 3, q: '1'}", {}, false);
  yaml::NodeRef root = object.tree->root(0);
  yaml::NodeRef a = root.get("a");
  yaml::NodeRef added = object.tree->addEntry(a, "path", value.tree->root(0));
  REQUIRE(added.isMapping());
  CHECK(added.synthesized());
  CHECK(!a.get("b").synthesized());
  CHECK(a.size() == 2);
  CHECK(a.get("b").str() == "1");
  CHECK(a.get("path").get("type").str() == "PathPrefix");
  CHECK(a.get("path").get("value").isString());
  CHECK(!a.get("path").get("n").isString());
  CHECK(a.get("path").get("q").isString());  // the quoting, and so the type, is kept
  CHECK(a.keyNode("path").synthesized());
  CHECK(added.start() == a.start());
  CHECK(yaml::sameValue(added, value.tree->root(0)));
  // The rest of the tree is as it was.
  CHECK(root.get("c").at(0).str() == "x");
  CHECK(root.size() == 2);
  // Not a mapping of this tree: nothing is added.
  CHECK(!object.tree->addEntry(value.tree->root(0), "x", a));
  CHECK(!object.tree->addEntry(root.get("c"), "x", a));
}

TEST_CASE("defaults: a route's parentRef, path match, backendRef and redirect") {
  Defaulted d = defaulted(R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches:
    - headers: [{name: x-a, value: "1"}]
    filters:
    - type: RequestRedirect
      requestRedirect: {scheme: https}
    backendRefs: [{name: s, port: 80}]
)");
  yaml::NodeRef spec = d.object().get("spec");
  yaml::NodeRef parent = spec.get("parentRefs").at(0);
  CHECK(parent.get("group").str() == "gateway.networking.k8s.io");
  CHECK(parent.get("kind").str() == "Gateway");
  CHECK(parent.get("group").synthesized());
  CHECK(!parent.get("name").synthesized());
  yaml::NodeRef rule = spec.get("rules").at(0);
  yaml::NodeRef match = rule.get("matches").at(0);
  CHECK(match.get("path").get("type").str() == "PathPrefix");
  CHECK(match.get("path").get("value").str() == "/");
  CHECK(match.get("headers").at(0).get("type").str() == "Exact");
  CHECK(rule.get("filters").at(0).get("requestRedirect").get("statusCode").str() == "302");
  CHECK(!rule.get("filters").at(0).get("requestRedirect").get("statusCode").isString());
  yaml::NodeRef backend = rule.get("backendRefs").at(0);
  CHECK(backend.get("group").str().empty());
  CHECK(backend.get("group").isString());
  CHECK(backend.get("kind").str() == "Service");
  CHECK(backend.get("weight").str() == "1");
  // A defaulted field is placed at the mapping it was added to.
  CHECK(backend.get("weight").start() == backend.start());
  CHECK(d.added == 8);
}

TEST_CASE("defaults: written values stay; a defaulted value gets its own fields' defaults") {
  Defaulted d = defaulted(R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw, group: example.com, kind: Mesh}]
)");
  yaml::NodeRef spec = d.object().get("spec");
  CHECK(spec.get("parentRefs").at(0).get("kind").str() == "Mesh");
  CHECK(!spec.get("parentRefs").at(0).get("kind").synthesized());
  // rules defaults to one rule matching PathPrefix /.
  yaml::NodeRef rules = spec.get("rules");
  REQUIRE(rules.size() == 1);
  CHECK(rules.synthesized());
  CHECK(rules.at(0).get("matches").at(0).get("path").get("value").str() == "/");
  // metadata and status are not defaulted from the kind's schema.
  CHECK(d.object().get("metadata").size() == 2);
}

// The walk counts the defaulted fields a mapping has, so that one that has them all is not
// searched for missing ones: a key written twice counts once.
TEST_CASE("defaults: a mapping with every defaulted field gets none; a repeated key counts once") {
  auto withPath = [](std::string_view path) {
    return defaulted(std::string(R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw, group: gateway.networking.k8s.io, kind: Gateway}]
  rules:
  - matches:
    - path: )") + std::string(path) + "\n");
  };
  CHECK(withPath("{type: Exact, value: /x}").added == 0);
  Defaulted repeated = withPath("{type: Exact, type: Exact}");
  yaml::NodeRef path =
      repeated.object().get("spec").get("rules").at(0).get("matches").at(0).get("path");
  CHECK(path.get("value").str() == "/");
  CHECK(path.get("value").synthesized());
  CHECK(repeated.added == 1);
}

TEST_CASE("defaults: a Service port's protocol and the Service's type") {
  Defaulted d = defaulted(R"(apiVersion: v1
kind: Service
metadata: {name: s, namespace: shop}
spec:
  ports: [{port: 80}, {port: 53, protocol: UDP}]
)");
  yaml::NodeRef spec = d.object().get("spec");
  CHECK(spec.get("type").str() == "ClusterIP");
  CHECK(spec.get("ports").at(0).get("protocol").str() == "TCP");
  CHECK(spec.get("ports").at(1).get("protocol").str() == "UDP");
  CHECK(d.added == 2);
}

}  // namespace
}  // namespace pg::schema
