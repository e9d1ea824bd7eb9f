// Linkerd's admission webhook (`admission.rs`) and the CRD schemas, offline.
#include "lib/policy/linkerd/admission.h"

#include <cctype>

#include "lib/model/placeholder.h"
#include "lib/policy/linkerd/strings.h"

namespace pg::policy::linkerd {

namespace {

constexpr auto same = detail::equalsIgnoringCase;

// The group a ref names: absent and "core" are the core group.
std::string_view groupOf(yaml::NodeRef ref) {
  std::string_view g = ref.get("group").str();
  return g == "core" ? std::string_view() : g;
}

bool refIs(yaml::NodeRef ref, std::string_view group, std::string_view kind) {
  return same(groupOf(ref), group) && same(ref.get("kind").str(), kind);
}

bool dnsLabel(std::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(label.front()) || !alnum(label.back())) return false;
  for (char c : label)
    if (!alnum(c) && c != '-') return false;
  return true;
}

bool spiffeId(std::string_view rest) {
  std::size_t slash = rest.find('/');
  std::string_view domain = rest.substr(0, slash);
  if (domain.empty()) return false;
  for (char c : domain)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
      return false;
  if (slash == std::string_view::npos) return true;
  std::string_view path = rest.substr(slash);
  while (!path.empty()) {
    path.remove_prefix(1);  // the '/'
    std::size_t next = path.find('/');
    std::string_view segment = path.substr(0, next);
    if (segment.empty() || segment == "." || segment == "..") return false;
    for (char c : segment)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_')
        return false;
    if (next == std::string_view::npos) break;
    path.remove_prefix(next);
  }
  return true;
}

constexpr const char* kIdentitiesTogether =
    "a MeshTLSAuthentication and a ServiceAccount may not be required together: name the "
    "ServiceAccount in the MeshTLSAuthentication";

void add(std::vector<Problem>& out, yaml::NodeRef at, std::string message) {
  out.push_back({at, std::move(message), true});
}

// The problems whose value is known: a value that holds a placeholder (`{IPv6}/128`, `${CIDR}`)
// is replaced before apply, so what the webhook sees there is unknown, and refuses nothing.
std::vector<Problem> known(std::vector<Problem> problems) {
  std::erase_if(problems, [](const Problem& p) {
    return p.at.isScalar() && model::holdsPlaceholder(p.at.str());
  });
  return problems;
}

}  // namespace

bool validIdentity(std::string_view id) {
  if (id.starts_with("spiffe://")) return spiffeId(id.substr(9));
  bool first = true;
  while (true) {
    std::size_t dot = id.find('.');
    std::string_view label = id.substr(0, dot);
    if (!(first && label == "*") && !dnsLabel(label)) return false;
    first = false;
    if (dot == std::string_view::npos) return true;
    id.remove_prefix(dot + 1);
  }
}

std::vector<Problem> refuseAuthorizationPolicy(const model::Resource& policy) {
  std::vector<Problem> out;
  yaml::NodeRef spec = policy.spec();
  yaml::NodeRef target = spec.get("targetRef");
  if (!target.isMapping()) {
    add(out, target ? target : spec,
        "an AuthorizationPolicy needs a targetRef: a Server, an HTTPRoute, a GRPCRoute or its "
        "own Namespace");
  } else if (refIs(target, "", "Namespace")) {
    if (target.get("name").str() != policy.namespace_)
      add(out, target.get("name"),
          "an AuthorizationPolicy cannot target another Namespace (" +
              std::string(target.get("name").str()) + "): target " +
              std::string(policy.namespace_) + ", or move the policy there");
  } else if (!refIs(target, kPolicyGroup, "Server") && !refIs(target, kPolicyGroup, "HTTPRoute") &&
             !refIs(target, graph::kGatewayGroup, "HTTPRoute") &&
             !refIs(target, graph::kGatewayGroup, "GRPCRoute")) {
    add(out, target.get("kind") ? target.get("kind") : target,
        "invalid targetRef kind " + std::string(groupOf(target)) +
            (groupOf(target).empty() ? "" : "/") + std::string(target.get("kind").str()) +
            ": target a Server or HTTPRoute (policy.linkerd.io), an HTTPRoute or GRPCRoute "
            "(gateway.networking.k8s.io), or the policy's own Namespace");
  }
  yaml::NodeRef refs = spec.get("requiredAuthenticationRefs");
  if (!refs.isSequence()) {
    add(out, refs ? refs : spec,
        "an AuthorizationPolicy needs requiredAuthenticationRefs (the CRD requires it; an empty "
        "list allows every client)");
    return out;
  }
  int mesh = 0, accounts = 0, networks = 0;
  for (yaml::NodeRef ref : refs.items()) {
    if (refIs(ref, kPolicyGroup, "MeshTLSAuthentication")) {
      if (++mesh == 2)
        add(out, ref,
            "only one MeshTLSAuthentication may be required: merge their identities "
            "into one");
      if (accounts) add(out, ref, kIdentitiesTogether);
    } else if (refIs(ref, "", "ServiceAccount")) {
      if (++accounts == 2)
        add(out, ref,
            "only one ServiceAccount may be required: use a MeshTLSAuthentication "
            "with identityRefs for several");
      if (mesh) add(out, ref, kIdentitiesTogether);
    } else if (refIs(ref, kPolicyGroup, "NetworkAuthentication")) {
      if (++networks == 2)
        add(out, ref,
            "only one NetworkAuthentication may be required: merge their networks "
            "into one");
    } else {
      add(out, ref.get("kind") ? ref.get("kind") : ref,
          "unsupported authentication kind " + std::string(ref.get("kind").str()) +
              ": require a MeshTLSAuthentication, a NetworkAuthentication "
              "(policy.linkerd.io) or a ServiceAccount");
    }
  }
  return known(std::move(out));
}

std::vector<Problem> refuseMeshTlsAuthentication(const model::Resource& authentication) {
  std::vector<Problem> out;
  yaml::NodeRef spec = authentication.spec();
  yaml::NodeRef ids = spec.get("identities");
  yaml::NodeRef refs = spec.get("identityRefs");
  if (static_cast<bool>(ids) == static_cast<bool>(refs))
    add(out, ids ? spec.keyNode("identityRefs") : spec,
        ids ? "a MeshTLSAuthentication takes identities or identityRefs, not both: keep one"
            : "a MeshTLSAuthentication needs identities or identityRefs (exactly one of them)");
  for (yaml::NodeRef id : ids.items())
    if (!validIdentity(id.str()))
      add(out, id,
          "identity \"" + std::string(id.str()) +
              "\" is neither DNS-like (`*`, `*.ns.serviceaccount.identity.linkerd."
              "cluster.local`, lowercase labels) nor a SPIFFE ID (spiffe://domain/path)");
  for (yaml::NodeRef ref : refs.items()) {
    if (refIs(ref, "", "ServiceAccount")) continue;
    if (refIs(ref, "", "Namespace")) {
      if (ref.get("namespace"))
        add(out, ref.get("namespace"),
            "a Namespace identityRef is cluster-scoped and cannot have a namespace: remove it");
      continue;
    }
    add(out, ref.get("kind") ? ref.get("kind") : ref,
        "invalid identityRef kind " + std::string(ref.get("kind").str()) +
            ": name a ServiceAccount or a Namespace");
  }
  return known(std::move(out));
}

std::vector<Problem> refuseNetworks(const model::Resource& object) {
  std::vector<Problem> out;
  yaml::NodeRef spec = object.spec();
  yaml::NodeRef networks = object.kind == "NetworkAuthentication"
                               ? spec.get("networks")
                               : spec.get("client").get("networks");
  if (object.kind == "NetworkAuthentication" && networks.size() == 0)
    add(out, networks ? networks : spec,
        "a NetworkAuthentication needs at least one network (cidr, optional except)");
  readNetworks(networks, &out);
  return known(std::move(out));
}

std::vector<Problem> refuseServer(const model::Resource& server) {
  std::vector<Problem> out;
  yaml::NodeRef spec = server.spec();
  if (yaml::NodeRef p = spec.get("proxyProtocol"); p && !protocolOf(p))
    add(out, p,
        "unknown proxyProtocol \"" + std::string(p.str()) +
            "\": use unknown, HTTP/1, HTTP/2, gRPC, opaque or TLS");
  if (yaml::NodeRef a = spec.get("accessPolicy"); a && !config::isLinkerdDefaultPolicy(a.str()))
    add(out, a,
        "unknown accessPolicy \"" + std::string(a.str()) +
            "\": use deny, audit, all-unauthenticated, all-authenticated, "
            "cluster-unauthenticated or cluster-authenticated");
  return known(std::move(out));
}

std::vector<Problem> refuseServerAuthorization(const model::Resource& authorization) {
  std::vector<Problem> out;
  yaml::NodeRef client = authorization.spec().get("client");
  yaml::NodeRef mesh = client.get("meshTLS");
  if (mesh) {
    if (client.get("unauthenticated").asBool().value_or(false))
      add(out, client.get("unauthenticated"),
          "unauthenticated must be false when meshTLS is set: keep one of them");
    yaml::NodeRef tls = mesh.get("unauthenticatedTLS");
    if (tls.asBool().value_or(false) &&
        mesh.get("identities").size() + mesh.get("serviceAccounts").size() > 0)
      add(out, tls,
          "unauthenticatedTLS must be false when identities or serviceAccounts are set: "
          "remove it, or remove the identities");
  }
  return known(std::move(out));
}

std::vector<Problem> refuseRoute(const model::Resource& route) {
  std::vector<Problem> out;
  std::optional<graph::RouteKind> kind = graph::routeKindOf(route.kind);
  yaml::NodeRef rules = route.spec().get("rules");
  if (kind == graph::RouteKind::TCP || kind == graph::RouteKind::TLS) {
    if (route.group == graph::kGatewayGroup && rules.size() != 1)
      add(out, rules ? rules : route.spec(),
          std::string(route.kind) + "s take exactly one rule under Linkerd (this one has " +
              std::to_string(rules.size()) + "): split it into one route per rule");
    return out;
  }
  if (kind != graph::RouteKind::HTTP && kind != graph::RouteKind::GRPC) return out;
  if (std::optional<Problem> problem = ruleProblem(route, kind == graph::RouteKind::GRPC);
      problem && problem->refused)
    out.push_back(std::move(*problem));
  if (route.group != graph::kGatewayGroup) return out;
  for (yaml::NodeRef rule : rules.items())
    for (yaml::NodeRef b : rule.get("backendRefs").items()) {
      const yaml::NodeRef kind = b.get("kind");
      bool service = groupOf(b).empty() && (!kind || kind.str() == "Service");
      if (service && b.get("port").asInt().value_or(0) == 0)
        add(out, b, "a Service backendRef needs a port: add the Service port to send to");
    }
  return known(std::move(out));
}

bool linkerdInstalled(const model::Store& store) {
  // By kind, not by scanning the store: rules ask once per route.
  for (std::string_view kind : {"Server", "ServerAuthorization", "AuthorizationPolicy",
                                "MeshTLSAuthentication", "NetworkAuthentication"})
    for (const model::Resource* r : store.ofKind(kind))
      if (r->group == kPolicyGroup) return true;
  return false;
}

}  // namespace pg::policy::linkerd
