// `policygraph status`: the status every simulated controller would write, in the upstream
// shape, as {"items": [...]} (JSON) or the same list as YAML.
#include <nlohmann/json.hpp>

#include "lib/report/report.h"
#include "lib/report/values.h"
#include "lib/yaml/writer.h"

namespace pg::report {

namespace {

using Json = nlohmann::ordered_json;

Json conditions(const std::vector<graph::Condition>& list) {
  Json out = Json::array();
  for (const graph::Condition& c : list)
    out.push_back(
        {{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}});
  return out;
}

Json item(const model::Resource& r, Json status) {
  Json metadata = Json::object();
  if (!r.namespace_.empty()) metadata["namespace"] = r.namespace_;
  metadata["name"] = r.name;
  return {{"apiVersion", r.apiVersion},
          {"kind", r.kind},
          {"metadata", metadata},
          {"status", std::move(status)}};
}

Json gatewayStatus(const graph::Gateway& g) {
  Json listeners = Json::array();
  for (const graph::Listener& l : g.listeners) {
    Json kinds = Json::array();
    for (const graph::GroupKind& k : l.kinds)
      kinds.push_back({{"group", k.group}, {"kind", k.kind}});
    listeners.push_back({{"name", l.name},
                         {"attachedRoutes", l.attachedRoutes},
                         {"supportedKinds", kinds},
                         {"conditions", conditions(l.conditions)}});
  }
  Json status = {{"conditions", conditions(g.conditions)}, {"listeners", listeners}};
  if (g.hasListenerSets) status["attachedListeners"] = g.attachedListeners;
  return status;
}

Json parentRef(const graph::ParentRef& ref) {
  Json out = {
      {"group", ref.group}, {"kind", ref.kind}, {"namespace", ref.namespace_}, {"name", ref.name}};
  if (!ref.sectionName.empty()) out["sectionName"] = ref.sectionName;
  if (ref.port) out["port"] = *ref.port;
  return out;
}

Json ancestorRef(const policy::AncestorRef& ref) {
  Json out = {{"group", ref.group}, {"kind", ref.kind}};
  if (!ref.namespace_.empty()) out["namespace"] = ref.namespace_;
  out["name"] = ref.name;
  if (!ref.sectionName.empty()) out["sectionName"] = ref.sectionName;
  if (ref.port) out["port"] = *ref.port;
  return out;
}

// Linkerd's policy controller's entry for a Server parent: the one Accepted condition.
Json serverParentJson(const policy::linkerd::ServerParent& p) {
  Json ref = {{"group", policy::linkerd::kPolicyGroup},
              {"kind", "Server"},
              {"namespace", p.namespace_},
              {"name", p.name}};
  if (!p.sectionName.empty()) ref["sectionName"] = p.sectionName;
  if (p.port) ref["port"] = *p.port;
  return {{"parentRef", ref},
          {"controllerName", policy::linkerd::kControllerName},
          {"conditions", conditions({p.accepted})}};
}

// Conditions policies' controllers add to the objects they affect
// (`kuadrant.io/AuthPolicyAffected`), in policy order.
std::vector<graph::Condition> targetConditions(const analysis::Analysis& a,
                                               const model::Resource* target) {
  std::vector<graph::Condition> out;
  for (const policy::TargetCondition& tc : a.policies.targetConditions)
    if (tc.target == target) out.push_back(tc.condition);
  return out;
}

// A policy's or an object's status: `ancestors` and its own `conditions`, each when it has any.
Json ancestorsAndConditions(const std::vector<policy::AncestorStatus>& ancestors,
                            const std::vector<graph::Condition>& own) {
  Json status = Json::object();
  if (!ancestors.empty()) {
    Json list = Json::array();
    for (const policy::AncestorStatus& anc : ancestors)
      list.push_back({{"ancestorRef", ancestorRef(anc.ref)},
                      {"controllerName", anc.controllerName},
                      {"conditions", conditions(anc.conditions)}});
    status["ancestors"] = std::move(list);
  }
  if (!own.empty()) status["conditions"] = conditions(own);
  return status;
}

Json statusItems(const analysis::Analysis& a) {
  Json items = Json::array();
  for (const graph::Gateway& g : a.topology.gateways) {
    if (!g.managed) continue;
    Json status = gatewayStatus(g);
    // A condition a policy's controller writes replaces the Gateway's of the same type (as
    // setting a condition does in Kubernetes), else joins them.
    for (const graph::Condition& c : targetConditions(a, g.resource)) {
      Json written = conditions({c}).at(0);
      bool replaced = false;
      for (Json& existing : status["conditions"])
        if (existing["type"] == written["type"]) {
          existing = written;
          replaced = true;
        }
      if (!replaced) status["conditions"].push_back(std::move(written));
    }
    items.push_back(item(*g.resource, std::move(status)));
  }
  for (const graph::Route& route : a.topology.routes) {
    Json parents = Json::array();
    std::vector<graph::Condition> affected = targetConditions(a, route.resource);
    std::vector<const policy::linkerd::ServerParent*> servers = a.linkerd.parentsOf(route.resource);
    std::size_t nextServer = 0;
    for (const graph::RouteParent& p : route.parents) {
      if (nextServer < servers.size() && servers[nextServer]->parentRef == p.ref.node) {
        parents.push_back(serverParentJson(*servers[nextServer++]));
        continue;
      }
      if (p.conditions.empty()) continue;
      std::string_view controller =
          p.gateway ? p.gateway->controllerName : std::string_view(a.topology.meshControllerName);
      std::vector<graph::Condition> all = p.conditions;
      if (p.accepted()) all.insert(all.end(), affected.begin(), affected.end());
      parents.push_back({{"parentRef", parentRef(p.ref)},
                         {"controllerName", controller},
                         {"conditions", conditions(all)}});
    }
    if (!parents.empty()) items.push_back(item(*route.resource, {{"parents", parents}}));
  }
  // Routes outside the Gateway API topology (policy.linkerd.io HTTPRoutes) with Server parents.
  for (std::size_t i = 0; i < a.linkerd.serverParents.size();) {
    const model::Resource* route = a.linkerd.serverParents[i].route;
    Json parents = Json::array();
    for (; i < a.linkerd.serverParents.size() && a.linkerd.serverParents[i].route == route; ++i)
      parents.push_back(serverParentJson(a.linkerd.serverParents[i]));
    if (!a.topology.findRoute(route)) items.push_back(item(*route, {{"parents", parents}}));
  }
  for (const policy::Policy& p : a.policies.policies) {
    Json status = ancestorsAndConditions(p.ancestors, p.conditions);
    if (!status.empty()) items.push_back(item(*p.resource, std::move(status)));
  }
  for (const policy::ObjectStatus& o : a.policies.objectStatuses)
    items.push_back(item(*o.object, ancestorsAndConditions(o.ancestors, o.conditions)));
  return items;
}

// Environments: each one's items in turn, each item naming its environment (`environment`,
// beside apiVersion and kind), since one object may be in several with another status.
Json statusItems(const std::vector<const analysis::Analysis*>& analyses) {
  if (analyses.size() == 1 && analyses.front()->environment.empty())
    return statusItems(*analyses.front());
  Json items = Json::array();
  for (const analysis::Analysis* a : analyses) {
    for (Json& item : statusItems(*a)) {
      Json named = {{"environment", a->environment}};
      for (auto& [key, value] : item.items()) named[key] = std::move(value);
      items.push_back(std::move(named));
    }
  }
  return items;
}

}  // namespace

void writeStatusJson(std::ostream& out, const std::vector<const analysis::Analysis*>& analyses) {
  Json doc = {{"items", statusItems(analyses)}};
  out << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

void writeStatusYaml(std::ostream& out, const std::vector<const analysis::Analysis*>& analyses) {
  yaml::Writer w;
  detail::writeYamlValue(w, statusItems(analyses));
  out << w.str();
}

void writeStatusJson(std::ostream& out, const analysis::Analysis& analysis) {
  writeStatusJson(out, std::vector<const analysis::Analysis*>{&analysis});
}

void writeStatusYaml(std::ostream& out, const analysis::Analysis& analysis) {
  writeStatusYaml(out, std::vector<const analysis::Analysis*>{&analysis});
}

}  // namespace pg::report
