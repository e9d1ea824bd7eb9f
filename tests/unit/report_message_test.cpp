// A finding's message as lead and detail (lib/report/message.h), and the kinds nothing
// analyses (lib/report/unanalysed.h), as the text and JSON reports show them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/load/loader.h"
#include "lib/report/message.h"
#include "lib/report/report.h"
#include "lib/report/unanalysed.h"

using namespace pg;

TEST_CASE("Messages: the lead ends at the first ': ', '; ' or '. ' after the subject") {
  auto lead = [](std::string_view m) { return report::splitMessage(m).lead; };
  auto detail = [](std::string_view m) { return report::splitMessage(m).detail; };
  const std::string_view duplicate =
      "Service/shop/orders is defined twice and the definitions differ: this one is applied "
      "last; delete or rename one";
  CHECK(lead(duplicate) == "Service/shop/orders is defined twice and the definitions differ");
  CHECK(detail(duplicate) == "this one is applied last; delete or rename one");
  CHECK(lead("Namespace shop is not in the input, so its labels are unknown. Add it") ==
        "Namespace shop is not in the input, so its labels are unknown");
  // A field path or a short name before the first colon is the subject, not the problem.
  // The API server's field errors keep the offending value in the lead.
  CHECK(lead("spec.rules[0].backendRefs[0].port: Invalid value: 0: must be at least 1") ==
        "spec.rules[0].backendRefs[0].port: Invalid value: 0");
  CHECK(lead("spec.rules[0].matches[0].path.type: Unsupported value: \"Prefixx\": supported "
             "values: \"Exact\"") ==
        "spec.rules[0].matches[0].path.type: Unsupported value: \"Prefixx\"");
  CHECK(lead("spec.rules[0].filters[0].requestHeaderModifier.remove[1]: Duplicate value: "
             "\"x-a\": the API server refuses the object") ==
        "spec.rules[0].filters[0].requestHeaderModifier.remove[1]: Duplicate value: \"x-a\"");
  CHECK(lead("unknown field \"spec.podSelectr\": did you mean \"podSelector\"? The API "
             "server refuses the object: rename it") ==
        "unknown field \"spec.podSelectr\": did you mean \"podSelector\"?");
  CHECK(detail("unknown field \"spec.podSelectr\": did you mean \"podSelector\"? The API "
               "server refuses the object: rename it") ==
        "The API server refuses the object: rename it");
  CHECK(lead("data.pw: Invalid value: \"x\": data.pw in body must be of type byte") ==
        "data.pw: Invalid value: \"x\"");
  // A CEL rule's failure stands "object" or "array" in for the value: its message is the lead.
  CHECK(lead("spec.rules[0].matches[0].path: Invalid value: \"object\": value must be an "
             "absolute path: the API server refuses the object") ==
        "spec.rules[0].matches[0].path: Invalid value: \"object\": value must be an absolute path");
  CHECK(lead("spec.listeners[0].name: Required value: the API server refuses the object") ==
        "spec.listeners[0].name: Required value");
  CHECK(lead("HTTPRoute/shop/orders rule 0: Service shop/orders not found: traffic is lost") ==
        "HTTPRoute/shop/orders rule 0: Service shop/orders not found");
  // Separators inside brackets and quotes, after "e.g", and without a space do not end it.
  const std::string_view inside =
      "the route in namespace shop (reason: NoMatchingParent; see status) names \"a: b\", "
      "e.g. a.yaml:3, here.";
  CHECK(lead(inside) == inside);
  CHECK(detail(inside).empty());
}

TEST_CASE("Messages: a lead never names only the subject, however long") {
  auto lead = [](std::string_view m) { return report::splitMessage(m).lead; };
  CHECK(report::namesOnlySubject("HTTPRoute/gateway-conformance-infra/backend-v1-route rule 0"));
  CHECK(report::namesOnlySubject("HTTPRoute/shop/web rule checkout (2)"));
  CHECK(report::namesOnlySubject("Gateway/infra/public-gateway-with-a-long-name listener https"));
  CHECK(report::namesOnlySubject("GatewayClass/envoy-gateway-with-a-long-class-name"));
  CHECK_FALSE(report::namesOnlySubject("HTTPRoute/shop/web rule 0 sends traffic nowhere"));
  CHECK_FALSE(report::namesOnlySubject("unknown field \"spec.rules[0].weight\""));
  CHECK_FALSE(report::namesOnlySubject("spec.rules[0].matches[0].path"));
  // The first ": " after a long subject is not the end of the lead: what is wrong follows.
  CHECK(lead("HTTPRoute/gateway-conformance-infra/infra-backend-v1-route-ipv6 rule 0: backend "
             "kind example.com/Thing is not simulated: it belongs to an implementation") ==
        "HTTPRoute/gateway-conformance-infra/infra-backend-v1-route-ipv6 rule 0: backend kind "
        "example.com/Thing is not simulated");
}

TEST_CASE("Text shows the lead, --verbose the detail; JSON both; kinds nothing analyses") {
  analysis::Analysis a;
  a.root = "/repo";
  load::FileResult loaded = load::loadText(
      "apps.yaml",
      "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: web\n"
      "  namespace: shop\n---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\n"
      "metadata:\n  name: api\n  namespace: shop\n---\napiVersion: argoproj.io/v1alpha1\n"
      "kind: Application\nmetadata:\n  name: shop\n  namespace: argocd\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n",
      {});
  REQUIRE(loaded.problems.empty());
  analysis::addFile(a, std::move(loaded.file));
  a.store.build(std::move(loaded.resources));

  std::vector<model::RuleInfo> rules = {
      {"GW901", "some-rule", "gateway", model::Severity::Error, "Something", "", "", "*"}};
  std::vector<model::Finding> findings(1);
  findings[0].ruleId = "GW901";
  findings[0].message =
      "HTTPRoute/shop/web is not accepted by Gateway/infra/public: no listener admits it; add one";
  findings[0].location = {"apps.yaml", {1, 1}, {1, 5}};
  const report::ReportInput input{a, findings, rules};

  std::ostringstream text, verbose, json;
  report::writeText(text, input, {});
  report::writeTextVerbose(verbose, input, {});
  report::writeJson(json, input);
  CHECK(text.str() ==
        "apps.yaml:1:1: error: HTTPRoute/shop/web is not accepted by Gateway/infra/public "
        "[GW901]\n1 error, 0 warnings, 0 notes in 1 file (4 objects); not analysed: 2 "
        "ServiceMonitor, 1 Application\n");
  CHECK(verbose.str().find("[GW901]\n  no listener admits it; add one\n") != std::string::npos);
  nlohmann::json doc = nlohmann::json::parse(json.str());
  CHECK(doc["findings"][0]["message"] ==
        "HTTPRoute/shop/web is not accepted by Gateway/infra/public");
  CHECK(doc["findings"][0]["detail"] == "no listener admits it; add one");
  CHECK(doc["summary"]["notAnalysed"] ==
        nlohmann::json::parse(R"([{"group": "monitoring.coreos.com", "kind": "ServiceMonitor",
                                  "count": 2},
                                 {"group": "argoproj.io", "kind": "Application", "count": 1}])"));
}
