// GatewayClasses that controllers install themselves, so that application repositories name
// them without holding them: one table of well-known names and their controllerName, the
// classes declared in the config file, and how a Gateway's class was found.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pg::graph {

// A class name (a trailing `*` matches any rest: `gke-l7-*`) and the controller that owns it.
struct KnownGatewayClass {
  std::string_view name;
  std::string_view controllerName;
  std::string_view implementation;  // who installs it, for messages and the README
};

// A class declared in `.policygraph.yaml` (`gatewayClasses:`); the name may end in `*` too.
struct DeclaredGatewayClass {
  std::string name;
  std::string controllerName;
};

// Where a Gateway's class came from. Input: a GatewayClass among the manifests; Declared: the
// config file; WellKnown: the table below; Assumed: a name found nowhere, taken to exist since
// the input holds no GatewayClass at all (GW212 says so); Missing: no name, or a name found
// nowhere while the input holds other GatewayClasses (GW207).
enum class ClassOrigin : std::uint8_t { Input, Declared, WellKnown, Assumed, Missing };

// The controllerName written for a Gateway whose class is assumed or missing when no
// `--controller-name` says which controller is simulated.
inline constexpr std::string_view kAssumedControllerName = "policygraph.dev/assumed-controller";

// The controller whose own kind a Gateway's `infrastructure.parametersRef` group is (Envoy
// Gateway's EnvoyProxy), among the controllers policygraph simulates; empty for any other.
std::string_view controllerOfParameters(std::string_view group);

std::span<const KnownGatewayClass> wellKnownGatewayClasses();

// Whether `pattern` (an exact name, or a prefix followed by `*`) matches the class `name`.
bool classNameMatches(std::string_view pattern, std::string_view name);

// The well-known class named `name`, or null.
const KnownGatewayClass* findWellKnownGatewayClass(std::string_view name);

// The declared class named `name` (the first that matches), or null.
const DeclaredGatewayClass* findDeclaredGatewayClass(
    const std::vector<DeclaredGatewayClass>& declared, std::string_view name);

}  // namespace pg::graph
