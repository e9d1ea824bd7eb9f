#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pg::model {

// An IP address as Go's netip.ParseAddr reads it: dotted IPv4 without leading zeros, or IPv6,
// with a zone (`fe80::1%eth0`) only when `zoned` allows one. The one parser of addresses every
// stage uses; each applies its own rules on top (Kubernetes' CEL ip() refuses IPv4-mapped IPv6
// addresses, Envoy Gateway asks whether an address is a loopback one).
struct IpAddress {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};  // IPv4 uses the first 4
  bool zoned = false;                    // an IPv6 zone was written (and dropped)

  static std::optional<IpAddress> parse(std::string_view text, bool zoned = false);
  bool mappedV4() const;  // an IPv6 address of the form ::ffff:a.b.c.d
  bool loopback() const;  // 127.0.0.0/8 or ::1, through an IPv4-mapped form too
};

// An IP network, `addr/len`, IPv4 or IPv6. A bare address is a /32 or /128 network. The
// address keeps the bits it was written with (10.0.0.1/8 stays so); `contains` and `network()`
// compare by prefix.
struct Cidr {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};  // IPv4 uses the first 4
  unsigned length = 0;

  static std::optional<Cidr> parse(std::string_view text);
  std::string str() const;
  Cidr network() const;  // host bits cleared
  bool contains(const Cidr& other) const;
  bool operator==(const Cidr& other) const = default;
};

}  // namespace pg::model
