#include "lib/graph/gateway_classes.h"

#include <array>

namespace pg::graph {

namespace {

// Names and controllers as each project documents its installation (the classes its chart,
// operator or control plane creates). Kept in alphabetical order of implementation.
constexpr std::array kWellKnown = {
    KnownGatewayClass{"azure-alb-external", "alb.networking.azure.io/alb-controller",
                      "Azure Application Gateway for Containers"},
    KnownGatewayClass{"cilium", "io.cilium/gateway-controller", "Cilium"},
    KnownGatewayClass{"contour", "projectcontour.io/gateway-controller", "Contour"},
    KnownGatewayClass{"eg", "gateway.envoyproxy.io/gatewayclass-controller", "Envoy Gateway"},
    KnownGatewayClass{"gke-l7-*", "networking.gke.io/gateway", "GKE Gateway controller"},
    KnownGatewayClass{"istio", "istio.io/gateway-controller", "Istio"},
    KnownGatewayClass{"istio-east-west", "istio.io/eastwest-controller", "Istio"},
    KnownGatewayClass{"istio-remote", "istio.io/unmanaged-gateway", "Istio"},
    KnownGatewayClass{"istio-waypoint", "istio.io/mesh-controller", "Istio (ambient)"},
    KnownGatewayClass{"kgateway", "kgateway.dev/kgateway", "kgateway"},
    KnownGatewayClass{"kgateway-waypoint", "kgateway.dev/kgateway", "kgateway"},
    KnownGatewayClass{"kong", "konghq.com/kic-gateway-controller", "Kong Ingress Controller"},
    KnownGatewayClass{"kuma", "gateways.kuma.io/controller", "Kuma"},
    KnownGatewayClass{"nginx", "gateway.nginx.org/nginx-gateway-controller",
                      "NGINX Gateway Fabric"},
    KnownGatewayClass{"traefik", "traefik.io/gateway-controller", "Traefik"},
};

}  // namespace

std::span<const KnownGatewayClass> wellKnownGatewayClasses() { return kWellKnown; }

bool classNameMatches(std::string_view pattern, std::string_view name) {
  if (!pattern.empty() && pattern.back() == '*') {
    pattern.remove_suffix(1);
    return name.size() > pattern.size() && name.starts_with(pattern);
  }
  return pattern == name;
}

const KnownGatewayClass* findWellKnownGatewayClass(std::string_view name) {
  for (const KnownGatewayClass& c : kWellKnown)
    if (classNameMatches(c.name, name)) return &c;
  return nullptr;
}

std::string_view controllerOfParameters(std::string_view group) {
  if (group == "gateway.envoyproxy.io") return "gateway.envoyproxy.io/gatewayclass-controller";
  return {};
}

const DeclaredGatewayClass* findDeclaredGatewayClass(
    const std::vector<DeclaredGatewayClass>& declared, std::string_view name) {
  for (const DeclaredGatewayClass& c : declared)
    if (classNameMatches(c.name, name)) return &c;
  return nullptr;
}

}  // namespace pg::graph
