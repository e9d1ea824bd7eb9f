#include <algorithm>
#include <array>

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

bool fromMatches(yaml::NodeRef from, const UsedReference& ref) {
  return from.get("group").str() == ref.fromGroup && from.get("kind").str() == ref.fromKind &&
         from.get("namespace").str() == ref.fromNamespace;
}

bool toMatches(yaml::NodeRef to, const UsedReference& ref) {
  std::string_view name = to.get("name").str();
  return to.get("group").str() == ref.toGroup && to.get("kind").str() == ref.toKind &&
         (name.empty() || name == ref.toName);
}

template <typename Predicate>
bool anyItem(yaml::NodeRef list, Predicate predicate) {
  for (yaml::NodeRef item : list.items())
    if (predicate(item)) return true;
  return false;
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

void checkGrant(Context& ctx, const model::Resource& grant,
                const std::vector<UsedReference>& used) {
  yaml::NodeRef from = grant.spec().get("from");
  yaml::NodeRef to = grant.spec().get("to");
  if (!from.isSequence() || !to.isSequence() || from.size() == 0 || to.size() == 0) return;
  for (yaml::NodeRef f : from.items())
    if (!modelledFromKind(f.get("group").str(), f.get("kind").str())) return;

  std::vector<const UsedReference*> inbound, fromListed;
  for (const UsedReference& ref : used) {
    if (ref.toNamespace != grant.namespace_) continue;
    inbound.push_back(&ref);
    if (!anyItem(from, [&](yaml::NodeRef f) { return fromMatches(f, ref); })) continue;
    if (anyItem(to, [&](yaml::NodeRef t) { return toMatches(t, ref); }))
      return;  // permits a reference in use
    fromListed.push_back(&ref);
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
  for (const model::Resource* grant : ctx.store().ofKind(graph::kGatewayGroup, "ReferenceGrant"))
    checkGrant(ctx, *grant, used);
}

}  // namespace

PG_RULE(GW205, "unused-reference-grant", "gateway", Warning,
        "A ReferenceGrant permits no reference that is in use", "ReferenceGrant", check)

}  // namespace pg::rules
