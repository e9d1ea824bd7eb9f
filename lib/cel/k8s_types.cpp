// The Kubernetes CEL libraries' IP, CIDR, URL and quantity types, as the apiserver defines
// them: an IP is IPv4 in dotted decimal without leading zeros or IPv6 without a zone, never an
// IPv4-mapped IPv6 address; a URL is what Go's url.ParseRequestURI accepts (an absolute URL or
// an absolute path); a quantity is what resource.ParseQuantity accepts ("500m", "1Gi", "2e3").

#include "lib/cel/k8s_types.h"

#include <arpa/inet.h>

#include <array>
#include <cmath>
#include <cstring>

#include "lib/cel/heap.h"
#include "lib/model/ascii.h"
#include "lib/model/cidr.h"

namespace pg::cel::detail {

using K = Value::Kind;

namespace {

struct Address {
  int family = 4;
  std::array<unsigned char, 16> bytes{};  // IPv4 in the first 4
  std::size_t size() const { return family == 4 ? 4 : 16; }
  bool operator==(const Address& o) const {
    return family == o.family && std::memcmp(bytes.data(), o.bytes.data(), size()) == 0;
  }
};

// Kubernetes' ip() and cidr(): netip's parsing without zones, IPv4-mapped IPv6 refused.
std::optional<Address> parseAddress(std::string_view text) {
  const std::optional<model::IpAddress> ip = model::IpAddress::parse(text);
  if (!ip || ip->mappedV4()) return std::nullopt;
  Address a;
  a.family = ip->v6 ? 6 : 4;
  std::copy(ip->bytes.begin(), ip->bytes.end(), a.bytes.begin());
  return a;
}

std::string formatAddress(const Address& a) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(a.family == 4 ? AF_INET : AF_INET6, a.bytes.data(), buf, sizeof buf);
  return buf;
}

struct IpHeap final : OpaqueHeap {
  explicit IpHeap(Address a) : address(a) {}
  Address address;
  std::string_view typeName() const override { return "net.IP"; }
  bool equals(const OpaqueHeap& o) const override {
    return address == static_cast<const IpHeap&>(o).address;
  }
  std::string text() const override { return formatAddress(address); }
};

struct Prefix {
  Address address;
  int length = 0;
  Address masked() const {
    Address m = address;
    for (std::size_t i = 0; i < m.size(); ++i) {
      int bits = length - static_cast<int>(i) * 8;
      if (bits >= 8) continue;
      m.bytes[i] = bits <= 0 ? 0 : static_cast<unsigned char>(m.bytes[i] & (0xFF << (8 - bits)));
    }
    return m;
  }
  bool contains(const Address& a) const {
    if (a.family != address.family) return false;
    Prefix p{a, length};
    return p.masked() == masked();
  }
};

std::optional<Prefix> parsePrefix(std::string_view text) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto address = parseAddress(text.substr(0, slash));
  std::string_view len = text.substr(slash + 1);
  if (!address || len.empty() || len.size() > 3) return std::nullopt;
  if (len.size() > 1 && len[0] == '0') return std::nullopt;
  int n = 0;
  for (char c : len) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n > (address->family == 4 ? 32 : 128)) return std::nullopt;
  return Prefix{*address, n};
}

struct CidrHeap final : OpaqueHeap {
  explicit CidrHeap(Prefix p) : prefix(p) {}
  Prefix prefix;
  std::string_view typeName() const override { return "net.IPPrefix"; }
  bool equals(const OpaqueHeap& o) const override {
    const Prefix& p = static_cast<const CidrHeap&>(o).prefix;
    return prefix.length == p.length && prefix.address == p.address;
  }
  std::string text() const override {
    return formatAddress(prefix.address) + "/" + std::to_string(prefix.length);
  }
};

// A quantity's value. The rules compare quantities with each other and with bounds such as
// 4Gi or 2^31: a long double holds every integer they name exactly, and 500m as closely as
// resource.Quantity's own comparisons need.
struct QuantityHeap final : OpaqueHeap {
  explicit QuantityHeap(long double v) : value(v) {}
  long double value;
  std::string_view typeName() const override { return "kubernetes.Quantity"; }
  bool equals(const OpaqueHeap& o) const override {
    return value == static_cast<const QuantityHeap&>(o).value;
  }
  std::string text() const override {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%Lg", value);
    return buf;
  }
};

// resource.ParseQuantity: <sign><digits>[.<digits>]<suffix>, the suffix a binary one (Ki..Ei),
// a decimal one (n, u, m, k, M..E) or an exponent (e3, E-2).
std::optional<long double> parseQuantity(std::string_view s) {
  if (s.empty() || s.size() > 128) return std::nullopt;
  std::size_t i = 0;
  bool negative = false;
  if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
  long double value = 0;
  std::size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits)
    value = value * 10 + (s[i] - '0');
  if (i < s.size() && s[i] == '.') {
    long double scale = 0.1L;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits, scale /= 10)
      value += (s[i] - '0') * scale;
  }
  if (digits == 0) return std::nullopt;
  std::string_view suffix = s.substr(i);
  static constexpr std::pair<std::string_view, long double> kSuffixes[] = {
      {"", 1.0L},      {"Ki", 0x1p10L}, {"Mi", 0x1p20L}, {"Gi", 0x1p30L},
      {"Ti", 0x1p40L}, {"Pi", 0x1p50L}, {"Ei", 0x1p60L}, {"n", 1e-9L},
      {"u", 1e-6L},    {"m", 1e-3L},    {"k", 1e3L},     {"M", 1e6L},
      {"G", 1e9L},     {"T", 1e12L},    {"P", 1e15L},    {"E", 1e18L}};
  long double factor = 0;
  for (const auto& [name, f] : kSuffixes)
    if (suffix == name) factor = f;
  if (factor == 0) {
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
    std::size_t j = 1;
    bool negativeExponent = false;
    if (suffix[j] == '+' || suffix[j] == '-') negativeExponent = suffix[j++] == '-';
    if (j >= suffix.size() || suffix.size() - j > 4) return std::nullopt;
    int exponent = 0;
    for (; j < suffix.size(); ++j) {
      if (suffix[j] < '0' || suffix[j] > '9') return std::nullopt;
      exponent = exponent * 10 + (suffix[j] - '0');
    }
    factor = std::pow(10.0L, negativeExponent ? -exponent : exponent);
  }
  value *= factor;
  return negative ? -value : value;
}

struct Url {
  std::string scheme, host, path, rawQuery;
};

bool schemeChar(char c, bool first) {
  if (std::isalpha(static_cast<unsigned char>(c))) return true;
  return !first &&
         (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.');
}

// Go's url.ParseRequestURI, for what the rules read: scheme, host (with port), escaped path,
// raw query.
std::optional<Url> parseUrl(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x21 || c == 0x7F) return std::nullopt;
  }
  Url u;
  std::string_view rest = s;
  if (rest.empty()) return std::nullopt;
  if (rest[0] != '/') {
    std::size_t colon = rest.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    for (std::size_t i = 0; i < colon; ++i) {
      if (!schemeChar(rest[i], i == 0)) return std::nullopt;
    }
    u.scheme = std::string(rest.substr(0, colon));
    u.scheme = model::lowerAscii(u.scheme);
    rest.remove_prefix(colon + 1);
  }
  std::size_t q = rest.find('?');
  if (q != std::string_view::npos) {
    u.rawQuery = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (!u.scheme.empty() && !rest.starts_with("/")) {
    // An opaque URL ("mailto:a@b"): accepted, with no host or path.
    if (rest.empty()) return std::nullopt;
    return u;
  }
  if (rest.starts_with("//") && !u.scheme.empty()) {
    rest.remove_prefix(2);
    std::size_t end = rest.find('/');
    std::string_view authority = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
      authority.remove_prefix(at + 1);
    }
    // A port is digits after the last ':' outside brackets.
    std::size_t colon = authority.rfind(':');
    std::size_t bracket = authority.rfind(']');
    if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
      for (char c : authority.substr(colon + 1)) {
        if (c < '0' || c > '9') return std::nullopt;
      }
    }
    if (authority.starts_with("[") && bracket == std::string_view::npos) return std::nullopt;
    u.host = std::string(authority);
  }
  u.path = std::string(rest);
  return u;
}

struct UrlHeap final : OpaqueHeap {
  UrlHeap(Url u, std::string source) : url(std::move(u)), source(std::move(source)) {}
  Url url;
  std::string source;
  std::string_view typeName() const override { return "kubernetes.URL"; }
  bool equals(const OpaqueHeap& o) const override {
    return source == static_cast<const UrlHeap&>(o).source;
  }
  std::string text() const override { return source; }
};

std::string_view hostname(std::string_view host) {
  if (host.starts_with("[")) {
    std::size_t end = host.find(']');
    return host.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
  }
  return host.substr(0, host.rfind(':'));
}

std::string_view port(std::string_view host) {
  std::size_t colon = host.rfind(':');
  std::size_t bracket = host.rfind(']');
  if (colon == std::string_view::npos || (bracket != std::string_view::npos && colon < bracket)) {
    return {};
  }
  return host.substr(colon + 1);
}

// Percent-decoding as Go's url.ParseQuery does ('+' is a space); invalid escapes stay as they
// are.
std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() &&
               std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

Value query(std::string_view raw) {
  std::vector<MapEntry> entries;
  while (!raw.empty()) {
    std::size_t amp = raw.find('&');
    std::string_view pair = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (pair.empty()) continue;
    std::size_t eq = pair.find('=');
    Value key = Value::string(unescape(pair.substr(0, eq)));
    Value value = Value::string(eq == std::string_view::npos ? "" : unescape(pair.substr(eq + 1)));
    bool found = false;
    for (MapEntry& e : entries) {
      if (e.first == key) {
        std::vector<Value> items(e.second.asList().begin(), e.second.asList().end());
        items.push_back(std::move(value));
        e.second = Value::list(std::move(items));
        found = true;
        break;
      }
    }
    if (!found) entries.emplace_back(std::move(key), Value::list({std::move(value)}));
  }
  return Value::map(std::move(entries));
}

template <typename H>
const H* as(const Value& v) {
  if (v.kind() != K::Opaque) return nullptr;
  return dynamic_cast<const H*>(&opaqueHeap(v));
}

Value makeIp(const Address& a) {
  return Value::fromHeap(K::Opaque, std::make_shared<IpHeap>(a));
}

struct K8sOverload {
  std::string_view name;
  bool receiver;
  std::size_t arity;
  Fn fn;
};

constexpr K8sOverload kK8sOverloads[] = {
    {"isIP", false, 1, Fn::IsIp},
    {"ip", false, 1, Fn::Ip},
    {"ip.isCanonical", false, 1, Fn::IsCanonical},
    {"family", true, 0, Fn::Family},
    {"isUnspecified", true, 0, Fn::IsUnspecified},
    {"isLoopback", true, 0, Fn::IsLoopback},
    {"isLinkLocalMulticast", true, 0, Fn::IsLinkLocalMulticast},
    {"isLinkLocalUnicast", true, 0, Fn::IsLinkLocalUnicast},
    {"isGlobalUnicast", true, 0, Fn::IsGlobalUnicast},
    {"isCIDR", false, 1, Fn::IsCidr},
    {"cidr", false, 1, Fn::Cidr},
    {"ip", true, 0, Fn::CidrIp},
    {"prefixLength", true, 0, Fn::PrefixLength},
    {"containsIP", true, 1, Fn::ContainsIp},
    {"containsCIDR", true, 1, Fn::ContainsCidr},
    {"masked", true, 0, Fn::Masked},
    {"quantity", false, 1, Fn::Quantity},
    {"isQuantity", false, 1, Fn::IsQuantity},
    {"isGreaterThan", true, 1, Fn::QuantityIsGreaterThan},
    {"isLessThan", true, 1, Fn::QuantityIsLessThan},
    {"compareTo", true, 1, Fn::QuantityCompareTo},
    {"isInteger", true, 0, Fn::QuantityIsInteger},
    {"asInteger", true, 0, Fn::QuantityAsInteger},
    {"asApproximateFloat", true, 0, Fn::QuantityAsApproximateFloat},
    {"sign", true, 0, Fn::QuantitySign},
    {"add", true, 1, Fn::QuantityAdd},
    {"sub", true, 1, Fn::QuantitySub},
    {"isURL", false, 1, Fn::IsUrl},
    {"url", false, 1, Fn::Url},
    {"getScheme", true, 0, Fn::GetScheme},
    {"getHost", true, 0, Fn::GetHost},
    {"getHostname", true, 0, Fn::GetHostname},
    {"getPort", true, 0, Fn::GetPort},
    {"getEscapedPath", true, 0, Fn::GetEscapedPath},
    {"getQuery", true, 0, Fn::GetQuery},
};

bool isString(const Value& v) {
  return v.kind() == K::String;
}

Value ipFunction(Fn fn, std::span<const Value> args, Context& ctx, std::string_view name) {
  const IpHeap* ip = as<IpHeap>(args[0]);
  if (!ip) return noOverload(ctx, name, args);
  const Address& a = ip->address;
  const unsigned char* b = a.bytes.data();
  bool v4 = a.family == 4;
  switch (fn) {
    case Fn::Family:
      return Value::integer(a.family);
    case Fn::IsUnspecified: {
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (b[i]) return Value::boolean(false);
      }
      return Value::boolean(true);
    }
    case Fn::IsLoopback: {
      if (v4) return Value::boolean(b[0] == 127);
      for (int i = 0; i < 15; ++i) {
        if (b[i]) return Value::boolean(false);
      }
      return Value::boolean(b[15] == 1);
    }
    case Fn::IsLinkLocalMulticast:
      if (v4) return Value::boolean(b[0] == 224 && b[1] == 0 && b[2] == 0);
      return Value::boolean(b[0] == 0xff && (b[1] & 0x0f) == 0x02);
    case Fn::IsLinkLocalUnicast:
      if (v4) return Value::boolean(b[0] == 169 && b[1] == 254);
      return Value::boolean(b[0] == 0xfe && (b[1] & 0xc0) == 0x80);
    default: {  // IsGlobalUnicast, as Go's netip.Addr.IsGlobalUnicast
      bool unspecified = true;
      for (std::size_t i = 0; i < a.size(); ++i) unspecified = unspecified && !b[i];
      if (unspecified) return Value::boolean(false);
      if (v4) {
        bool broadcast = b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255;
        return Value::boolean(!broadcast && b[0] != 127 && b[0] < 224 &&
                              !(b[0] == 169 && b[1] == 254));
      }
      bool loopback = true;
      for (int i = 0; i < 15; ++i) loopback = loopback && !b[i];
      loopback = loopback && b[15] == 1;
      return Value::boolean(!loopback && b[0] != 0xff && !(b[0] == 0xfe && (b[1] & 0xc0) == 0x80));
    }
  }
}

Value cidrFunction(Fn fn, std::span<const Value> args, Context& ctx, std::string_view name) {
  const CidrHeap* cidr = as<CidrHeap>(args[0]);
  if (!cidr) return noOverload(ctx, name, args);
  const Prefix& p = cidr->prefix;
  switch (fn) {
    case Fn::CidrIp:
      return makeIp(p.address);
    case Fn::PrefixLength:
      return Value::integer(p.length);
    case Fn::Masked:
      return Value::fromHeap(K::Opaque, std::make_shared<CidrHeap>(Prefix{p.masked(), p.length}));
    case Fn::ContainsIp: {
      std::optional<Address> a;
      if (const IpHeap* ip = as<IpHeap>(args[1]))
        a = ip->address;
      else if (isString(args[1]))
        a = parseAddress(args[1].asString());
      else
        return noOverload(ctx, name, args);
      if (!a) return ctx.fail("IP Address '" + std::string(args[1].asString()) + "' parse error");
      return Value::boolean(p.contains(*a));
    }
    default: {  // ContainsCidr
      std::optional<Prefix> other;
      if (const CidrHeap* c = as<CidrHeap>(args[1]))
        other = c->prefix;
      else if (isString(args[1]))
        other = parsePrefix(args[1].asString());
      else
        return noOverload(ctx, name, args);
      if (!other)
        return ctx.fail("network address '" + std::string(args[1].asString()) + "' parse error");
      return Value::boolean(other->length >= p.length && p.contains(other->address));
    }
  }
}

Value makeQuantity(long double v) {
  return Value::fromHeap(K::Opaque, std::make_shared<QuantityHeap>(v));
}

Value quantityFunction(Fn fn, std::span<const Value> args, Context& ctx, std::string_view name) {
  const QuantityHeap* q = as<QuantityHeap>(args[0]);
  if (!q) return noOverload(ctx, name, args);
  const long double v = q->value;
  auto other = [&]() -> std::optional<long double> {
    if (const QuantityHeap* o = as<QuantityHeap>(args[1])) return o->value;
    if (args[1].kind() == K::Int && (fn == Fn::QuantityAdd || fn == Fn::QuantitySub))
      return static_cast<long double>(args[1].asInt());
    return std::nullopt;
  };
  switch (fn) {
    case Fn::QuantityIsInteger:
      return Value::boolean(std::nearbyint(v) == v && std::fabs(v) < 0x1p63L);
    case Fn::QuantityAsInteger:
      if (std::nearbyint(v) != v || std::fabs(v) >= 0x1p63L)
        return ctx.fail("cannot convert value to integer");
      return Value::integer(static_cast<std::int64_t>(v));
    case Fn::QuantityAsApproximateFloat:
      return Value::real(static_cast<double>(v));
    case Fn::QuantitySign:
      return Value::integer(v > 0 ? 1 : v < 0 ? -1 : 0);
    default: {
      std::optional<long double> o = other();
      if (!o) return noOverload(ctx, name, args);
      switch (fn) {
        case Fn::QuantityIsGreaterThan:
          return Value::boolean(v > *o);
        case Fn::QuantityIsLessThan:
          return Value::boolean(v < *o);
        case Fn::QuantityCompareTo:
          return Value::integer(v > *o ? 1 : v < *o ? -1 : 0);
        case Fn::QuantityAdd:
          return makeQuantity(v + *o);
        default:  // QuantitySub
          return makeQuantity(v - *o);
      }
    }
  }
}

Value urlFunction(Fn fn, std::span<const Value> args, Context& ctx, std::string_view name) {
  const UrlHeap* url = as<UrlHeap>(args[0]);
  if (!url) return noOverload(ctx, name, args);
  const Url& u = url->url;
  switch (fn) {
    case Fn::GetScheme:
      return Value::string(u.scheme);
    case Fn::GetHost:
      return Value::string(u.host);
    case Fn::GetHostname:
      return Value::string(std::string(hostname(u.host)));
    case Fn::GetPort:
      return Value::string(std::string(port(u.host)));
    case Fn::GetEscapedPath:
      return Value::string(u.path);
    default:
      return query(u.rawQuery);  // GetQuery
  }
}

}  // namespace

std::optional<Fn> lookupK8sFunction(std::string_view name, bool receiver, std::size_t arity) {
  for (const K8sOverload& o : kK8sOverloads) {
    if (o.name == name && o.receiver == receiver && o.arity == arity) return o.fn;
  }
  return std::nullopt;
}

Value callK8sFunction(const Node& call, std::span<const Value> args, Context& ctx) {
  std::string_view name = call.name;
  const Value& a = args[0];
  switch (call.fn) {
    case Fn::IsIp:
    case Fn::Ip:
    case Fn::IsCanonical: {
      if (!isString(a)) return noOverload(ctx, name, args);
      auto address = parseAddress(a.asString());
      if (call.fn == Fn::IsIp) return Value::boolean(address.has_value());
      if (!address) return ctx.fail("IP Address '" + std::string(a.asString()) + "' parse error");
      if (call.fn == Fn::Ip) return makeIp(*address);
      return Value::boolean(formatAddress(*address) == a.asString());
    }
    case Fn::IsCidr:
    case Fn::Cidr: {
      if (!isString(a)) return noOverload(ctx, name, args);
      auto prefix = parsePrefix(a.asString());
      if (call.fn == Fn::IsCidr) return Value::boolean(prefix.has_value());
      if (!prefix) {
        return ctx.fail("network address '" + std::string(a.asString()) + "' parse error");
      }
      return Value::fromHeap(K::Opaque, std::make_shared<CidrHeap>(*prefix));
    }
    case Fn::IsQuantity:
    case Fn::Quantity: {
      if (!isString(a)) return noOverload(ctx, name, args);
      std::optional<long double> q = parseQuantity(a.asString());
      if (call.fn == Fn::IsQuantity) return Value::boolean(q.has_value());
      if (!q) return ctx.fail("quantities must match the regular expression");
      return makeQuantity(*q);
    }
    case Fn::QuantityIsGreaterThan:
    case Fn::QuantityIsLessThan:
    case Fn::QuantityCompareTo:
    case Fn::QuantityIsInteger:
    case Fn::QuantityAsInteger:
    case Fn::QuantityAsApproximateFloat:
    case Fn::QuantitySign:
    case Fn::QuantityAdd:
    case Fn::QuantitySub:
      return quantityFunction(call.fn, args, ctx, name);
    case Fn::IsUrl:
    case Fn::Url: {
      if (!isString(a)) return noOverload(ctx, name, args);
      auto url = parseUrl(a.asString());
      if (call.fn == Fn::IsUrl) return Value::boolean(url.has_value());
      if (!url) return ctx.fail("URL parse error: '" + std::string(a.asString()) + "'");
      return Value::fromHeap(K::Opaque,
                             std::make_shared<UrlHeap>(std::move(*url), std::string(a.asString())));
    }
    case Fn::Family:
    case Fn::IsUnspecified:
    case Fn::IsLoopback:
    case Fn::IsLinkLocalMulticast:
    case Fn::IsLinkLocalUnicast:
    case Fn::IsGlobalUnicast:
      return ipFunction(call.fn, args, ctx, name);
    case Fn::CidrIp:
    case Fn::PrefixLength:
    case Fn::ContainsIp:
    case Fn::ContainsCidr:
    case Fn::Masked:
      return cidrFunction(call.fn, args, ctx, name);
    case Fn::GetScheme:
    case Fn::GetHost:
    case Fn::GetHostname:
    case Fn::GetPort:
    case Fn::GetEscapedPath:
    case Fn::GetQuery:
      return urlFunction(call.fn, args, ctx, name);
    default:
      return noOverload(ctx, name, args);
  }
}

}  // namespace pg::cel::detail
