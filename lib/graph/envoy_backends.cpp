#include "lib/graph/envoy_backends.h"

#include <array>
#include <cstdint>
#include <span>

#include "lib/graph/hostname.h"
#include "lib/model/cidr.h"
#include "lib/model/quote.h"

namespace pg::graph {

namespace {

// The reasons route.go's status errors carry (status/error.go).
constexpr std::string_view kInvalidBackendRef = "InvalidBackendRef";
constexpr std::string_view kInvalidAddress = "InvalidAddress";
constexpr std::string_view kUnsupportedAddressType = "UnsupportedAddressType";

// An address as Go's netip.ParseAddr reads it (a zone allowed).
std::optional<model::IpAddress> parseIp(std::string_view text) {
  return model::IpAddress::parse(text, /*zoned=*/true);
}

// backend.go validateHostname, as the translator runs on Kubernetes (not the Host
// infrastructure, where single-label names are allowed).
std::optional<std::string> hostnameProblem(std::string_view hostname, std::string_view typeName) {
  const std::string quoted(hostname);
  if (!isDns1123Subdomain(hostname))
    return "hostname " + quoted + " is not a valid " + std::string(typeName) +
           ": use lower-case RFC 1123 labels joined by dots";
  if (hostname.find('.') == std::string_view::npos)
    return "hostname " + quoted +
           " should be a domain with at least two segments separated by dots: a single-label "
           "name is only resolved on the Host infrastructure; write its fully qualified name";
  if (parseIp(hostname))
    return "hostname " + quoted + " is an IP address: use an ip endpoint for an address";
  return std::nullopt;
}

std::string nameOf(const model::Resource& r) {
  return std::string(r.namespace_) + "/" + std::string(r.name);
}

enum class AddressType : std::uint8_t { None, Ip, Fqdn, Unix };

}  // namespace

std::optional<EnvoyBackendRefusal> checkEndpointSliceTypes(const model::Store& store,
                                                           const model::Resource& service,
                                                           std::int64_t port, bool serviceImport) {
  const std::span<const model::Resource* const> slices = store.ofKind("EndpointSlice");
  if (slices.empty()) return std::nullopt;
  // The port's name and protocol: EndpointSlices name the ports they serve.
  std::string_view portName, portProtocol = "TCP";
  for (yaml::NodeRef p : service.spec().get("ports").items())
    if (p.get("port").asInt() == port) {
      portName = p.get("name").str();
      if (!p.get("protocol").str().empty()) portProtocol = p.get("protocol").str();
      break;
    }
  const std::string_view label =
      serviceImport ? "multicluster.kubernetes.io/service-name" : "kubernetes.io/service-name";
  const model::Resource* ip = nullptr;
  const model::Resource* fqdn = nullptr;
  for (const model::Resource* slice : slices) {
    if (slice->namespace_ != service.namespace_ || slice->label(label) != service.name) continue;
    const yaml::NodeRef node = slice->node;  // EndpointSlice fields are top-level
    bool servesPort = false;
    for (yaml::NodeRef p : node.get("ports").items()) {
      const std::string_view protocol = p.get("protocol").str();
      servesPort =
          servesPort || (p.get("name").str() == portName &&
                         (protocol.empty() ? std::string_view("TCP") : protocol) == portProtocol);
    }
    bool hasAddresses = false;
    for (yaml::NodeRef e : node.get("endpoints").items())
      hasAddresses = hasAddresses || e.get("addresses").size() > 0;
    if (!servesPort || !hasAddresses) continue;
    (node.get("addressType").str() == "FQDN" ? fqdn : ip) = slice;
    if (ip && fqdn)
      return EnvoyBackendRefusal{
          kUnsupportedAddressType,
          "the EndpointSlices of " + std::string(serviceImport ? "ServiceImport " : "Service ") +
              nameOf(service) + " mix FQDN and IP addresses (" + nameOf(*ip) + " and " +
              nameOf(*fqdn) +
              "): mixed endpointslice address type for the same backendRef is not supported; "
              "serve one address type per Service",
          slice->node.get("addressType"), slice};
  }
  return std::nullopt;
}

bool isDynamicResolver(const model::Resource& backend) {
  return backend.spec().get("type").str() == "DynamicResolver";
}

std::optional<EnvoyBackendRefusal> validateEnvoyBackend(const model::Resource& backend) {
  const yaml::NodeRef spec = backend.spec();
  const yaml::NodeRef endpoints = spec.get("endpoints");
  if (isDynamicResolver(backend) && endpoints.size() > 0)
    return EnvoyBackendRefusal{kInvalidBackendRef,
                               "Backend " + nameOf(backend) +
                                   " is a DynamicResolver and lists endpoints: DynamicResolver "
                                   "type cannot have endpoints specified; remove them",
                               endpoints};
  if (const yaml::NodeRef tls = spec.get("tls"); tls && !tls.isNull()) {
    const bool insecure = tls.get("insecureSkipVerify").asBool().value_or(false);
    const bool wellKnown =
        tls.get("wellKnownCACertificates") && !tls.get("wellKnownCACertificates").isNull();
    if (!insecure && !wellKnown && tls.get("caCertificateRefs").size() == 0)
      return EnvoyBackendRefusal{
          kInvalidBackendRef,
          "Backend " + nameOf(backend) +
              " sets tls without a way to verify the server: must specify either "
              "caCertificateRefs or wellKnownCACertificates when insecureSkipVerify is unset "
              "or false",
          tls};
  }
  for (yaml::NodeRef ep : endpoints.items()) {
    if (yaml::NodeRef hostname = ep.get("hostname"); hostname && !hostname.isNull())
      if (auto problem = hostnameProblem(hostname.str(), "hostname"))
        return EnvoyBackendRefusal{kInvalidAddress, std::move(*problem), hostname};
    if (yaml::NodeRef fqdn = ep.get("fqdn"); fqdn && !fqdn.isNull()) {
      yaml::NodeRef host = fqdn.get("hostname");
      if (auto problem = hostnameProblem(host.str(), "FQDN"))
        return EnvoyBackendRefusal{kInvalidAddress, std::move(*problem), host ? host : fqdn};
    } else if (yaml::NodeRef ip = ep.get("ip"); ip && !ip.isNull()) {
      yaml::NodeRef address = ip.get("address");
      const std::optional<model::IpAddress> parsed = parseIp(address.str());
      if (!parsed)
        return EnvoyBackendRefusal{kInvalidAddress,
                                   "IP address " + model::quoted(address.str()) + " is invalid",
                                   address ? address : ip};
      if (parsed->loopback())
        return EnvoyBackendRefusal{
            kInvalidAddress,
            "IP address " + std::string(address.str()) +
                " in the loopback range is only supported when using the Host infrastructure: "
                "on Kubernetes it is the Envoy pod itself",
            address};
    }
  }
  return std::nullopt;
}

std::optional<EnvoyBackendRefusal> checkEnvoyBackend(const model::Resource& backend) {
  if (std::optional<EnvoyBackendRefusal> invalid = validateEnvoyBackend(backend)) return invalid;
  // processBackendDestinationSetting: a route cannot reach a Unix socket of a Kubernetes
  // Envoy, and one destination has one address type.
  const yaml::NodeRef endpoints = backend.spec().get("endpoints");
  AddressType first = AddressType::None;
  bool mixed = false;
  yaml::NodeRef unixEndpoint;
  for (yaml::NodeRef ep : endpoints.items()) {
    AddressType type = AddressType::None;
    if (yaml::NodeRef fqdn = ep.get("fqdn"); fqdn && !fqdn.isNull()) {
      type = AddressType::Fqdn;
    } else if (yaml::NodeRef ip = ep.get("ip"); ip && !ip.isNull()) {
      type = AddressType::Ip;
    } else if (yaml::NodeRef unix = ep.get("unix"); unix && !unix.isNull()) {
      type = AddressType::Unix;
      if (!unixEndpoint) unixEndpoint = unix;
    }
    if (type == AddressType::None) continue;
    if (first == AddressType::None) first = type;
    mixed = mixed || type != first;
  }
  if (unixEndpoint)
    return EnvoyBackendRefusal{kUnsupportedAddressType,
                               "Backend " + nameOf(backend) +
                                   " has a unix endpoint: unix domain sockets are not supported "
                                   "in backend references; use an ip or fqdn endpoint",
                               unixEndpoint};
  if (mixed)
    return EnvoyBackendRefusal{kUnsupportedAddressType,
                               "Backend " + nameOf(backend) +
                                   " mixes fqdn and ip endpoints: mixed FQDN and IP or Unix "
                                   "address type for the same backendRef is not supported; "
                                   "split them into two Backends",
                               endpoints};
  return std::nullopt;
}

}  // namespace pg::graph
