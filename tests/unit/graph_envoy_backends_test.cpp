#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "lib/graph/envoy_backends.h"
#include "tests/unit/load_store.h"

using namespace pg;

namespace {

// The refusal of a Backend in namespace default whose spec is `spec` (flow YAML), or "" when
// Envoy Gateway takes it: "reason: message".
// With `ownStatus`, what the Backend's own status says instead (validateEnvoyBackend): the
// checks that do not depend on a route.
std::string refusal(const std::string& spec, bool ownStatus = false) {
  testing::Loaded l = testing::loadStore(
      "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\n"
      "metadata: {name: b, namespace: default}\nspec: " +
      spec + "\n");
  const model::Resource* backend = l.store.find("gateway.envoyproxy.io", "Backend", "default", "b");
  REQUIRE(backend != nullptr);
  std::optional<graph::EnvoyBackendRefusal> r =
      ownStatus ? graph::validateEnvoyBackend(*backend) : graph::checkEnvoyBackend(*backend);
  return r ? std::string(r->reason) + ": " + r->message : std::string();
}

}  // namespace

TEST_CASE("Envoy Gateway takes Backends of reachable addresses of one type") {
  CHECK(refusal("{endpoints: [{ip: {address: 10.1.2.3, port: 80}}]}").empty());
  CHECK(refusal("{endpoints: [{ip: {address: '2001:db8::1', port: 80}}, "
                "{ip: {address: 10.1.2.4, port: 80}}]}")
            .empty());
  CHECK(refusal("{endpoints: [{ip: {address: 'fe80::1%eth0', port: 80}}]}").empty());
  CHECK(refusal("{endpoints: [{fqdn: {hostname: api.example.com, port: 443}}], "
                "tls: {caCertificateRefs: [{name: ca}]}}")
            .empty());
  CHECK(refusal("{endpoints: [{hostname: web-0.example.com, ip: {address: 10.0.0.9, port: 80}}]}")
            .empty());
  CHECK(refusal("{type: DynamicResolver}").empty());
  CHECK(refusal("{type: DynamicResolver, tls: {insecureSkipVerify: true}}").empty());
}

TEST_CASE("Envoy Gateway refuses addresses a Kubernetes Envoy cannot use") {
  CHECK(refusal("{endpoints: [{ip: {address: 127.0.0.1, port: 80}}]}")
            .starts_with("InvalidAddress: IP address 127.0.0.1 in the loopback range"));
  CHECK(refusal("{endpoints: [{ip: {address: 127.45.0.9, port: 80}}]}")
            .starts_with("InvalidAddress: IP address 127.45.0.9 in the loopback range"));
  CHECK(refusal("{endpoints: [{ip: {address: '::1', port: 80}}]}")
            .starts_with("InvalidAddress: IP address ::1 in the loopback range"));
  // Go's netip sees the IPv4 address inside an IPv4-mapped one.
  CHECK(refusal("{endpoints: [{ip: {address: '::ffff:127.0.0.1', port: 80}}]}")
            .starts_with("InvalidAddress: IP address ::ffff:127.0.0.1 in the loopback"));
  CHECK(refusal("{endpoints: [{ip: {address: 10.0.300.1, port: 80}}]}")
            .starts_with("InvalidAddress: IP address \"10.0.300.1\" is invalid"));
  // Leading zeros are not an address to netip.ParseAddr.
  CHECK(refusal("{endpoints: [{ip: {address: 10.0.0.01, port: 80}}]}")
            .starts_with("InvalidAddress: IP address \"10.0.0.01\" is invalid"));
  CHECK(refusal("{endpoints: [{fqdn: {hostname: localhost, port: 80}}]}")
            .starts_with("InvalidAddress: hostname localhost should be a domain with at least "
                         "two segments"));
  CHECK(refusal("{endpoints: [{fqdn: {hostname: 10.0.0.1, port: 80}}]}")
            .starts_with("InvalidAddress: hostname 10.0.0.1 is an IP address"));
  CHECK(refusal("{endpoints: [{fqdn: {hostname: Api.Example.com, port: 80}}]}")
            .starts_with("InvalidAddress: hostname Api.Example.com is not a valid FQDN"));
  CHECK(refusal("{endpoints: [{hostname: web_0, ip: {address: 10.0.0.9, port: 80}}]}")
            .starts_with("InvalidAddress: hostname web_0 is not a valid hostname"));
}

TEST_CASE("Envoy Gateway refuses Unix sockets and mixed address types on a route") {
  CHECK(refusal("{endpoints: [{unix: {path: /run/a.sock}}]}")
            .starts_with("UnsupportedAddressType: Backend default/b has a unix endpoint"));
  CHECK(refusal("{endpoints: [{ip: {address: 10.0.0.1, port: 80}}, {unix: {path: /a.sock}}]}")
            .starts_with("UnsupportedAddressType: Backend default/b has a unix endpoint"));
  CHECK(refusal("{endpoints: [{ip: {address: 10.0.0.1, port: 80}}, "
                "{fqdn: {hostname: a.example.com, port: 80}}]}")
            .starts_with("UnsupportedAddressType: Backend default/b mixes fqdn and ip"));
  // An invalid address is reported before the mix.
  CHECK(refusal("{endpoints: [{fqdn: {hostname: a.example.com, port: 80}}, "
                "{ip: {address: 127.0.0.1, port: 80}}]}")
            .starts_with("InvalidAddress:"));
}

TEST_CASE("Envoy Gateway's own checks of a Backend come before its addresses") {
  CHECK(refusal("{type: DynamicResolver, endpoints: [{fqdn: {hostname: a.example.com, port: 1}}]}")
            .starts_with("InvalidBackendRef: Backend default/b is a DynamicResolver and lists "
                         "endpoints"));
  CHECK(refusal("{type: DynamicResolver, tls: {sni: a.example.com}}")
            .starts_with("InvalidBackendRef: Backend default/b sets tls without a way to "
                         "verify the server"));
  CHECK(refusal("{endpoints: [{ip: {address: 127.0.0.1, port: 1}}], tls: {sni: a.example.com}}")
            .starts_with("InvalidBackendRef:"));
  CHECK(refusal("{type: DynamicResolver, tls: {wellKnownCACertificates: System}}").empty());
}

TEST_CASE("A Backend's own status leaves the address types to the routes that use it") {
  // A Unix socket or mixed address types are refused to a route, not in the Backend's status.
  CHECK(refusal("{endpoints: [{unix: {path: /run/a.sock}}]}", true).empty());
  CHECK(refusal("{endpoints: [{ip: {address: 10.0.0.1, port: 80}}, "
                "{fqdn: {hostname: a.example.com, port: 80}}]}",
                true)
            .empty());
  // What validateBackend refuses is refused in both.
  CHECK(refusal("{endpoints: [{ip: {address: 127.0.0.1, port: 80}}]}", true)
            .starts_with("InvalidAddress: IP address 127.0.0.1 in the loopback range"));
  CHECK(refusal("{endpoints: [{fqdn: {hostname: a.example.com, port: 443}}], tls: {sni: a}}", true)
            .starts_with("InvalidBackendRef: Backend default/b sets tls without a way"));
  CHECK(
      refusal("{endpoints: [{unix: {path: /a.sock}}, {ip: {address: 127.0.0.1, port: 80}}]}", true)
          .starts_with("InvalidAddress: "));
}
