// lib/units: how a repository is cut into units, each built as its tool builds it (kustomize,
// Flux, Argo CD), with the files that are alternatives of one another kept apart.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/units/generators.h"
#include "lib/yaml/edit.h"
#include "lib/yaml/parser.h"
#include "rules/engine.h"
#include "tests/unit/test_folder.h"

namespace pg {
namespace {

analysis::Run inferred(const testing::TestFolder& dir, config::Config config = {}) {
  analysis::Inputs inputs{{dir.path().string()}, dir.path(), 1, {}, {}, {}};
  return analysis::analyzeRun(std::move(config), inputs);
}

std::vector<std::string> names(const analysis::Run& run) {
  std::vector<std::string> out;
  for (const analysis::Analysis& a : run.units) out.push_back(a.environment);
  return out;
}

const analysis::Analysis& unitNamed(const analysis::Run& run, std::string_view name) {
  for (const analysis::Analysis& a : run.units)
    if (a.environment == name) return a;
  FAIL("no unit " << name);
  throw std::logic_error("unreachable");
}

// The objects of `kind` in a unit, as "namespace/name".
std::vector<std::string> objects(const analysis::Analysis& a, std::string_view kind) {
  std::vector<std::string> out;
  for (const model::Resource* r : a.store.objects())
    if (r->kind == kind) out.push_back(std::string(r->namespace_) + "/" + std::string(r->name));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<const analysis::Analysis*> unitsOf(const analysis::Run& run) {
  std::vector<const analysis::Analysis*> out;
  for (const analysis::Analysis& a : run.units) out.push_back(&a);
  return out;
}

const model::Resource& object(const analysis::Analysis& a, std::string_view kind) {
  for (const model::Resource* r : a.store.objects())
    if (r->kind == kind) return *r;
  FAIL("no " << kind);
  throw std::logic_error("unreachable");
}

constexpr const char* kService =
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n"
    "    - port: 80\n";
constexpr const char* kDeployment =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n"
    "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
    "    spec:\n      containers:\n        - name: web\n          image: nginx\n"
    "          envFrom:\n            - configMapRef: {name: settings}\n";
constexpr const char* kRoute =
    "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\nspec:\n"
    "  parentRefs: [{name: public, namespace: infra}]\n  rules:\n"
    "    - backendRefs: [{name: web, port: 80}]\n";

}  // namespace

TEST_CASE("kustomize: each root is a unit, built with namespace, generators and patches") {
  testing::TestFolder dir;
  dir.write("base/kustomization.yaml", "resources: [service.yaml, deployment.yaml, route.yaml]\n");
  dir.write("base/service.yaml", kService);
  dir.write("base/deployment.yaml", kDeployment);
  dir.write("base/route.yaml", kRoute);
  dir.write("overlays/prod/kustomization.yaml",
            "namespace: shop\nresources: [../../base]\n"
            "configMapGenerator:\n  - name: settings\n    literals: [MODE=prod]\n"
            "patches:\n  - path: port.yaml\n"
            "  - target: {kind: HTTPRoute, name: web}\n"
            "    patch: |-\n      - op: replace\n        path: /spec/rules/0/backendRefs/0/port\n"
            "        value: 8080\n");
  dir.write("overlays/prod/port.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n"
            "    - port: 8080\n");
  dir.write("overlays/dev/kustomization.yaml", "namespace: dev\nresources: [../../base]\n");

  analysis::Run run = inferred(dir);
  // The base is included by both overlays: not a root of its own.
  REQUIRE(names(run) == std::vector<std::string>{"overlays/dev", "overlays/prod"});
  const analysis::Analysis& prod = unitNamed(run, "overlays/prod");
  CHECK((prod.unitKind == units::UnitKind::Kustomize));
  CHECK(objects(prod, "Service") == std::vector<std::string>{"shop/web"});
  CHECK(objects(prod, "HTTPRoute") == std::vector<std::string>{"shop/web"});
  CHECK(objects(unitNamed(run, "overlays/dev"), "Service") == std::vector<std::string>{"dev/web"});

  // The generated ConfigMap has the content hash in its name, and the Deployment that names it
  // follows the rename.
  const std::vector<std::string> maps = objects(prod, "ConfigMap");
  REQUIRE(maps.size() == 1);
  CHECK(maps[0].starts_with("shop/settings-"));
  CHECK(maps[0].size() == std::string("shop/settings-").size() + 10);
  const model::Resource& deployment = object(prod, "Deployment");
  const std::string mapName = maps[0].substr(5);
  CHECK(deployment.node.get("spec")
            .get("template")
            .get("spec")
            .get("containers")
            .at(0)
            .get("envFrom")
            .at(0)
            .get("configMapRef")
            .get("name")
            .str() == mapName);

  // The strategic-merge patch replaced the port list; the field points into the patch file.
  const model::Resource& service = object(prod, "Service");
  CHECK(service.node.get("spec").get("ports").at(0).get("port").str() == "8080");
  const yaml::NodeRef port = service.node.get("spec").get("ports").at(0).get("port");
  CHECK(service.pathOf(port) == "overlays/prod/port.yaml");
  CHECK(service.locate(port).path == "overlays/prod/port.yaml");
  CHECK(service.locate(port).start.line == 7);
  // The JSON 6902 patch changed the route's backend port, and the value points into the
  // kustomization that holds the inline patch.
  const model::Resource& route = object(prod, "HTTPRoute");
  yaml::NodeRef backendPort =
      route.node.get("spec").get("rules").at(0).get("backendRefs").at(0).get("port");
  CHECK(backendPort.str() == "8080");
  CHECK(route.pathOf(backendPort) == "overlays/prod/kustomization.yaml");
  // A field no patch touched still points into the base.
  CHECK(route.pathOf(route.node.get("spec").get("parentRefs")) == "base/route.yaml");
}

TEST_CASE("kustomize: what kustomize refuses is IN130, what is not applied is IN131") {
  testing::TestFolder dir;
  dir.write("app/kustomization.yaml",
            "resources: [service.yaml, missing.yaml]\nhelmCharts:\n  - name: podinfo\n");
  dir.write("app/service.yaml", kService);
  analysis::Run run = inferred(dir);
  REQUIRE(run.units.size() == 1);
  std::vector<std::string> ids;
  for (const model::Finding& f : rules::runRules(unitsOf(run)).findings) ids.push_back(f.ruleId);
  CHECK(ids == std::vector<std::string>{"IN130", "IN131"});
}

TEST_CASE("kustomize: a Component is applied where it is included, never a unit of its own") {
  testing::TestFolder dir;
  dir.write("components/labels/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "commonLabels: {team: shop}\n");
  dir.write("app/kustomization.yaml",
            "resources: [service.yaml]\ncomponents: [../components/labels]\n");
  dir.write("app/service.yaml", kService);
  analysis::Run run = inferred(dir);
  REQUIRE(run.units.size() == 1);
  CHECK(run.units[0].environment.empty());  // the one unit of the input goes unnamed
  CHECK(object(run.units[0], "Service").node.get("metadata").get("labels").get("team").str() ==
        "shop");
}

TEST_CASE("Flux: one unit per cluster, built with targetNamespace and postBuild substitution") {
  testing::TestFolder dir;
  const auto cluster = [&](const std::string& name, const std::string& domain) {
    dir.write("clusters/" + name + "/apps.yaml",
              "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n"
              "  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n"
              "  path: ./apps\n  prune: true\n  targetNamespace: web\n"
              "  sourceRef: {kind: GitRepository, name: flux-system}\n"
              "  postBuild:\n    substitute:\n      DOMAIN: " +
                  domain + "\n");
  };
  cluster("production", "example.com");
  cluster("staging", "staging.example.com");
  dir.write(
      "apps/route.yaml",
      std::string(kRoute) + "  hostnames: [\"shop.${DOMAIN}\", \"${UNSET:=x.example.org}\"]\n");
  dir.write("apps/service.yaml", kService);

  analysis::Run run = inferred(dir);
  REQUIRE(names(run) == std::vector<std::string>{"clusters/production", "clusters/staging"});
  const analysis::Analysis& production = unitNamed(run, "clusters/production");
  CHECK((production.unitKind == units::UnitKind::Flux));
  CHECK(objects(production, "HTTPRoute") == std::vector<std::string>{"web/web"});
  const model::Resource& route = object(production, "HTTPRoute");
  CHECK(route.node.get("spec").get("hostnames").at(0).str() == "shop.example.com");
  CHECK(route.node.get("spec").get("hostnames").at(1).str() == "x.example.org");  // the default
  CHECK(object(unitNamed(run, "clusters/staging"), "HTTPRoute")
            .node.get("spec")
            .get("hostnames")
            .at(0)
            .str() == "shop.staging.example.com");
  // The same objects in two clusters are no duplicates.
  for (const model::Finding& f : rules::runRules(unitsOf(run)).findings) CHECK(f.ruleId != "IN110");
}

TEST_CASE("a file two units apply as it is is validated once, and both get its findings") {
  testing::TestFolder dir;
  dir.write("shared/route.yaml",
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"
            "metadata: {name: web, namespace: shop}\n"
            "spec:\n  rules:\n  - matches: [{path: {value: /api}}]\n    weight: 3\n");
  dir.write("shared/other.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: shop}\n");
  dir.write("a/kustomization.yaml", "resources: [../shared/route.yaml]\n");
  dir.write("b/kustomization.yaml", "resources: [../shared/other.yaml, ../shared/route.yaml]\n");
  analysis::Run run = inferred(dir);
  REQUIRE(names(run) == std::vector<std::string>{"a", "b"});
  for (const analysis::Analysis& unit : run.units) {
    CAPTURE(unit.environment);
    // The unknown field, reported against this unit's own HTTPRoute (its index differs).
    std::size_t found = 0;
    for (const schema::Violation& v : unit.schema.violations) {
      if (v.code != schema::Code::UnknownField) continue;
      ++found;
      REQUIRE(v.object < unit.store.all().size());
      CHECK(unit.store.all()[v.object].kind == "HTTPRoute");
      CHECK(v.path == "spec.rules[0].weight");
    }
    CHECK(found == 1);
    CHECK(unit.schema.refused[unit.environment == "a" ? 0 : 1]);
  }
}

TEST_CASE("Argo CD: Applications per destination cluster, with the destination namespace") {
  testing::TestFolder dir;
  dir.write("argocd/app.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n"
            "  namespace: argocd\nspec:\n  project: default\n  source:\n"
            "    repoURL: https://example.com/repo.git\n    path: apps/shop\n"
            "  destination:\n    server: https://kubernetes.default.svc\n    namespace: shop\n");
  dir.write("apps/shop/service.yaml", kService);
  analysis::Run run = inferred(dir);
  // The Application itself is applied to the cluster Argo CD runs in: with the rest.
  REQUIRE(names(run) == std::vector<std::string>{"argocd/in-cluster", "other"});
  CHECK((run.units[0].unitKind == units::UnitKind::ArgoCD));
  CHECK((run.units[1].unitKind == units::UnitKind::Rest));
  CHECK(objects(run.units[0], "Service") == std::vector<std::string>{"shop/web"});
}

TEST_CASE("alternatives: sibling folders defining one object differently are units apart") {
  testing::TestFolder dir;
  dir.write("examples/gateway.yaml",
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n"
            "  name: public\n  namespace: infra\nspec:\n  gatewayClassName: eg\n  listeners:\n"
            "    - {name: http, protocol: HTTP, port: 80}\n");
  dir.write("examples/canary/route.yaml", kRoute);
  dir.write("examples/mirror/route.yaml", std::string(kRoute) + "  hostnames: [mirror.example]\n");
  dir.write("examples/docker-compose.yaml", "services:\n  web:\n    image: nginx\n");

  analysis::Run run = inferred(dir);
  REQUIRE(names(run) == std::vector<std::string>{"examples/canary", "examples/mirror"});
  for (const analysis::Analysis& a : run.units) {
    CHECK((a.unitKind == units::UnitKind::Alternative));
    // Each alternative is analysed with the file they share.
    CHECK(objects(a, "Gateway") == std::vector<std::string>{"infra/public"});
    CHECK(objects(a, "HTTPRoute") == std::vector<std::string>{"default/web"});
  }
  // The compose file is not Kubernetes: skipped, not reported.
  bool skipped = false;
  for (const load::SkippedFile& f : run.input->skipped)
    skipped = skipped || f.path == "examples/docker-compose.yaml";
  for (const analysis::Analysis& a : run.units)
    for (const load::SkippedFile& f : a.skipped)
      skipped = skipped || f.path == "examples/docker-compose.yaml";
  CHECK(skipped);
  for (const model::Finding& f : rules::runRules(unitsOf(run)).findings) {
    CHECK(f.ruleId != "IN110");
    CHECK(f.ruleId != "IN109");
  }
}

TEST_CASE("alternatives: numbered steps of one folder are one unit, and their duplicates stay") {
  testing::TestFolder dir;
  dir.write("tutorial/01-route.yaml", kRoute);
  dir.write("tutorial/02-route.yaml", std::string(kRoute) + "  hostnames: [step2.example]\n");
  analysis::Run run = inferred(dir);
  REQUIRE(run.units.size() == 1);
  CHECK(run.units[0].environment.empty());
}

TEST_CASE("environments: in the config decide the units, nothing is inferred") {
  testing::TestFolder dir;
  dir.write("a/kustomization.yaml", "namespace: a\nresources: [service.yaml]\n");
  dir.write("a/service.yaml", kService);
  dir.write("b/service.yaml", kService);
  config::Config config;
  config.environments.push_back({"both", {"a", "b"}, {}, {}});
  analysis::Inputs inputs{{dir.path().string()}, dir.path(), 1, {}, {}, {}};
  analysis::Run run = analysis::analyzeRun(
      config, inputs, {analysis::UnitChoice::Mode::Environments, config.environments});
  REQUIRE(names(run) == std::vector<std::string>{"both"});
  CHECK((run.units[0].unitKind == units::UnitKind::Environment));
  // The folders as they are: the kustomization's namespace is not applied.
  CHECK(objects(run.units[0], "Service") == std::vector<std::string>{"default/web"});
}

TEST_CASE("the generators' hash suffix is kustomize's") {
  // Vectors of kustomize's own hasher tests: a ConfigMap with no name and the given data.
  const auto hashOf = [](const std::string& yamlText) {
    yaml::ParseResult parsed = yaml::parse(yamlText, {}, true);
    REQUIRE(parsed.problems.empty());
    return units::contentHash(yaml::EditNode::copy(parsed.tree->root(0)), "");
  };
  CHECK(hashOf("kind: ConfigMap\ndata: {}\n") == "42745tchd9");
  CHECK(hashOf("kind: ConfigMap\ndata: {one: \"\"}\n") == "9g67k2htb6");
  CHECK(hashOf("kind: ConfigMap\ndata: {two: \"2\", one: \"\", three: \"3\"}\n") == "f5h7t85m9b");
}

}  // namespace pg

namespace pg {

TEST_CASE("absence: an error where the unit makes the namespace and the kind, else assumed") {
  testing::TestFolder dir;
  const std::string ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n";
  const std::string route =
      "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n"
      "  namespace: shop\nspec:\n  rules:\n    - backendRefs: [{name: api, port: 80}]\n";
  // A docs-like unit: it makes the namespace and the route, never a Service.
  dir.write("example/kustomization.yaml", "resources: [all.yaml]\n");
  dir.write("example/all.yaml", ns + "---\n" + route);
  // An app unit: it makes Services in the namespace, and not the one its route names.
  dir.write("app/kustomization.yaml", "resources: [all.yaml]\n");
  dir.write("app/all.yaml", ns + "---\n" + route +
                                "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"
                                "  namespace: shop\nspec:\n  ports: [{port: 80}]\n");
  analysis::Run run = inferred(dir);
  REQUIRE(names(run) == std::vector<std::string>{"app", "example"});
  std::vector<std::string> got;
  for (const model::Finding& f : rules::runRules(unitsOf(run)).findings)
    got.push_back(f.ruleId + " " + f.environment);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{"GW203 app", "IN133 example"});
}

TEST_CASE("absence: an EnvoyProxy's telemetry Service of a namespace the unit lacks is assumed") {
  testing::TestFolder dir;
  // The collector is installed by a chart into `monitoring`, which no unit makes: the Gateway
  // is accepted, and one IN133 note says what is assumed (no GW217).
  dir.write("gateway/kustomization.yaml", "resources: [all.yaml]\n");
  dir.write("gateway/all.yaml",
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\n"
            "  namespace: infra\nspec:\n  gatewayClassName: eg\n  infrastructure:\n"
            "    parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: proxy}\n"
            "  listeners: [{name: http, protocol: HTTP, port: 80}]\n---\n"
            "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata:\n"
            "  name: proxy\n  namespace: infra\nspec:\n  telemetry:\n    tracing:\n"
            "      provider:\n        type: OpenTelemetry\n        backendRefs:\n"
            "          - {name: otel-collector, namespace: monitoring, port: 4317}\n");
  dir.write("other/kustomization.yaml", "resources: [ns.yaml]\n");
  dir.write("other/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: other\n");
  analysis::Run run = inferred(dir);
  REQUIRE(names(run) == std::vector<std::string>{"gateway", "other"});
  std::vector<std::string> got;
  for (const model::Finding& f : rules::runRules(unitsOf(run)).findings)
    got.push_back(f.ruleId + " " + f.environment + " " + f.message.substr(0, f.message.find(',')));
  CHECK(got == std::vector<std::string>{
                   "IN133 gateway Service/monitoring/otel-collector is not in this unit"});
}

TEST_CASE("alternatives share the files beside them, and the input's CRDs, not other trees") {
  testing::TestFolder dir;
  dir.write("crds/widget.yaml",
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            "  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n"
            "  names: {kind: Widget, plural: widgets}\n  versions:\n"
            "    - name: v1\n      served: true\n      storage: true\n      schema:\n"
            "        openAPIV3Schema:\n          type: object\n          properties:\n"
            "            spec:\n              type: object\n              properties:\n"
            "                size: {type: integer}\n");
  const std::string widget =
      "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: ";
  dir.write("docs/examples/small/widget.yaml", widget + "1\n");
  dir.write("docs/examples/large/widget.yaml", widget + "9\n");
  dir.write("docs/examples/extra/widget.yaml", widget + "\"nine\"\n");  // wrong type
  dir.write("tests/fixtures/other.yaml", kService);
  analysis::Run run = inferred(dir);
  // The files beside no alternative (the CRD, the unrelated tree) are a unit of their own.
  REQUIRE(names(run) == std::vector<std::string>{"docs/examples/extra", "docs/examples/large",
                                                 "docs/examples/small", "other"});
  for (std::size_t i = 0; i < 3; ++i) {
    // The unrelated tree's Service is not applied with the examples.
    CHECK(objects(run.units[i], "Service").empty());
    if (i > 0) CHECK(objects(run.units[i], "Widget") == std::vector<std::string>{"default/w"});
  }
  CHECK(objects(run.units[3], "Service") == std::vector<std::string>{"default/web"});
  // Validated against the CRD of crds/, which no unit includes: the wrong type is found, and
  // the kind is known (no IN123).
  std::vector<std::string> got;
  for (const model::Finding& f : rules::runRules(unitsOf(run)).findings)
    got.push_back(f.ruleId + " " + f.environment);
  CHECK(std::find(got.begin(), got.end(), "IN121 docs/examples/extra") != got.end());
  for (const std::string& g : got) CHECK(!g.starts_with("IN123"));
}

TEST_CASE("Flux: a dependsOn that another cluster has and this one lacks is IN130") {
  testing::TestFolder dir;
  const auto ks = [](const std::string& name, const std::string& path, const std::string& extra) {
    return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n"
           "  name: " +
           name + "\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: " + path +
           "\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n" + extra;
  };
  const std::string needsInfra = "  dependsOn:\n    - name: infrastructure\n";
  dir.write("clusters/production/all.yaml", ks("infrastructure", "./infrastructure", "") + "---\n" +
                                                ks("apps", "./apps", needsInfra));
  // Staging copied the apps Kustomization and forgot the infrastructure one; its monitoring
  // depends on one the repository does not define at all (bootstrapped elsewhere): not ours.
  dir.write("clusters/staging/all.yaml",
            ks("apps", "./apps", needsInfra) + "---\n" +
                ks("monitoring", "./apps", "  dependsOn:\n    - name: observability\n"));
  dir.write("infrastructure/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n");
  dir.write("apps/service.yaml", kService);
  analysis::Run run = inferred(dir);
  REQUIRE(names(run) == std::vector<std::string>{"clusters/production", "clusters/staging"});
  std::vector<std::string> got;
  for (const model::Finding& f : rules::runRules(unitsOf(run)).findings)
    if (f.ruleId == "IN130")
      got.push_back(f.environment + " " + f.location.path + ":" +
                    std::to_string(f.location.start.line));
  CHECK(got == std::vector<std::string>{"clusters/staging clusters/staging/all.yaml:12"});
}

}  // namespace pg
