#include "lib/graph/gateway_classes.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "lib/graph/topology.h"
#include "lib/load/loader.h"
#include "lib/model/store.h"

using namespace pg;

namespace {

struct Fixture {
  load::FileResult file;
  model::Store store{"default"};
  graph::Topology topology;
};

// One Gateway of class `className` (and `extra` documents before it), built with `options`.
std::unique_ptr<Fixture> build(std::string_view className, const graph::TopologyOptions& options,
                               std::string_view extra = "") {
  std::string text = std::string(extra) +
                     "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n"
                     "metadata: {name: gw, namespace: default}\nspec:\n"
                     "  gatewayClassName: " +
                     std::string(className) +
                     "\n  listeners:\n  - {name: http, protocol: HTTP, port: 80}\n";
  auto f = std::make_unique<Fixture>();
  f->file = load::loadText("test.yaml", std::move(text), {});
  f->store.build(f->file.resources);
  f->topology = graph::buildTopology(f->store, options);
  return f;
}

}  // namespace

TEST_CASE("well-known classes: exact names and the gke-l7-* family") {
  REQUIRE(graph::findWellKnownGatewayClass("istio") != nullptr);
  CHECK(graph::findWellKnownGatewayClass("istio")->controllerName == "istio.io/gateway-controller");
  CHECK(graph::findWellKnownGatewayClass("istio-waypoint")->controllerName ==
        "istio.io/mesh-controller");
  CHECK(graph::findWellKnownGatewayClass("gke-l7-global-external-managed")->controllerName ==
        "networking.gke.io/gateway");
  CHECK(graph::findWellKnownGatewayClass("gke-l7-") == nullptr);  // a prefix alone is no name
  CHECK(graph::findWellKnownGatewayClass("istio-ingress") == nullptr);
  CHECK(graph::findWellKnownGatewayClass("cilium")->controllerName ==
        "io.cilium/gateway-controller");
  CHECK(graph::findWellKnownGatewayClass("eg")->controllerName ==
        "gateway.envoyproxy.io/gatewayclass-controller");
}

TEST_CASE("a Gateway's class: input, declared, well known, assumed, missing") {
  graph::TopologyOptions options;
  options.gatewayClasses.push_back({"platform-*", "example.com/platform"});

  auto declared = build("platform-public", options);
  CHECK(declared->topology.gateways[0].classOrigin == graph::ClassOrigin::Declared);
  CHECK(declared->topology.gateways[0].controllerName == "example.com/platform");
  CHECK(declared->topology.gateways[0].managed);

  auto known = build("cilium", options);
  CHECK(known->topology.gateways[0].classOrigin == graph::ClassOrigin::WellKnown);
  CHECK(known->topology.gateways[0].controllerName == "io.cilium/gateway-controller");

  // Nowhere, and the input holds no GatewayClass: assumed, simulated.
  auto assumed = build("unknown-class", options);
  const graph::Gateway& a = assumed->topology.gateways[0];
  CHECK(a.classOrigin == graph::ClassOrigin::Assumed);
  CHECK(a.managed);
  CHECK(a.controllerName == graph::kAssumedControllerName);
  REQUIRE_FALSE(a.conditions.empty());
  CHECK(a.conditions[0].reason == "Accepted");

  // Nowhere, and the input holds another class: missing (GW207), still simulated.
  const char* otherClass =
      "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: mine}\n"
      "spec: {controllerName: example.com/mine}\n---\n";
  auto missing = build("unknown-class", options, otherClass);
  CHECK(missing->topology.gateways[0].classOrigin == graph::ClassOrigin::Missing);
  CHECK(missing->topology.gateways[0].managed);

  auto input = build("mine", options, otherClass);
  CHECK(input->topology.gateways[0].classOrigin == graph::ClassOrigin::Input);
  CHECK(input->topology.gateways[0].controllerName == "example.com/mine");

  // Simulating one controller: a well-known class of another is owned elsewhere; an assumed
  // class is taken to be the simulated controller's.
  graph::TopologyOptions istioOnly;
  istioOnly.controllerName = "istio.io/gateway-controller";
  CHECK_FALSE(build("cilium", istioOnly)->topology.gateways[0].managed);
  CHECK(build("istio", istioOnly)->topology.gateways[0].managed);
  auto assumedIstio = build("unknown-class", istioOnly);
  CHECK(assumedIstio->topology.gateways[0].managed);
  CHECK(assumedIstio->topology.gateways[0].controllerName == "istio.io/gateway-controller");
}

TEST_CASE("controller profiles: chosen by controllerName, generic otherwise") {
  using graph::ControllerId;
  CHECK(graph::profileForController("istio.io/gateway-controller").id == ControllerId::Istio);
  CHECK(graph::profileForController("istio.io/mesh-controller").id == ControllerId::Istio);
  CHECK(graph::profileForController("gateway.envoyproxy.io/gatewayclass-controller").id ==
        ControllerId::EnvoyGateway);
  CHECK(graph::profileForController("example.com/gateway-controller").id ==
        ControllerId::Generic);
  CHECK(&graph::profileForController("") == &graph::genericProfile());

  const graph::ControllerProfile& istio =
      graph::profileForController("istio.io/gateway-controller");
  CHECK(istio.supportsBackendKind("networking.istio.io", "Hostname"));
  CHECK_FALSE(istio.supportsBackendKind("gateway.envoyproxy.io", "Backend"));
  CHECK_FALSE(istio.servicePortMustExist);
  // HBONE only on waypoints; a terminating TLS listener takes TCPRoutes alone.
  CHECK(istio.protocol("HBONE", "", "istio.io/gateway-controller") == nullptr);
  REQUIRE(istio.protocol("HBONE", "", "istio.io/mesh-controller") != nullptr);
  REQUIRE(istio.protocol("TLS", "Terminate", "istio.io/gateway-controller") != nullptr);
  CHECK(istio.protocol("TLS", "Terminate", "istio.io/gateway-controller")->routeKinds.size() == 1);
  CHECK(istio.protocol("UDP", "", "istio.io/gateway-controller") == nullptr);

  const graph::ControllerProfile& eg =
      graph::profileForController("gateway.envoyproxy.io/gatewayclass-controller");
  CHECK(eg.supportsBackendKind("gateway.envoyproxy.io", "Backend"));
  CHECK(eg.servicePortMustExist);
  CHECK(eg.protocol("UDP", "", "gateway.envoyproxy.io/gatewayclass-controller") != nullptr);

  CHECK(graph::isStandardGroup("apps"));
  CHECK(graph::isStandardGroup("gateway.networking.k8s.io"));
  CHECK_FALSE(graph::isStandardGroup("gateway.envoyproxy.io"));
}

TEST_CASE("a Gateway's profile follows its class; the mesh is Istio's when Istio is used") {
  auto istio = build("istio", {});
  CHECK(istio->topology.gateways[0].profile->id == graph::ControllerId::Istio);
  CHECK(istio->topology.meshProfile->id == graph::ControllerId::Istio);
  CHECK(istio->topology.meshControllerName == "istio.io/gateway-controller");
  auto other = build("example", {});
  CHECK(other->topology.gateways[0].profile->id == graph::ControllerId::Generic);
  CHECK(other->topology.meshProfile->id == graph::ControllerId::Generic);
}
