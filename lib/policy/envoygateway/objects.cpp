// Status of the Envoy Gateway objects that are not policies of a profile:
//  - EnvoyProxy, named by a GatewayClass's `parametersRef` or a Gateway's
//    `infrastructure.parametersRef`: the translator validates it (GetRelevantGateways,
//    validateEnvoyProxy) and writes Accepted (or InvalidParameters with every problem) with
//    the GatewayClass or Gateway as ancestor;
//  - EnvoyPatchPolicy (ProcessEnvoyPatchPolicies): on the Gateway it names, or on the
//    GatewayClass when the class's EnvoyProxy merges Gateways; Disabled unless Envoy
//    Gateway's configuration enables it, Invalid when the target is not the one kind it takes;
//  - Backend (ProcessBackends): every Backend, once Envoy Gateway runs in the input (a Gateway
//    or GatewayClass of its), accepted unless validateBackend refuses it.
//  - the Gateway, from its EnvoyProxy's telemetry (listener.go processProxyObservability):
//    the access log, then tracing, then metrics; the first whose CEL matches do not compile or
//    whose backendRefs do not resolve leaves the Gateway not accepted (InvalidParameters).
#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cel/cel.h"
#include "lib/graph/controller_profile.h"
#include "lib/graph/envoy_backends.h"
#include "lib/policy/envoygateway/envoygateway.h"
#include "lib/policy/family.h"
#include "lib/yaml/parser.h"

namespace pg::policy::envoygateway {

namespace {

constexpr std::string_view kGatewayApiGroup = "gateway.networking.k8s.io";
constexpr std::string_view kController = "gateway.envoyproxy.io/gatewayclass-controller";

// The aggregate error text Kubernetes' utilerrors.NewAggregate gives: the message alone, or
// all of them in brackets.
std::string aggregate(const std::vector<Problem>& problems) {
  if (problems.size() == 1) return problems.front().message;
  std::string out = "[";
  for (const Problem& p : problems) out += (out.size() > 1 ? ", " : "") + p.message;
  return out + "]";
}

// What a telemetry backendRef of an EnvoyProxy must name (listener.go processBackendRefs): a
// Service with the TCP port given (validateBackendRefService), or a Backend that is not a
// DynamicResolver; no other kind. The namespace defaults to the EnvoyProxy's.
std::optional<Problem> checkTelemetryBackendRefs(
    const model::Store& store, const std::vector<config::ExternalObject>& external,
    const model::Resource& proxy, yaml::NodeRef refs) {
  for (yaml::NodeRef ref : refs.items()) {
    const yaml::NodeRef kindNode = ref.get("kind");
    const yaml::NodeRef nsNode = ref.get("namespace");
    const std::string_view kind = kindNode ? kindNode.str() : std::string_view("Service");
    const std::string_view ns = nsNode ? nsNode.str() : proxy.namespace_;
    const yaml::NodeRef nameNode = ref.get("name");
    const std::string named = std::string(ns) + "/" + std::string(nameNode.str());
    // Declared as made outside the repository (`external:`): there, though not readable.
    if (config::findExternal(external, kind == "Backend" ? kGroup : std::string_view(), kind, ns,
                             nameNode.str()))
      continue;
    if (kind == "Service") {
      const model::Resource* service = store.find("", "Service", ns, nameNode.str());
      if (!service)
        return Problem{"service " + named + " not found", nameNode ? nameNode : ref,
                       model::Missing{"", "Service", std::string(ns), std::string(nameNode.str())}};
      const yaml::NodeRef port = ref.get("port");
      if (!port.asInt())
        return Problem{
            "a port is required for Service " + named + ": give the Service port to send to", ref};
      if (!graph::servicePortExists(*service, *port.asInt(), "TCP"))
        return Problem{"TCP port " + std::string(port.str()) + " not found on service " + named,
                       port};
    } else if (kind == "Backend") {
      const model::Resource* backend = store.find(kGroup, "Backend", ns, nameNode.str());
      if (!backend)
        return Problem{"Backend " + named + " not found", nameNode ? nameNode : ref,
                       model::Missing{std::string(kGroup), "Backend", std::string(ns),
                                      std::string(nameNode.str())}};
      if (graph::isDynamicResolver(*backend))
        return Problem{"dynamic resolver destinations are not supported: Backend " + named +
                           " has no address of its own for telemetry to be sent to",
                       nameNode ? nameNode : ref};
    } else {
      return Problem{
          "unsupported kind for backendRefs: " + std::string(kind) + " (a Service or a Backend)",
          kindNode};
    }
  }
  return std::nullopt;
}

struct TelemetryProblem {
  std::string_view part;  // "access log", "tracing" or "metrics", as the status names it
  Problem problem;
};

// Walks an EnvoyProxy's telemetry in the order the translator reads it (listener.go
// processProxyObservability): `onSetting(setting)` for each access log setting before its
// sinks (none when the access log is disabled), then `onRefs(part, backendRefs)` for each
// list of backendRefs, `part` being "access log", "tracing" or "metrics" as the status names
// it. Either callback returning true stops the walk.
template <typename OnSetting, typename OnRefs>
void walkTelemetry(const model::Resource& proxy, OnSetting&& onSetting, OnRefs&& onRefs) {
  const yaml::NodeRef telemetry = proxy.spec().get("telemetry");
  const yaml::NodeRef accessLog = telemetry.get("accessLog");
  if (accessLog && accessLog.get("disable").asBool() != true) {
    for (yaml::NodeRef setting : accessLog.get("settings").items()) {
      if (onSetting(setting)) return;
      for (yaml::NodeRef sink : setting.get("sinks").items()) {
        const std::string_view type = sink.get("type").str();
        const yaml::NodeRef config = type == "ALS"             ? sink.get("als")
                                     : type == "OpenTelemetry" ? sink.get("openTelemetry")
                                                               : yaml::NodeRef();
        if (onRefs("access log", config.get("backendRefs"))) return;
      }
    }
  }
  if (const yaml::NodeRef tracing = telemetry.get("tracing"); tracing && !tracing.isNull())
    if (onRefs("tracing", tracing.get("provider").get("backendRefs"))) return;
  for (yaml::NodeRef sink : telemetry.get("metrics").get("sinks").items())
    if (onRefs("metrics", sink.get("openTelemetry").get("backendRefs"))) return;
}

// The first problem of an EnvoyProxy's telemetry, in the order the translator reads it. An
// access log's `matches` must be CEL expressions: one that does not parse is refused
// (validCELExpression parses them without a checker: Envoy's attributes are dynamic).
std::optional<TelemetryProblem> checkTelemetry(const model::Store& store,
                                               const std::vector<config::ExternalObject>& external,
                                               const model::Resource& proxy) {
  std::optional<TelemetryProblem> out;
  walkTelemetry(
      proxy,
      [&](yaml::NodeRef setting) {
        std::vector<Problem> invalid;
        for (yaml::NodeRef match : setting.get("matches").items()) {
          if (const std::optional<cel::CompileError> error = cel::syntaxError(match.str());
              error && !error->unsupported)
            invalid.push_back({"invalid CEL expression: " + std::string(match.str()), match});
        }
        if (!invalid.empty())
          out = TelemetryProblem{"access log", {aggregate(invalid), invalid.front().at}};
        return out.has_value();
      },
      [&](std::string_view part, yaml::NodeRef refs) {
        if (std::optional<Problem> p = checkTelemetryBackendRefs(store, external, proxy, refs))
          out = TelemetryProblem{part, std::move(*p)};
        return out.has_value();
      });
  return out;
}

class ObjectStatusWriter {
 public:
  explicit ObjectStatusWriter(FamilyContext& context) : context_(context) {}

  void run() {
    writeEnvoyProxies();
    writePatchPolicies();
    writeBackends();
    writeObservability();
    std::vector<ObjectStatus>& out = context_.model.objectStatuses;
    std::stable_sort(out.begin(), out.end(), [](const ObjectStatus& a, const ObjectStatus& b) {
      // Objects live in the Store's one vector: address order is Store order.
      return std::less<const model::Resource*>()(a.object, b.object);
    });
  }

 private:
  ObjectStatus& statusOf(const model::Resource& object) {
    for (ObjectStatus& s : context_.model.objectStatuses)
      if (s.object == &object) return s;
    context_.model.objectStatuses.push_back({&object, {}, {}});
    return context_.model.objectStatuses.back();
  }

  void setAccepted(const model::Resource& object, AncestorRef ref, graph::Condition accepted,
                   std::string_view controller) {
    ObjectStatus& s = statusOf(object);
    for (const AncestorStatus& a : s.ancestors)
      if (a.ref == ref) return;
    s.ancestors.push_back({std::move(ref), std::string(controller), {std::move(accepted)}});
  }

  // One EnvoyProxy reached from `ancestor`: every problem of it, or Accepted (and a warning
  // for the deprecated field the translator names).
  void writeEnvoyProxy(const model::Resource& proxy, AncestorRef ancestor,
                       std::string_view controller) {
    std::vector<Problem> problems =
        validateAll(proxy, context_.store, context_.topology.grants, context_.config.external,
                    /*firstOnly=*/false);
    if (reported_.insert(&proxy).second)
      for (const Problem& p : problems)
        context_.model.objectProblems.push_back({&proxy, p.at, p.message, nullptr, p.missing});
    if (!problems.empty()) {
      setAccepted(proxy, std::move(ancestor),
                  graph::makeCondition("Accepted", false, "InvalidParameters", aggregate(problems)),
                  controller);
      return;
    }
    AncestorRef ref = ancestor;
    setAccepted(proxy, std::move(ancestor),
                graph::makeCondition("Accepted", true, "Accepted", "EnvoyProxy has been accepted."),
                controller);
    if (proxy.spec().get("luaValidation")) {
      for (AncestorStatus& a : statusOf(proxy).ancestors)
        if (a.ref == ref)
          a.conditions.push_back(
              graph::makeCondition("Warning", true, "DeprecatedField",
                                   "spec.luaValidation is deprecated, use spec.lua.validationType "
                                   "instead"));
    }
  }

  void writeEnvoyProxies() {
    for (const model::Resource* gc : context_.store.ofKind(kGatewayApiGroup, "GatewayClass")) {
      const model::Resource* proxy = classEnvoyProxy(context_.store, *gc);
      if (!proxy) continue;
      AncestorRef ref;
      ref.kind = "GatewayClass";
      ref.name = std::string(gc->name);
      std::string_view controller = gc->spec().get("controllerName").str();
      writeEnvoyProxy(*proxy, std::move(ref), controller.empty() ? kController : controller);
      if (mergesGateways(context_.store, gc)) mergingClasses_.push_back(std::string(gc->name));
    }
    for (const graph::Gateway& g : context_.topology.gateways) {
      if (!g.managed || g.isListenerSet()) continue;
      const model::Resource* proxy = gatewayEnvoyProxy(context_.store, *g.resource);
      if (!proxy) continue;
      AncestorRef ancestor;
      ancestor.namespace_ = std::string(g.resource->namespace_);
      ancestor.name = std::string(g.resource->name);
      writeEnvoyProxy(*proxy, std::move(ancestor), g.controllerName);
    }
  }

  void writePatchPolicies() {
    const bool enabled =
        controllerSettings(context_.store, context_.config).enableEnvoyPatchPolicy.value_or(false);
    const bool merged = !mergingClasses_.empty();
    for (const model::Resource* policy : context_.store.ofKind(kGroup, "EnvoyPatchPolicy")) {
      yaml::NodeRef target = policy->spec().get("targetRef");
      std::string_view group = target.get("group").str();
      std::string_view kind = target.get("kind").str();
      std::string_view name = target.get("name").str();
      AncestorRef ancestor;
      std::string_view controller = kController;
      std::string targetKind;
      if (merged) {
        // Merged Gateways share one data plane: the policy names the GatewayClass.
        targetKind = "GatewayClass";
        ancestor.kind = "GatewayClass";
        ancestor.name = std::string(name);
      } else {
        targetKind = "Gateway";
        const graph::Gateway* g =
            context_.topology.findGateway(policy->namespace_, name, "Gateway");
        // No status for a Gateway that is not there (or another controller's).
        if (!g || !g->managed) continue;
        ancestor.namespace_ = std::string(policy->namespace_);
        ancestor.name = std::string(name);
        controller = g->controllerName;
      }
      graph::Condition accepted =
          graph::makeCondition("Accepted", true, "Accepted", "Policy has been accepted.");
      if (!enabled) {
        accepted =
            graph::makeCondition("Accepted", false, "Disabled",
                                 "EnvoyPatchPolicy is disabled in the EnvoyGateway configuration");
      } else if (merged && (group != kGatewayApiGroup || kind != targetKind ||
                            std::find(mergingClasses_.begin(), mergingClasses_.end(), name) ==
                                mergingClasses_.end())) {
        accepted = graph::makeCondition(
            "Accepted", false, "Invalid",
            "TargetRef.Group:" + std::string(group) + " TargetRef.Kind:" + std::string(kind) +
                " TargetRef.Namespace:" + std::string(policy->namespace_) + " TargetRef.Name:" +
                std::string(name) + " not found or not accepted (MergeGateways=true).");
      } else if (group != kGatewayApiGroup || kind != targetKind) {
        accepted = graph::makeCondition(
            "Accepted", false, "Invalid",
            "TargetRef.Group:" + std::string(group) + " TargetRef.Kind:" + std::string(kind) +
                ", only TargetRef.Group:" + std::string(kGatewayApiGroup) +
                " and TargetRef.Kind:" + targetKind + " is supported.");
      }
      setAccepted(*policy, std::move(ancestor), std::move(accepted), controller);
    }
  }

  // Whether Envoy Gateway runs on the input: a Gateway it manages, or a GatewayClass of its.
  bool envoyGatewayRuns() const {
    for (const graph::Gateway& g : context_.topology.gateways)
      if (g.managed && g.profile && g.profile->id == graph::ControllerId::EnvoyGateway) return true;
    for (const model::Resource* gc : context_.store.ofKind(kGatewayApiGroup, "GatewayClass"))
      if (graph::profileForController(gc->spec().get("controllerName").str()).id ==
          graph::ControllerId::EnvoyGateway)
        return true;
    return false;
  }

  // A Backend's own status: Accepted, or what the translator's status helper writes for a
  // Backend validateBackend refuses, which swaps the condition's type and reason: type
  // Invalid, status False, reason Accepted. The status reproduces it as written.
  void writeBackends() {
    const std::vector<const model::Resource*> backends = context_.store.ofKind(kGroup, "Backend");
    if (backends.empty() || !envoyGatewayRuns()) return;
    for (const model::Resource* backend : backends) {  // each once: no other status of its
      std::optional<graph::EnvoyBackendRefusal> invalid = graph::validateEnvoyBackend(*backend);
      context_.model.objectStatuses.push_back(
          {backend,
           {},
           {invalid
                ? graph::makeCondition("Invalid", false, "Accepted",
                                       "The Backend was not accepted: " + invalid->message)
                : graph::makeCondition("Accepted", true, "Accepted", "The Backend was accepted")}});
    }
  }

  // Every managed Gateway's EnvoyProxy telemetry, as the translator reads it when it builds
  // the Gateway's data plane: Accepted False, InvalidParameters, naming which part failed.
  void writeObservability() {
    for (const graph::Gateway& g : context_.topology.gateways) {
      if (!g.managed || g.isListenerSet() || !g.profile ||
          g.profile->id != graph::ControllerId::EnvoyGateway)
        continue;
      const model::Resource* proxy = envoyProxyOf(context_.store, g);
      if (!proxy) continue;
      std::optional<TelemetryProblem> problem =
          checkTelemetry(context_.store, context_.config.external, *proxy);
      if (!problem) continue;
      const std::string message =
          "Invalid " + std::string(problem->part) +
          " backendRefs in the referenced EnvoyProxy: " + problem->problem.message;
      context_.model.targetConditions.push_back(
          {g.resource, graph::makeCondition("Accepted", false, "InvalidParameters", message)});
      context_.model.objectProblems.push_back(
          {proxy, problem->problem.at, message, g.resource, problem->problem.missing});
    }
  }

  FamilyContext& context_;
  std::set<const model::Resource*> reported_;  // EnvoyProxies whose problems are recorded
  std::vector<std::string> mergingClasses_;    // GatewayClasses whose EnvoyProxy merges Gateways
};

}  // namespace

bool namesEnvoyProxy(yaml::NodeRef ref) {
  return ref.get("group").str() == kGroup && ref.get("kind").str() == "EnvoyProxy";
}

const model::Resource* classEnvoyProxy(const model::Store& store,
                                       const model::Resource& gatewayClass) {
  yaml::NodeRef ref = gatewayClass.spec().get("parametersRef");
  if (!namesEnvoyProxy(ref)) return nullptr;
  return store.find(kGroup, "EnvoyProxy", ref.get("namespace").str(), ref.get("name").str());
}

const model::Resource* gatewayEnvoyProxy(const model::Store& store,
                                         const model::Resource& gateway) {
  yaml::NodeRef ref = gateway.spec().get("infrastructure").get("parametersRef");
  if (!namesEnvoyProxy(ref)) return nullptr;
  return store.find(kGroup, "EnvoyProxy", gateway.namespace_, ref.get("name").str());
}

bool mergesGateways(const model::Store& store, const model::Resource* gatewayClass) {
  const model::Resource* proxy = gatewayClass ? classEnvoyProxy(store, *gatewayClass) : nullptr;
  return proxy && proxy->spec().get("mergeGateways").asBool() == true;
}

const model::Resource* envoyProxyOf(const model::Store& store, const graph::Gateway& gateway) {
  const graph::Gateway& root = gateway.parent ? *gateway.parent : gateway;
  if (namesEnvoyProxy(root.resource->spec().get("infrastructure").get("parametersRef")))
    return gatewayEnvoyProxy(store, *root.resource);
  return root.gatewayClass ? classEnvoyProxy(store, *root.gatewayClass) : nullptr;
}

config::EnvoyGatewaySettings controllerSettings(const model::Store& store,
                                                const config::Config& config) {
  config::EnvoyGatewaySettings settings = config.envoyGateway;
  for (const model::Resource* map : store.ofKind("", "ConfigMap")) {
    if (map->name != "envoy-gateway-config") continue;
    const yaml::NodeRef text = map->node.get("data").get("envoy-gateway.yaml");
    if (!text.isScalar()) continue;
    const yaml::ParseResult parsed = yaml::parse(std::string(text.str()), {}, false);
    if (!parsed.tree || parsed.tree->documents().empty()) continue;
    const yaml::NodeRef resource = parsed.tree->root(0);
    if (resource.get("kind").str() != "EnvoyGateway") continue;
    if (!settings.enableEnvoyPatchPolicy)
      settings.enableEnvoyPatchPolicy =
          resource.get("extensionApis").get("enableEnvoyPatchPolicy").asBool().value_or(false);
    if (!settings.rateLimit) {
      const yaml::NodeRef rateLimit = resource.get("rateLimit");
      settings.rateLimit = rateLimit && !rateLimit.isNull();
    }
    break;
  }
  return settings;
}

std::vector<yaml::NodeRef> telemetryBackendRefs(const model::Resource& proxy) {
  std::vector<yaml::NodeRef> out;
  walkTelemetry(
      proxy, [](yaml::NodeRef) { return false; },
      [&](std::string_view, yaml::NodeRef refs) {
        for (yaml::NodeRef ref : refs.items())
          if (ref.isMapping()) out.push_back(ref);
        return false;
      });
  return out;
}

void writeObjectStatus(FamilyContext& context) {
  ObjectStatusWriter(context).run();
}

}  // namespace pg::policy::envoygateway
