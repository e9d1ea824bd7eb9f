// Linkerd's authentications and networks: identity matches, service account identities,
// network lists with exceptions, and the CRD's protocols.
#include "lib/policy/linkerd/inbound.h"

namespace pg::policy::linkerd {

std::string_view authenticationName(AuthenticationKind kind) {
  switch (kind) {
    case AuthenticationKind::Unauthenticated:
      return "unauthenticated";
    case AuthenticationKind::TlsUnauthenticated:
      return "tlsUnauthenticated";
    case AuthenticationKind::TlsAuthenticated:
      return "tlsAuthenticated";
  }
  return "unauthenticated";
}

IdentityMatch parseIdentity(std::string_view text) {
  IdentityMatch m;
  if (text == "*") {
    m.exact = false;
    return m;
  }
  if (text.starts_with("*.")) {
    m.exact = false;
    text.remove_prefix(2);
    while (true) {
      std::size_t dot = text.find('.');
      m.suffix.emplace_back(text.substr(0, dot));
      if (dot == std::string_view::npos) break;
      text.remove_prefix(dot + 1);
    }
    return m;
  }
  m.name = std::string(text);
  return m;
}

std::string serviceAccountIdentity(std::string_view name, std::string_view namespace_,
                                   const config::LinkerdSettings& settings) {
  return std::string(name) + "." + std::string(namespace_) + ".serviceaccount.identity." +
         settings.controlPlaneNamespace + "." + settings.identityDomain;
}

std::vector<Network> readNetworks(yaml::NodeRef networks, std::vector<Problem>* problems) {
  std::vector<Network> out;
  for (yaml::NodeRef item : networks.items()) {
    yaml::NodeRef cidrNode = item.get("cidr");
    std::optional<model::Cidr> cidr = model::Cidr::parse(cidrNode.str());
    if (!cidr) {
      if (problems)
        problems->push_back({cidrNode ? cidrNode : item,
                             "\"" + std::string(cidrNode.str()) +
                                 "\" is not a CIDR: write an address with a prefix length "
                                 "(10.0.0.0/8) or a bare address"});
      continue;
    }
    Network n{*cidr, {}};
    for (yaml::NodeRef e : item.get("except").items()) {
      std::optional<model::Cidr> except = model::Cidr::parse(e.str());
      if (!except) {
        if (problems)
          problems->push_back({e, "except entry \"" + std::string(e.str()) +
                                      "\" is not a CIDR: write an address with a prefix length"});
        continue;
      }
      if (problems && except->contains(*cidr))
        problems->push_back({e, "except entry " + except->str() + " covers the whole network " +
                                    cidr->str() +
                                    ", which leaves nothing: remove the network "
                                    "entry, or except a smaller part of it"});
      else if (problems && !cidr->contains(*except))
        problems->push_back(
            {e, "except entry " + except->str() + " is not inside the network " + cidr->str() +
                    ": an exception must be a part of its network; widen the cidr or fix the "
                    "exception"});
      n.except.push_back(*except);
    }
    out.push_back(std::move(n));
  }
  return out;
}

std::optional<std::string> protocolOf(yaml::NodeRef proxyProtocol) {
  if (!proxyProtocol || proxyProtocol.isNull()) return std::string("Detect");
  std::string_view p = proxyProtocol.str();
  if (p == "unknown") return std::string("Detect");
  if (p == "HTTP/1" || p == "HTTP/2" || p == "gRPC" || p == "TLS") return std::string(p);
  if (p == "opaque") return std::string("Opaque");
  return std::nullopt;
}

}  // namespace pg::policy::linkerd
