#include <doctest/doctest.h>

#include <algorithm>

#include "lib/load/loader.h"
#include "lib/schema/validate.h"

namespace pg::schema {
namespace {

Result check(std::string text, unsigned jobs = 1) {
  static std::vector<load::FileResult> keep;  // the trees the results point into
  keep.push_back(load::loadText("test.yaml", std::move(text), {}));
  Registry registry;
  return validateAll(keep.back().resources, registry, jobs);
}

std::vector<std::string> messages(const Result& r) {
  std::vector<std::string> out;
  for (const Violation& v : r.violations) out.push_back(v.message);
  return out;
}

constexpr const char* kRoute = R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
)";

TEST_CASE("closestName: a likely typo, else nothing") {
  std::vector<std::string_view> names{"hostnames", "parentRefs", "rules"};
  CHECK(closestName("hostname", names) == "hostnames");
  CHECK(closestName("rulez", names) == "rules");
  CHECK(closestName("timeout", names).empty());
}

TEST_CASE("the built-in HTTPRoute schema accepts a valid route") {
  Result r = check(kRoute);
  CHECK(r.violations.empty());
  CHECK(r.refused == std::vector<bool>{false});
}

TEST_CASE("violations carry the API server's words and the field's position") {
  Result r = check(std::string(kRoute) + R"(  rules:
  - matches:
    - path: {type: Prefixx}
    backendRefs:
    - {name: s, port: "80", wieght: 1}
)");
  REQUIRE(r.violations.size() == 3);
  CHECK(r.violations[0].code == Code::InvalidValue);
  CHECK(r.violations[0].message ==
        "spec.rules[0].matches[0].path.type: Unsupported value: \"Prefixx\": supported values: "
        "\"Exact\", \"PathPrefix\", \"RegularExpression\"");
  CHECK(r.violations[0].location.start == yaml::Mark{8, 20});
  CHECK(r.violations[1].message ==
        "spec.rules[0].backendRefs[0].port: Invalid value: \"80\": "
        "spec.rules[0].backendRefs[0].port in body must be of type integer: \"80\"");
  CHECK(r.violations[2].code == Code::UnknownField);
  CHECK(r.violations[2].suggestion == "weight");
  CHECK(r.violations[2].location.start == yaml::Mark{10, 29});
  CHECK(r.refused == std::vector<bool>{true});
}

TEST_CASE("null is pruned, unknown kinds are not checked, metadata is ObjectMeta") {
  CHECK(check(std::string(kRoute) + "  hostnames: null\n").violations.empty());
  CHECK(check("apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {x: 1}\n")
            .violations.empty());
  CHECK(messages(check("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"
                       "metadata: {name: r, labelz: {a: b}, labels: {n: 1}}\n")) ==
        std::vector<std::string>{"unknown field \"metadata.labelz\"",
                                 "metadata.labels.n: Invalid value: 1: metadata.labels.n in "
                                 "body must be of type string: 1"});
}

TEST_CASE("a CRD in the input defines its kind; results do not depend on jobs") {
  std::string text = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing}
  versions:
  - name: v1
    served: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
              mode: {x-kubernetes-int-or-string: true}
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
)";
  for (int i = 0; i < 300; ++i)
    text += "---\napiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t" +
            std::to_string(i) + "}\nspec: {size: " + std::to_string(i % 3) +
            ", mode: " + (i % 2 ? "on" : "[1]") + ", tags: [a, a]}\n";
  Result one = check(text, 1);
  Result four = check(text, 4);
  CHECK(messages(one) == messages(four));
  CHECK(one.violations.size() == 300 / 3 + 300 / 2 + 300);
}

}  // namespace
}  // namespace pg::schema

namespace pg::schema {
namespace {

// Every pattern of a compiled schema, and whether RE2 took it.
void patterns(const Node& n, std::vector<const Node*>& seen, int& total, int& unsupported) {
  if (std::find(seen.begin(), seen.end(), &n) != seen.end()) return;
  seen.push_back(&n);
  if (!n.pattern.empty()) {
    ++total;
    if (n.patternUnsupported) ++unsupported;
  }
  for (const auto& p : n.properties) patterns(*p.second, seen, total, unsupported);
  if (n.items) patterns(*n.items, seen, total, unsupported);
  if (n.additionalProperties) patterns(*n.additionalProperties, seen, total, unsupported);
}

TEST_CASE("every built-in schema compiles, with a schema per version and RE2 patterns") {
  Registry registry;
  auto kinds = Registry::builtinKinds();
  CHECK(kinds.size() >= 11);  // the Gateway API kinds bundled so far
  for (const auto& [group, kind] : kinds) {
    CAPTURE(group);
    CAPTURE(kind);
    const KindSchema* k = registry.find(group, kind);
    REQUIRE(k);
    CHECK(k->kind == kind);
    CHECK(k->group == group);
    REQUIRE(!k->versions.empty());
    std::vector<const Node*> seen;
    int total = 0, unsupported = 0;
    for (const VersionSchema& v : k->versions) {
      REQUIRE(v.root);
      // Kinds without a spec (ConfigMap, Secret, ServiceAccount) keep their fields at the top.
      bool hasSpec = v.root->property("spec") != nullptr;
      bool topLevel = v.root->property("data") || v.root->property("secrets");
      CHECK((hasSpec || topLevel));
      patterns(*v.root, seen, total, unsupported);
    }
    CHECK(unsupported == 0);
  }
}

TEST_CASE("a pattern RE2 cannot compile is kept but not checked") {
  Result r = check(R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: looks.example.com}
spec:
  group: example.com
  names: {kind: Look}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ahead: {type: string, pattern: '^(?!x).*$'}
              plain: {type: string, pattern: '^[a-z]+$'}
---
apiVersion: example.com/v1
kind: Look
metadata: {name: l}
spec: {ahead: xyz, plain: ABC}
)");
  REQUIRE(r.violations.size() == 1);
  CHECK(r.violations[0].path == "spec.plain");
}

}  // namespace
}  // namespace pg::schema
