#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// A reference from one namespace into another, as a ReferenceGrant sees it.
struct UsedReference {
  std::string_view fromGroup;
  std::string_view fromKind;
  std::string_view fromNamespace;
  std::string_view toGroup;
  std::string_view toKind;
  std::string_view toNamespace;
  std::string_view toName;
  const model::Resource* source;
  yaml::NodeRef node;
};

// Every cross-namespace reference the topology resolves: route backendRefs (request mirrors
// included) and listener certificateRefs.
std::vector<UsedReference> usedReferences(const graph::Topology& topology) {
  std::vector<UsedReference> out;
  for (const graph::Route& route : topology.routes) {
    const model::Resource& r = *route.resource;
    for (const graph::RouteRule& rule : route.rules)
      for (const graph::BackendRef& b : rule.backends)
        if (b.namespace_ != r.namespace_)
          out.push_back(
              {r.group, r.kind, r.namespace_, b.group, b.kind, b.namespace_, b.name, &r, b.node});
  }
  for (const graph::Gateway& g : topology.gateways) {
    const model::Resource& owner = *g.resource;
    for (const graph::Listener& l : g.listeners) {
      for (yaml::NodeRef ref : l.node.get("tls").get("certificateRefs").items()) {
        yaml::NodeRef ns = ref.get("namespace");
        if (!ns || ns.str() == owner.namespace_) continue;
        yaml::NodeRef kind = ref.get("kind");
        out.push_back({owner.group, owner.kind, owner.namespace_, ref.get("group").str(),
                       kind ? kind.str() : std::string_view("Secret"), ns.str(),
                       ref.get("name").str(), &owner, ref});
      }
    }
  }
  return out;
}

// The kinds whose references policygraph resolves; a grant that also names others may permit
// references it cannot see, so it is never called unused.
bool modelledFromKind(std::string_view group, std::string_view kind) {
  static constexpr std::array<std::string_view, 7> kKinds{
      "Gateway", "ListenerSet", "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"};
  if (group == "gateway.networking.x-k8s.io") return kind == "XListenerSet";
  return group == graph::kGatewayGroup &&
         std::find(kKinds.begin(), kKinds.end(), kind) != kKinds.end();
}

// One `from` or `to` entry of a grant, read once: a grant is matched against every reference
// into its namespace.
struct GrantEntry {
  std::string_view group;
  std::string_view kind;
  std::string_view namespaceOrName;  // `from`: the namespace; `to`: the name ("" for any)
};

std::vector<GrantEntry> readEntries(yaml::NodeRef list, std::string_view third) {
  std::vector<GrantEntry> out;
  out.reserve(list.size());
  for (yaml::NodeRef item : list.items())
    out.push_back({item.get("group").str(), item.get("kind").str(), item.get(third).str()});
  return out;
}

bool fromMatches(const GrantEntry& from, const UsedReference& ref) {
  return from.group == ref.fromGroup && from.kind == ref.fromKind &&
         from.namespaceOrName == ref.fromNamespace;
}

bool toMatches(const GrantEntry& to, const UsedReference& ref) {
  return to.group == ref.toGroup && to.kind == ref.toKind &&
         (to.namespaceOrName.empty() || to.namespaceOrName == ref.toName);
}

template <typename Predicate>
bool anyEntry(const std::vector<GrantEntry>& entries, Predicate predicate) {
  return std::any_of(entries.begin(), entries.end(), predicate);
}

template <typename Describe>
std::string joinItems(yaml::NodeRef list, Describe describe) {
  std::string out;
  for (yaml::NodeRef item : list.items()) {
    if (!out.empty()) out += ", ";
    out += describe(item);
  }
  return out;
}

std::string describeFrom(yaml::NodeRef from) {
  return std::string(from.get("kind").str()) + "s of namespace " +
         std::string(from.get("namespace").str());
}

std::string describeTo(yaml::NodeRef to, std::string_view namespace_) {
  std::string_view name = to.get("name").str();
  if (name.empty()) return "every " + std::string(to.get("kind").str());
  return std::string(to.get("kind").str()) + "/" + std::string(namespace_) + "/" +
         std::string(name);
}

std::string describeUse(const UsedReference& ref) {
  return ref.source->display() + " refers to " + std::string(ref.toKind) + "/" +
         std::string(ref.toNamespace) + "/" + std::string(ref.toName);
}

// Whether the unit holds an object of a `from` entry's kind and namespace: one that could use
// the grant.
bool holdsReferrer(const model::Store& store, const std::vector<GrantEntry>& from) {
  return anyEntry(from, [&](const GrantEntry& f) {
    for (const model::Resource* r : store.ofKind(f.group, f.kind))
      if (r->namespace_ == f.namespaceOrName) return true;
    return false;
  });
}

// The references in use, by the namespace they point into.
using UsesByNamespace = std::unordered_map<std::string_view, std::vector<const UsedReference*>>;

void checkGrant(Context& ctx, const model::Resource& grant, const UsesByNamespace& uses) {
  yaml::NodeRef from = grant.spec().get("from");
  yaml::NodeRef to = grant.spec().get("to");
  if (!from.isSequence() || !to.isSequence() || from.size() == 0 || to.size() == 0) return;
  for (yaml::NodeRef f : from.items())
    if (!modelledFromKind(f.get("group").str(), f.get("kind").str())) return;

  static const std::vector<const UsedReference*> kNone;
  const auto into = uses.find(grant.namespace_);
  const std::vector<const UsedReference*>& inbound = into == uses.end() ? kNone : into->second;
  const std::vector<GrantEntry> fromEntries = readEntries(from, "namespace");
  const std::vector<GrantEntry> toEntries = readEntries(to, "name");
  std::vector<const UsedReference*> fromListed;
  for (const UsedReference* ref : inbound) {
    if (!anyEntry(fromEntries, [&](const GrantEntry& f) { return fromMatches(f, *ref); })) continue;
    if (anyEntry(toEntries, [&](const GrantEntry& t) { return toMatches(t, *ref); }))
      return;  // permits a reference in use
    fromListed.push_back(ref);
  }

  const std::string permits =
      "permits " + joinItems(from, describeFrom) + " to refer to " +
      joinItems(to, [&](yaml::NodeRef t) { return describeTo(t, grant.namespace_); });
  std::string message;
  model::Location where;
  std::vector<const UsedReference*> relatedUses;
  if (!fromListed.empty()) {
    where = grant.locateField(grant.spec(), "to");
    message = grant.display() + " permits nothing in use: it " + permits +
              ", but what those objects use is something else (" +
              describeUse(*fromListed.front()) + "); fix its to entries or delete it";
    relatedUses = fromListed;
  } else {
    // Nothing refers into the namespace, and the unit holds none of the objects the grant lets
    // in: they are another unit's or another repository's (a platform team's grant for the
    // app teams' routes, a docs page showing the grant alone). Nothing says they do not use it.
    if (inbound.empty() && !holdsReferrer(ctx.store(), fromEntries)) return;
    where = grant.locateField(grant.spec(), "from");
    message = grant.display() + " permits nothing in use: it " + permits +
              ", but no such object refers to anything in namespace " +
              std::string(grant.namespace_);
    if (!inbound.empty()) {
      message +=
          " (references into the namespace come from elsewhere: " + describeUse(*inbound.front()) +
          ")";
      relatedUses = inbound;
    }
    message += "; fix its from entries or delete it";
  }
  model::Finding& f = ctx.report(std::move(where), std::move(message), &grant);
  for (const UsedReference* ref : relatedUses)
    f.related.push_back({ref->source->locate(ref->node), describeUse(*ref)});
}

void check(Context& ctx) {
  const std::vector<UsedReference> used = usedReferences(ctx.analysis().topology);
  UsesByNamespace uses;
  for (const UsedReference& ref : used) uses[ref.toNamespace].push_back(&ref);
  for (const model::Resource* grant : ctx.store().ofKind(graph::kGatewayGroup, "ReferenceGrant"))
    checkGrant(ctx, *grant, uses);
}

}  // namespace

PG_RULE(GW205, "unused-reference-grant", "gateway", Warning,
        "A ReferenceGrant permits no reference that is in use", "ReferenceGrant", check)

}  // namespace pg::rules
