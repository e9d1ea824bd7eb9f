#include "lib/model/cidr.h"

#include <arpa/inet.h>

#include <cstdio>

namespace pg::model {

std::optional<Cidr> Cidr::parse(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string address(text);
  std::optional<unsigned> length;
  if (auto slash = address.find('/'); slash != std::string::npos) {
    std::string digits = address.substr(slash + 1);
    address.resize(slash);
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    unsigned n = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + static_cast<unsigned>(c - '0');
    }
    length = n;
  }
  const std::optional<IpAddress> ip = IpAddress::parse(address);
  if (!ip) return std::nullopt;
  Cidr out;
  out.v6 = ip->v6;
  out.bytes = ip->bytes;
  out.length = length.value_or(ip->v6 ? 128 : 32);
  if (out.length > (ip->v6 ? 128u : 32u)) return std::nullopt;
  return out;
}

std::optional<IpAddress> IpAddress::parse(std::string_view text, bool zoned) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string address(text);
  IpAddress out;
  if (address.find(':') == std::string::npos) {
    if (inet_pton(AF_INET, address.c_str(), out.bytes.data()) != 1) return std::nullopt;
    return out;
  }
  if (const std::size_t zone = address.find('%'); zone != std::string::npos) {
    if (!zoned || zone + 1 == address.size()) return std::nullopt;  // none allowed, or empty
    address.resize(zone);
    out.zoned = true;
  }
  if (inet_pton(AF_INET6, address.c_str(), out.bytes.data()) != 1) return std::nullopt;
  out.v6 = true;
  return out;
}

bool IpAddress::mappedV4() const {
  if (!v6 || bytes[10] != 0xff || bytes[11] != 0xff) return false;
  for (std::size_t i = 0; i < 10; ++i)
    if (bytes[i] != 0) return false;
  return true;
}

bool IpAddress::loopback() const {
  if (!v6) return bytes[0] == 127;
  if (mappedV4()) return bytes[12] == 127;
  for (std::size_t i = 0; i < 15; ++i)
    if (bytes[i] != 0) return false;
  return bytes[15] == 1;
}

std::string Cidr::str() const {
  char buffer[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buffer, sizeof buffer);
  return std::string(buffer) + "/" + std::to_string(length);
}

Cidr Cidr::network() const {
  Cidr out = *this;
  const unsigned bits = v6 ? 128 : 32;
  for (unsigned i = length; i < bits; ++i)
    out.bytes[i / 8] &= static_cast<std::uint8_t>(~(0x80u >> (i % 8)));
  return out;
}

bool Cidr::contains(const Cidr& other) const {
  if (v6 != other.v6 || other.length < length) return false;
  for (unsigned i = 0; i < length; ++i) {
    const unsigned mask = 0x80u >> (i % 8);
    if ((bytes[i / 8] & mask) != (other.bytes[i / 8] & mask)) return false;
  }
  return true;
}

}  // namespace pg::model
