#include "lib/config/config.h"

#include <doctest/doctest.h>

#include "lib/config/glob.h"

using namespace pg::config;

TEST_CASE("globs: * within a segment, ** across segments") {
  CHECK(globMatch("*.yaml", "a.yaml"));
  CHECK_FALSE(globMatch("*.yaml", "dir/a.yaml"));
  CHECK(globMatch("**/*.yaml", "a.yaml"));
  CHECK(globMatch("**/*.yaml", "x/y/a.yaml"));
  CHECK(globMatch("vendor/**", "vendor/a/b.yaml"));
  CHECK(globMatch("vendor/**", "vendor/"));
  CHECK_FALSE(globMatch("vendor/**", "vendors/a.yaml"));
  CHECK(globMatch("**/kustomization.yaml", "kustomization.yaml"));
  CHECK(globMatch("**/kustomization.yaml", "a/b/kustomization.yaml"));
  CHECK_FALSE(globMatch("**/kustomization.yaml", "a/bkustomization.yaml"));
  CHECK(globMatch("HTTPRoute/legacy/*", "HTTPRoute/legacy/old"));
  CHECK_FALSE(globMatch("HTTPRoute/legacy/*", "HTTPRoute/legacy2/old"));
  CHECK(globMatch("HTTPRoute/*/checkout", "HTTPRoute/shop/checkout"));
  CHECK(globMatch("a?c", "abc"));
  CHECK_FALSE(globMatch("a?c", "a/c"));
  CHECK(globMatch("*", "anything"));
  CHECK_FALSE(globMatch("*", "a/b"));
  CHECK(globMatch("**", "a/b"));
  // Pathological patterns finish quickly (no exponential backtracking).
  CHECK_FALSE(globMatch("*a*a*a*a*a*a*a*a*b", std::string(200, 'a')));
  CHECK_FALSE(globMatch("**/**/**/**/**/x", std::string(60, 'a') + "/" + std::string(60, 'b')));
}

TEST_CASE("a full config file") {
  Config c = parseConfig(
      "include: ['**/*.yaml']\n"
      "exclude: [charts/**, vendor/**]\n"
      "defaultNamespace: apps\n"
      "limits: {maxFileBytes: 1000, maxDepth: 20, maxAliasExpansion: 50}\n"
      "rules:\n  GW203: warning\n  PA301: off\n  KD401: {severity: note}\n"
      "suppressions:\n  - rule: PA301\n    objects: HTTPRoute/legacy/*\n    reason: migrating\n",
      ".policygraph.yaml");
  CHECK(c.include.size() == 1);
  CHECK(c.exclude.size() == 2);
  CHECK(c.defaultNamespace == "apps");
  CHECK(c.limits.maxFileBytes == 1000);
  CHECK(c.limits.maxDepth == 20);
  CHECK(c.limits.maxAliasExpansion == 50);
  CHECK((c.rules.at("GW203").severity == pg::model::Severity::Warning));
  CHECK(c.rules.at("PA301").off);
  CHECK((c.rules.at("KD401").severity == pg::model::Severity::Note));
  CHECK(c.rules.at("GW203").where.start.line == 6);
  REQUIRE(c.suppressions.size() == 1);
  CHECK(c.suppressions[0].objects == "HTTPRoute/legacy/*");
  CHECK(c.suppressions[0].where.start.line == 10);
}

TEST_CASE("envoyGateway: settings are unset unless given, each true or false") {
  CHECK_FALSE(parseConfig("", "cfg.yaml").envoyGateway.enableEnvoyPatchPolicy.has_value());
  CHECK_FALSE(parseConfig("", "cfg.yaml").envoyGateway.rateLimit.has_value());
  CHECK(parseConfig("envoyGateway: {enableEnvoyPatchPolicy: true}\n", "cfg.yaml")
            .envoyGateway.enableEnvoyPatchPolicy == true);
  CHECK(parseConfig("envoyGateway: {rateLimit: false}\n", "cfg.yaml").envoyGateway.rateLimit ==
        false);
  CHECK_THROWS_AS(parseConfig("envoyGateway: {rateLimit: 1}\n", "cfg.yaml"), ConfigError);
  CHECK_THROWS_AS(parseConfig("envoyGateway: {enableEnvoyPatchPolicy: maybe}\n", "cfg.yaml"),
                  ConfigError);
  CHECK_THROWS_AS(parseConfig("envoyGateway: {enableLua: true}\n", "cfg.yaml"), ConfigError);
}

TEST_CASE("gatewayAPI: the channel is experimental unless standard is chosen") {
  CHECK(parseConfig("", "cfg.yaml").gatewayApiChannel == GatewayApiChannel::Experimental);
  CHECK(parseConfig("gatewayAPI: {channel: standard}\n", "cfg.yaml").gatewayApiChannel ==
        GatewayApiChannel::Standard);
  CHECK(parseConfig("gatewayAPI: {channel: experimental}\n", "cfg.yaml").gatewayApiChannel ==
        GatewayApiChannel::Experimental);
  CHECK_THROWS_AS(parseConfig("gatewayAPI: {channel: beta}\n", "cfg.yaml"), ConfigError);
  CHECK_THROWS_AS(parseConfig("gatewayAPI: {version: v1}\n", "cfg.yaml"), ConfigError);
  CHECK_THROWS_AS(parseConfig("gatewayAPI: standard\n", "cfg.yaml"), ConfigError);
}

TEST_CASE("config errors name the file, line and column") {
  auto fails = [](const char* text, const char* where) {
    CAPTURE(text);
    try {
      parseConfig(text, "cfg.yaml");
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(std::string(e.what()).rfind(where, 0) == 0);
    }
  };
  fails("unknown: 1\n", "cfg.yaml:1:1:");
  fails("rules:\n  GW203: loud\n", "cfg.yaml:2:10:");
  fails("limits: {maxDepth: -1}\n", "cfg.yaml:1:20:");
  fails("suppressions:\n  - rule: PA301\n", "cfg.yaml:2:5:");
  fails("include: {a: 1}\n", "cfg.yaml:1:10:");
  fails("a: [\n", "cfg.yaml:");
  CHECK(parseConfig("", "cfg.yaml").include.empty());
  CHECK(parseConfig("# only a comment\n", "cfg.yaml").include.empty());
}

TEST_CASE("gatewayClasses: name and controllerName, both required") {
  Config c = parseConfig(
      "gatewayClasses:\n"
      "  - name: platform-*\n"
      "    controllerName: gateway.envoyproxy.io/gatewayclass-controller\n",
      "cfg.yaml");
  REQUIRE(c.gatewayClasses.size() == 1);
  CHECK(c.gatewayClasses[0].name == "platform-*");
  CHECK(c.gatewayClasses[0].controllerName == "gateway.envoyproxy.io/gatewayclass-controller");
  CHECK(c.gatewayClasses[0].where.start.line == 2);
  CHECK(parseConfig("gatewayClasses:\n", "cfg.yaml").gatewayClasses.empty());
  CHECK_THROWS_AS(parseConfig("gatewayClasses:\n  - name: x\n", "cfg.yaml"), ConfigError);
  CHECK_THROWS_AS(parseConfig("gatewayClasses:\n  - controllerName: a/b\n", "cfg.yaml"),
                  ConfigError);
  CHECK_THROWS_AS(parseConfig("gatewayClasses: {name: x}\n", "cfg.yaml"), ConfigError);
  CHECK_THROWS_AS(
      parseConfig("gatewayClasses:\n  - {name: x, controllerName: a/b, kind: y}\n", "cfg.yaml"),
      ConfigError);
}

TEST_CASE("keys with nothing under them are accepted: rules, suppressions, policies") {
  Config c = parseConfig("rules:\nsuppressions:\npolicies:\nexternal:\n", "cfg.yaml");
  CHECK(c.rules.empty());
  CHECK(c.suppressions.empty());
  CHECK(c.policies.empty());
  CHECK(c.external.empty());
}

TEST_CASE("external: kind and name globs, optional namespace and group") {
  Config c = parseConfig(
      "external:\n"
      "  - kind: Secret\n    name: '*-tls'\n    namespace: infra\n"
      "  - {kind: ConfigMap, name: ca-bundle}\n",
      "cfg.yaml");
  REQUIRE(c.external.size() == 2);
  CHECK(findExternal(c.external, "", "Secret", "infra", "shop-tls") == &c.external[0]);
  CHECK(findExternal(c.external, "", "Secret", "web", "shop-tls") == nullptr);
  CHECK(findExternal(c.external, "", "Secret", "infra", "shop-cert") == nullptr);
  CHECK(findExternal(c.external, "", "ConfigMap", "any", "ca-bundle") == &c.external[1]);
  CHECK_THROWS_AS(parseConfig("external:\n  - {name: x}\n", "cfg.yaml"), ConfigError);
  CHECK_THROWS_AS(parseConfig("external:\n  - {kind: Secret}\n", "cfg.yaml"), ConfigError);
  CHECK_THROWS_AS(parseConfig("external:\n  - {kind: Secret, name: x, labels: y}\n", "cfg.yaml"),
                  ConfigError);
}

TEST_CASE("environments: name, paths and shared folders; mistakes name the spot") {
  Config c = parseConfig(
      "environments:\n"
      "  - name: production\n    paths: [clusters/production]\n    shared: [base, crds]\n"
      "  - name: staging\n    paths: clusters/staging\n",
      "c.yaml");
  REQUIRE(c.environments.size() == 2);
  CHECK(c.environments[0].name == "production");
  CHECK(c.environments[0].paths == std::vector<std::string>{"clusters/production"});
  CHECK(c.environments[0].shared == std::vector<std::string>{"base", "crds"});
  CHECK(c.environments[1].paths == std::vector<std::string>{"clusters/staging"});
  CHECK(c.environments[1].shared.empty());
  auto error = [](const std::string& text) {
    try {
      parseConfig(text, "c.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("environments: production\n") ==
        "c.yaml:1:15: environments must be a list of {name, paths, shared}");
  CHECK(error("environments:\n  - paths: [a]\n") == "c.yaml:2:5: an environment needs a name");
  CHECK(error("environments:\n  - name: a\n") ==
        "c.yaml:2:5: environment a needs paths (its folders)");
  CHECK(error("environments:\n  - name: a/b\n    paths: [a]\n") ==
        "c.yaml:2:11: an environment's name names its snapshot folder: no / or \\");
  CHECK(error("environments:\n  - name: a\n    paths: [a]\n  - name: a\n    paths: [b]\n") ==
        "c.yaml:4:11: environment a is declared twice");
  CHECK(error("environments:\n  - name: a\n    path: a\n") ==
        "c.yaml:3:5: unknown environment field \"path\" (known: name, paths, shared)");
}
