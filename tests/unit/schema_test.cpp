#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "lib/load/loader.h"
#include "lib/policy/profile.h"
#include "lib/schema/embedded.h"
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
                       "metadata: {name: r, labelz: {a: b}, labels: {n: 1}}\nspec: {}\n")) ==
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
    text += "---\napiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t" + std::to_string(i) +
            "}\nspec: {size: " + std::to_string(i % 3) + ", mode: " + (i % 2 ? "on" : "[1]") +
            ", tags: [a, a]}\n";
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
  auto kinds = Registry::builtinKinds();
  CHECK(kinds.size() >= 170);  // every kind of ../shared/crds and the core ones
  for (const auto& [source, group, kind] : kinds) {
    CAPTURE(source);
    CAPTURE(group);
    CAPTURE(kind);
    const Channel channel =
        source == "gateway-api-standard" ? Channel::Standard : Channel::Experimental;
    const KindSchema* k = Registry::builtin(group, kind, channel);
    REQUIRE(k);
    CHECK(k->kind == kind);
    CHECK(k->group == group);
    REQUIRE(!k->versions.empty());
    std::vector<const Node*> seen;
    int total = 0, unsupported = 0;
    for (const VersionSchema& v : k->versions) {
      REQUIRE(v.root);
      // Every kind's schema is an object that declares its fields or keeps them open.
      CHECK(v.root->type == Type::Object);
      CHECK((!v.root->properties.empty() || v.root->preserveUnknown));
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

namespace pg::schema {
namespace {

const Violation* firstOf(const Result& r, Code code) {
  for (const Violation& v : r.violations)
    if (v.code == code) return &v;
  return nullptr;
}

std::size_t countOf(const Result& r, Code code) {
  return static_cast<std::size_t>(
      std::count_if(r.violations.begin(), r.violations.end(),
                    [&](const Violation& v) { return v.code == code; }));
}

constexpr const char* kRouted = R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
)";

TEST_CASE("CEL: a PathPrefix value that does not start with / breaks the HTTPRoute rule") {
  Result bad = check(std::string(kRouted) + R"(  - matches:
    - path: {type: PathPrefix, value: shop}
      method: GET
    backendRefs: [{name: s, port: 80}]
)");
  REQUIRE(countOf(bad, Code::CelRule) == 1);
  const Violation* v = firstOf(bad, Code::CelRule);
  CHECK(v->path == "spec.rules[0].matches[0].path");
  CHECK(v->message ==
        "spec.rules[0].matches[0].path: Invalid value: \"object\": value must be an absolute "
        "path and start with '/' when type one of ['Exact', 'PathPrefix']");
  CHECK(v->location.start == yaml::Mark{8, 7});
  CHECK(bad.refused == std::vector<bool>{true});
  // The same value is fine for a regular expression match, and /shop for a prefix.
  CHECK(check(std::string(kRouted) +
              "  - matches: [{path: {type: RegularExpression, value: shop}}]\n")
            .violations.empty());
  CHECK(check(std::string(kRouted) + "  - matches: [{path: {value: /shop}}]\n").violations.empty());
}

TEST_CASE("CEL: values that repeat across objects are checked each time they could fail") {
  // Equal values that passed are remembered (their rules are pure); a failing value is
  // reported on every object that has it, and a value that differs only in a scalar's text
  // or style is not taken for one that passed.
  std::string text;
  for (const char* path : {"/shop", "shop", "/shop", "shop", "'/shop'", "/shop/"}) {
    if (!text.empty()) text += "---\n";
    text += std::string(kRouted) + "  - matches: [{path: {type: PathPrefix, value: " + path +
            "}}]\n    backendRefs: [{name: s}]\n";
  }
  Result r = check(text);
  // Two values without the leading slash, and six backendRefs without a port.
  CHECK(countOf(r, Code::CelRule) == 8);
  CHECK(r.refused == std::vector<bool>(6, true));
  std::size_t slash = 0;
  for (const Violation& v : r.violations)
    if (v.message.find("absolute path") != std::string::npos) ++slash;
  CHECK(slash == 2);
}

TEST_CASE("CEL: schema defaults are applied before rules are evaluated") {
  // group and kind default to "" and Service, so a port is required.
  Result noPort = check(std::string(kRouted) + "  - backendRefs: [{name: s}]\n");
  REQUIRE(countOf(noPort, Code::CelRule) == 1);
  CHECK(firstOf(noPort, Code::CelRule)->message ==
        "spec.rules[0].backendRefs[0]: Invalid value: \"object\": Must have port for Service "
        "reference");
  CHECK(check(std::string(kRouted) + "  - backendRefs: [{name: s, kind: Backend, group: x.io}]\n")
            .violations.empty());
  // A path without type is a PathPrefix match.
  CHECK(countOf(check(std::string(kRouted) + "  - matches: [{path: {value: a//b}}]\n"),
                Code::CelRule) == 2);
}

TEST_CASE("CEL: filter combinations upstream forbids") {
  Result both = check(std::string(kRouted) + R"(  - filters:
    - type: RequestRedirect
      requestRedirect: {scheme: https}
    - type: URLRewrite
      urlRewrite: {hostname: example.com}
)");
  REQUIRE(countOf(both, Code::CelRule) == 1);
  CHECK(firstOf(both, Code::CelRule)->message ==
        "spec.rules[0].filters: Invalid value: \"array\": May specify either "
        "httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both");
  Result mismatch = check(std::string(kRouted) +
                          "  - filters: [{type: RequestHeaderModifier, urlRewrite: {}}]\n");
  CHECK(messages(mismatch) ==
        std::vector<std::string>{
            "spec.rules[0].filters[0]: Invalid value: \"object\": filter.requestHeaderModifier "
            "must be specified for RequestHeaderModifier filter.type",
            "spec.rules[0].filters[0]: Invalid value: \"object\": filter.urlRewrite must be nil "
            "if the filter.type is not URLRewrite"});
}

TEST_CASE("CEL: Gateway listener rules") {
  Result r = check(R"(apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: c
  listeners:
  - {name: web, port: 80, protocol: HTTP, tls: {certificateRefs: [{name: cert}]}}
  - {name: tls, port: 443, protocol: TLS, tls: {mode: Passthrough}}
)");
  CHECK(messages(r) == std::vector<std::string>{
                           "spec.listeners: Invalid value: \"array\": tls must not be specified "
                           "for protocols ['HTTP', 'TCP', 'UDP']"});
  // mode defaults to Terminate, which needs certificates: the rule errors as the API
  // server's does (no such key), which refuses the object too.
  Result noCert = check(R"(apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: c
  listeners:
  - {name: web, port: 443, protocol: HTTPS, tls: {}}
)");
  REQUIRE(countOf(noCert, Code::CelRule) == 1);
  CHECK(firstOf(noCert, Code::CelRule)->path == "spec.listeners[0].tls");
  CHECK(firstOf(noCert, Code::CelRule)
            ->message.ends_with("evaluating rule: certificateRefs or options must be specified "
                                "when mode is Terminate"));
}

constexpr const char* kThingCrd = R"(apiVersion: apiextensions.k8s.io/v1
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
            x-kubernetes-validations:
            - rule: self.size <= self.max
              messageExpression: "'size ' + string(self.size) + ' is over the maximum'"
              reason: FieldValueForbidden
              fieldPath: .size
            - rule: self == oldSelf
              message: immutable
            - rule: semver(self.version).isGreaterThan(semver('1.0.0'))
              message: too old
            - rule: self.items.all(a, self.items.all(b, self.items.all(c, a + b + c >= 0)))
              message: expensive
            properties:
              size: {type: integer}
              max: {type: integer}
              version: {type: string}
              items: {type: array, items: {type: integer}}
)";

TEST_CASE("CEL: messageExpression, reason and fieldPath; rules that cannot be evaluated") {
  std::string items = "[";
  for (int i = 0; i < 120; ++i) items += i ? ",1" : "1";
  items += "]";
  std::string text = kThingCrd;
  for (int i = 0; i < 2; ++i)
    text += "---\napiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t" + std::to_string(i) +
            "}\nspec:\n  size: 3\n  max: 2\n  items: " + items + "\n";
  Result r = check(text);
  REQUIRE(countOf(r, Code::CelRule) == 2);
  const Violation* v = firstOf(r, Code::CelRule);
  CHECK(v->message == "spec.size: Forbidden: size 3 is over the maximum");
  CHECK(v->location.start.line == 37);
  // The transition rule is skipped, as on create; the two others are listed once each for
  // the run, not once per object.
  REQUIRE(r.unenforced.size() == 2);
  CHECK(r.unenforced[0].rule == "semver(self.version).isGreaterThan(semver('1.0.0'))");
  CHECK(r.unenforced[0].why.starts_with("uses CEL not implemented here"));
  CHECK(r.unenforced[0].path == "spec");
  CHECK(r.unenforced[1].why == "its evaluation exceeds the cost limit");
}

// The rules of the built-in data counted from its text: each entry of an
// x-kubernetes-validations list has one `rule:` key, and a node shared through a YAML alias
// is written once.
std::size_t rulesInData() {
  std::size_t count = 0;
  std::size_t files = 0;
  const EmbeddedSchema* data = embeddedSchemas(files);
  for (std::size_t i = 0; i < files; ++i) {
    std::string_view text = data[i].text;
    for (std::size_t at = text.find("rule: "); at != std::string_view::npos;
         at = text.find("rule: ", at + 1)) {
      std::size_t lineStart = text.rfind('\n', at) + 1;
      std::string_view before = text.substr(lineStart, at - lineStart);
      if (before.find_first_not_of(" -") == std::string_view::npos) ++count;
    }
  }
  return count;
}

TEST_CASE("CEL: every rule of the built-in schemas is counted and enforced") {
  CelSummary summary = builtinCelRules();
  CHECK(summary.total == rulesInData());
  CHECK(summary.total > 0);
  CHECK(summary.enforced + summary.transition + summary.unenforced.size() == summary.total);
  // One rule is left, listed by `policygraph rules`: Gateway API's XBackend compares the
  // Kubernetes format library's optional result with null, and what the API server's CEL
  // makes of that comparison is not something to guess (README "Schema validation").
  REQUIRE(summary.unenforced.size() == 1);
  CHECK(summary.unenforced[0].starts_with("XBackend spec.port.name: "));
}

// allOf, anyOf, oneOf and not (a CRD of our own, one field per keyword).
constexpr const char* kJunctorCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: choices.example.com}
spec:
  group: example.com
  names: {kind: Choice}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              one:
                type: object
                oneOf:
                - required: [a]
                - required: [b]
                properties:
                  a: {type: string}
                  b: {type: string}
              any:
                type: string
                anyOf:
                - pattern: '^x'
                - maxLength: 2
              all:
                type: string
                allOf:
                - pattern: '^[a-z]+$'
                - maxLength: 3
              no:
                type: string
                not: {enum: [forbidden]}
              nested:
                type: object
                oneOf:
                - properties:
                    type: {enum: [A]}
                    v:
                      anyOf:
                      - format: ipv4
                      - format: ipv6
                - properties:
                    type:
                      not: {enum: [A]}
                properties:
                  type: {type: string, default: A}
                  v: {type: string}
              list:
                type: array
                items:
                  type: object
                  anyOf:
                  - required: [a]
                  - required: [b]
                  properties:
                    a: {type: string}
                    b: {type: string}
---
apiVersion: example.com/v1
kind: Choice
metadata: {name: c}
spec:
)";

Result choice(const std::string& spec) {
  return check(std::string(kJunctorCrd) + spec);
}

// The line of the first field under the Choice's spec.
std::uint32_t firstSpecLine() {
  std::string_view crd = kJunctorCrd;
  return static_cast<std::uint32_t>(std::count(crd.begin(), crd.end(), '\n') + 1);
}

TEST_CASE("oneOf: exactly one alternative must hold") {
  Result none = choice("  one: {}\n");
  REQUIRE(none.violations.size() == 1);
  const Violation& v = none.violations[0];
  CHECK(v.code == Code::InvalidValue);
  CHECK(v.message ==
        "spec.one: Invalid value: \"object\": \"spec.one\" must validate one and only one schema "
        "(oneOf). Found none valid");
  CHECK(v.suggestion == "make it match exactly one of: (1) sets a; (2) sets b");
  CHECK(v.path == "spec.one");
  CHECK(v.location.start == yaml::Mark{firstSpecLine(), 8});
  CHECK(none.refused.back());

  CHECK(choice("  one: {a: x}\n").violations.empty());
  CHECK(choice("  one: {b: y}\n").violations.empty());

  Result two = choice("  one: {a: x, b: y}\n");
  REQUIRE(two.violations.size() == 1);
  CHECK(two.violations[0].message.ends_with("(oneOf). Found 2 valid alternatives"));
  CHECK(two.violations[0].suggestion ==
        "it matches alternatives 1, 2; make it match exactly one of: (1) sets a; (2) sets b");
}

TEST_CASE("anyOf: at least one alternative must hold") {
  CHECK(choice("  any: xyz\n").violations.empty());  // the pattern
  CHECK(choice("  any: ab\n").violations.empty());   // the length
  CHECK(choice("  any: xy\n").violations.empty());   // both
  Result r = choice("  any: abc\n");
  REQUIRE(r.violations.size() == 1);
  CHECK(r.violations[0].message ==
        "spec.any: Invalid value: \"abc\": \"spec.any\" must validate at least one schema (anyOf)");
  CHECK(r.violations[0].suggestion ==
        "make it match at least one of: (1) matches '^x'; (2) is at most 2 characters long");
  CHECK(r.violations[0].location.start == yaml::Mark{firstSpecLine(), 8});
}

TEST_CASE("length bounds count characters, not bytes") {
  CHECK(choice("  any: \"\u00e9\u00e9\"\n").violations.empty());  // 2 characters in 4 bytes
  CHECK(choice("  any: a\u00e9\n").violations.empty());
  CHECK(choice("  any: \"\u00e9\u00e9\u00e9\"\n").violations.size() == 1);
  CHECK(choice("  any: abcdefghij\n").violations.size() == 1);  // past a word of ASCII
  CHECK(choice("  any: \"\U0001F44B\U0001F44B\"\n").violations.empty());  // 4-byte characters
}

TEST_CASE("allOf: each failing alternative reports in its own words") {
  CHECK(choice("  all: abc\n").violations.empty());
  Result pattern = choice("  all: AB\n");
  REQUIRE(pattern.violations.size() == 1);
  CHECK(pattern.violations[0].message ==
        "spec.all: Invalid value: \"AB\": spec.all in body should match '^[a-z]+$'");
  Result both = choice("  all: ABCDE\n");
  REQUIRE(both.violations.size() == 2);
  CHECK(both.violations[1].message == "spec.all: Too long: may not be more than 3 bytes");
  CHECK(both.refused.back());
}

TEST_CASE("not: the value must not match") {
  CHECK(choice("  no: allowed\n").violations.empty());
  Result r = choice("  no: forbidden\n");
  REQUIRE(r.violations.size() == 1);
  CHECK(r.violations[0].message ==
        "spec.no: Invalid value: \"forbidden\": \"spec.no\" must not validate the schema (not)");
  CHECK(r.violations[0].suggestion == "change it so that it no longer is \"forbidden\"");
}

TEST_CASE("nested junctors see defaulted fields, and lists check each item") {
  CHECK(choice("  nested: {v: 10.0.0.1}\n").violations.empty());  // type defaults to A
  CHECK(choice("  nested: {type: A, v: '2001:db8::1'}\n").violations.empty());
  CHECK(choice("  nested: {type: B, v: host}\n").violations.empty());
  Result r = choice("  nested: {v: host.example.com}\n");
  REQUIRE(r.violations.size() == 1);
  CHECK(r.violations[0].message.ends_with("Found none valid"));
  CHECK(r.violations[0].suggestion ==
        "make it match exactly one of: (1) type is \"A\" and v (has format ipv4 or has format "
        "ipv6); (2) type is not \"A\"");
  Result list = choice("  list: [{a: x}, {}, {b: y}]\n");
  REQUIRE(list.violations.size() == 1);
  CHECK(list.violations[0].path == "spec.list[1]");
  CHECK(list.violations[0].message.ends_with("must validate at least one schema (anyOf)"));
}

TEST_CASE("junctors compile into the schema nodes") {
  Result r = choice("  one: {a: x}\n");
  REQUIRE(r.violations.empty());
  // The registry the check used is gone; compile the CRD again to look at the nodes.
  load::FileResult file = load::loadText("crd.yaml", kJunctorCrd, {});
  REQUIRE(!file.resources.empty());
  std::unique_ptr<KindSchema> k = compileCrd(file.resources.front().node, "test");
  REQUIRE(k);
  const Node* spec = k->versions.front().root->property("spec");
  REQUIRE(spec);
  const Node* one = spec->property("one");
  REQUIRE(one);
  CHECK(one->junctors);
  CHECK(one->oneOf.size() == 2);
  CHECK(spec->property("no")->notSchema != nullptr);
  CHECK(spec->property("all")->allOf.size() == 2);
  CHECK(spec->property("any")->anyOf.size() == 2);
  CHECK_FALSE(spec->junctors);
  CHECK_FALSE(spec->property("one")->property("a")->junctors);
}

}  // namespace
}  // namespace pg::schema

namespace pg::schema {
namespace {

TEST_CASE("policy kinds of other implementations: the bundled CRDs' labels and target kinds") {
  std::map<std::string, std::string> labels;
  for (const auto& l : Registry::builtinPolicyLabels(Channel::Experimental))
    labels[std::string(l.group) + "/" + std::string(l.kind)] = std::string(l.value);
  CHECK(labels["gateway.nginx.org/ClientSettingsPolicy"] == "inherited");
  CHECK(labels["gateway.kgateway.dev/TrafficPolicy"] == "Direct");
  CHECK(labels["networking.gke.io/GCPBackendPolicy"] == "Direct");
  CHECK(labels["networking.gke.io/GCPRoutingExtension"] == "true");  // neither class
  CHECK(labels["gateway.networking.x-k8s.io/XBackendTrafficPolicy"] == "Direct");
  CHECK(labels.count("gateway.envoyproxy.io/BackendTrafficPolicy") == 0);  // not labelled
  // The standard channel has no XBackendTrafficPolicy.
  bool standardHasX = false;
  for (const auto& l : Registry::builtinPolicyLabels(Channel::Standard))
    standardHasX = standardHasX || l.kind == "XBackendTrafficPolicy";
  CHECK_FALSE(standardHasX);

  using Kinds = std::vector<std::string>;
  // From `self.kind=='Gateway' || ...` on targetRef.
  const KindSchema* csp =
      Registry::builtin("gateway.nginx.org", "ClientSettingsPolicy", Channel::Experimental);
  REQUIRE(csp);
  CHECK(pg::policy::targetKindsOf(*csp) == Kinds{"GRPCRoute", "Gateway", "HTTPRoute"});
  // From `self.all(r, r.kind == 'Gateway' || ...)` on targetRefs; its `endsWith('ListenerSet')`
  // names no kind.
  const KindSchema* tp =
      Registry::builtin("gateway.kgateway.dev", "TrafficPolicy", Channel::Experimental);
  REQUIRE(tp);
  CHECK(pg::policy::targetKindsOf(*tp) == Kinds{"GRPCRoute", "Gateway", "HTTPRoute"});
}

}  // namespace
}  // namespace pg::schema
