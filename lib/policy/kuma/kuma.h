// Kuma targetRef policies: which policies select a proxy (the top-level targetRef and the
// namespace MADR), Kuma's order among them, and the rules Kuma builds from them per proxy:
// `from` rules per inbound (tag subsets with negations), `to` rules (tag subsets) and resource
// rules (per MeshService, Mesh, ...), inbound rules (`rules:`), and the proxy rule (`default:`).
// Every Kuma policy semantic lives in this folder.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/graph/kuma.h"
#include "lib/model/store.h"
#include "lib/policy/kuma/conf.h"

namespace pg::policy::kuma {

using graph::kuma::Tags;

// Roles of the namespace MADR, in Kuma's order (a later role wins).
enum class Role { System, Producer, Consumer, WorkloadOwner };
std::string_view roleName(Role role);

struct TargetRef {
  bool present = false;
  std::string_view kind;  // "Mesh" when the targetRef is absent (syntactic sugar)
  std::string_view name;
  std::string_view namespace_;
  std::string_view sectionName;
  Tags tags;
  Tags labels;
  yaml::NodeRef node;
};

// One `to`, `from` or `rules` entry, or the top-level `default`.
struct Item {
  TargetRef ref;            // unset for `rules` entries and the top-level default
  yaml::NodeRef conf;       // `default:` (MeshHTTPRoute/MeshTCPRoute: the entry without targetRef)
  std::size_t index = 0;    // position in its list
  bool wholeEntry = false;  // `conf` is the whole entry (routes), targetRef left out
};

struct Policy {
  const model::Resource* resource = nullptr;
  std::string_view type;
  TargetRef top;
  std::vector<Item> to, from, rules;
  std::optional<Item> single;  // spec.default
  Role role = Role::System;
  bool fromGlobal = false;       // kuma.io/origin: global
  bool fromZone = false;         // kuma.io/origin: zone
  std::string_view namespace_;   // k8s.kuma.io/namespace (Kubernetes form: metadata.namespace)
  std::string_view zone;         // kuma.io/zone
  std::string_view displayName;  // kuma.io/display-name, else the name
};

struct Settings {
  std::string systemNamespace = "kuma-system";
};

// Every targetRef policy of a mesh: kuma.io objects with `spec.targetRef`, `to`, `from`,
// `rules` or `default`, other than the topology kinds.
std::vector<Policy> readPolicies(const model::Store& store, std::string_view mesh,
                                 const Settings& settings);

// Kuma's order: targetRef kind (Mesh < Dataplane < MeshSubset < MeshGateway < MeshService <
// MeshExternalService < MeshMultiZoneService < MeshServiceSubset < MeshHTTPRoute), then origin
// (global before zone), then role, then display name descending (the smaller name is applied
// last and wins).
// Among policies whose top-level targetRef is a MeshGateway, the fewer listener tags first
// (after origin, before role).
bool lessByTargetRef(const Policy& a, const Policy& b);
// The same without the MeshGateway tag count: the order of the items of resource rules.
bool lessByPolicyAttributes(const Policy& a, const Policy& b);

// What Kuma inspects: a dataplane, or the one Kuma makes up for a MeshGateway (the gateway's
// meta, its first selector's tags, its listeners).
struct Proxy {
  const model::Resource* resource = nullptr;  // the Dataplane or the MeshGateway
  const graph::kuma::Dataplane* dataplane = nullptr;
  const graph::kuma::MeshGateway* gateway = nullptr;  // the builtin gateway it runs
  Tags gatewayTags;
};

struct Listener {
  std::string_view name;
  std::string_view address;
  std::int64_t port = 0;
  const Tags* tags = nullptr;  // an inbound's tags; a gateway listener's: the proxy's gateway tags
  bool gateway = false;        // a builtin gateway's listener
};

// Which listeners (inbounds, or a builtin gateway's listeners) a policy's top-level targetRef
// selects on a proxy, and whether it selects the proxy at all.
struct Selection {
  std::vector<std::size_t> listeners;  // indexes into listenersOf(proxy)
  bool selected = false;
};
std::vector<Listener> listenersOf(const Proxy& proxy);
// Legacy (pre-targetRef) policies with top-level `selectors`: whether one selects a dataplane
// (some selector's `match` matches the tags of one of its inbounds, or its gateway's).
bool legacySelects(const model::Resource& policy, const graph::kuma::Dataplane& dataplane);
Selection select(const Policy& policy, const Proxy& proxy, const std::vector<Policy>& policies,
                 const Settings& settings);

struct Tag {
  std::string key, value;
  bool negated = false;
  bool operator==(const Tag&) const = default;
};
using Subset = std::vector<Tag>;
// `key=value, key!=value`, or "everything" for the empty subset.
std::string subsetText(const Subset& subset);

struct SubsetRule {
  Subset subset;
  Conf conf;
  std::vector<const Policy*> origin;
};

struct RuleOrigin {
  const Policy* policy = nullptr;
  std::size_t ruleIndex = 0;
};

struct ResourceRule {
  const model::Resource* resource = nullptr;
  std::string section;
  std::vector<Conf> conf;
  std::vector<RuleOrigin> origin;
};

struct FromRules {
  Listener listener;
  std::vector<SubsetRule> rules;
};

struct InboundRules {
  Listener listener;
  struct Rule {
    std::vector<Conf> conf;
    std::vector<RuleOrigin> origin;
  };
  std::vector<Rule> rules;
};

struct ProxyRule {
  Conf conf;
  std::vector<const Policy*> origin;
};

// A `to` item with one resource it names.
struct TargetedItem {
  const Policy* policy = nullptr;
  const Item* item = nullptr;
  const model::Resource* resource = nullptr;
  std::string section;
};

struct TypeRules {
  std::string type;
  std::vector<TargetedItem> targeted;  // every `to` item per resource, in policy order
  std::vector<const Policy*> matched;  // in Kuma's order
  std::vector<SubsetRule> toRules;
  std::vector<ResourceRule> toResourceRules;
  std::vector<FromRules> fromRules;
  std::vector<InboundRules> inboundRules;
  std::optional<ProxyRule> proxyRule;
};

// Tag-subset rules from items (Kuma's BuildRules): the sources split into the subsets each
// combination of the items' tags (with negations) defines, per maximal clique of intersecting
// items, each with the merge of the items that cover it.
// `withNegations` (from rules) always splits by cliques; `to` rules over at most one tag key
// are one rule per distinct subset instead.
std::vector<SubsetRule> buildSubsetRules(
    const std::vector<std::pair<const Policy*, const Item*>>& items, bool withNegations);
struct SubsetItem {
  const Policy* policy = nullptr;
  const Item* item = nullptr;
  Subset subset;
};
std::vector<SubsetRule> buildSubsetRules(const std::vector<SubsetItem>& items, bool withNegations);
// The `to` items of matched policies with their subsets; a policy whose top-level targetRef
// is a MeshHTTPRoute applies per rule of the route: the rule's destination and
// `__rule-matches-hash__` of its matches.
// The `matches` of each rule of a route's `to` item that has them.
std::vector<Conf> routeMatches(const Policy& route, const Item& item);
std::vector<SubsetItem> toSubsetItems(const std::vector<const Policy*>& matched,
                                      const std::vector<Policy>& policies);
// The subset an item's targetRef stands for; nullopt for kinds that are not tag sets.
std::optional<Subset> subsetOf(const TargetRef& ref);

// Every policy type's rules on one proxy, sorted by type.
std::vector<TypeRules> buildProxyRules(const Proxy& proxy, const std::vector<Policy>& policies,
                                       const model::Store& store,
                                       const graph::kuma::Topology& topology,
                                       const Settings& settings);

// The resources a `to` item's targetRef names, with the section.
struct ResolvedTarget {
  const model::Resource* resource = nullptr;
  std::string section;
};
std::vector<ResolvedTarget> resolveTo(const Policy& policy, const TargetRef& ref,
                                      const model::Store& store,
                                      const graph::kuma::Topology& topology);

// The rule for one resource (and section): the `to` items that name it, the whole resource or
// the mesh, merged from the least specific to the most (then in policy order).
ResourceRule resourceRule(const TypeRules& rules, const model::Resource* resource,
                          std::string_view section);

// The rules of a route type (MeshHTTPRoute, MeshTCPRoute) on one resource: every `to` item
// naming it, in order; HTTP rules with equal `matches` merge (the later route is their origin),
// others append; TCP rules merge into one, with no single origin.
struct RouteRule {
  std::optional<Conf> matches;
  Conf conf;                       // the rule's `default`
  const Policy* origin = nullptr;  // null when merged from several routes (TCP)
};
std::vector<RouteRule> routeRules(const TypeRules& rules, const model::Resource* resource,
                                  std::string_view section,
                                  std::vector<const Policy*>* origins = nullptr);

// base64(sha256(compact JSON of a MeshHTTPRoute rule's `matches`, Go's field order)): the value
// Kuma names the rule by (`__rule-matches-hash__`).
std::string matchesHash(const Conf& matches);
struct HttpMatch {
  std::string hash;
  Conf matches;
};
// Every distinct `matches` of the MeshHTTPRoutes selecting a proxy.
std::vector<HttpMatch> httpMatches(const std::vector<TypeRules>& rules);

// The short name of a type in a KRI (`mt` MeshTimeout, `msvc` MeshService...).
std::string_view kriShortName(std::string_view type);
// kri_<short>_<mesh>_<zone>_<namespace>_<display name>_<section>
std::string kriOf(const model::Resource& resource, std::string_view section = {});
// A MeshService's KRI; one Kuma generates from a Kubernetes Service is `msvc` in the Service's
// mesh and namespace, named after it.
std::string kriOf(const graph::kuma::MeshService& service, std::string_view section = {});
// The MeshService Kuma generates from `resource` (a Kubernetes Service), if it is one.
const graph::kuma::MeshService* derivedService(const graph::kuma::Topology& topology,
                                               const model::Resource& resource);

// An item's conf as a value (an empty object when it has none).
Conf itemConf(const Policy& policy, const Item& item);
// The merge of confs of a policy type in order, normalised: route types merge their `rules` by
// matches (mergeRoutes), every other type as merge patches.
Conf mergedConf(std::string_view type, const std::vector<const Conf*>& confs);
// The same as a list: MeshHTTPRoute confs merge per hostname (Kuma's `mergeValues` on
// `hostnames`: one conf per distinct hostname, in order of first appearance, a conf without
// hostnames in the group ""); every other type gives one conf.
std::vector<Conf> mergedConfs(std::string_view type, const std::vector<const Conf*>& confs);
// Route confs (MeshHTTPRoute, MeshTCPRoute): `rules` entries with equal matches merge and move
// to the end; HTTP rules are taken in reverse and the result reversed back. `ruleOrigins`, when
// given, receives the policy (from `origins`, one per conf) whose entry each rule last took.
Conf mergeRoutes(std::string_view type, const std::vector<const Conf*>& confs,
                 const std::vector<const Policy*>& origins,
                 std::vector<const Policy*>* ruleOrigins);
// A conf with Kuma's normalisation applied (a copy).
Conf normalized(Conf conf, std::string_view type);
// The merge of a list of confs, in order.
Conf mergeAll(const std::vector<const Conf*>& confs);

}  // namespace pg::policy::kuma
