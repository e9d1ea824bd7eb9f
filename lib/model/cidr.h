#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pg::model {

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
