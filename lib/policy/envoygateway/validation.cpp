// Checks of an Envoy Gateway policy's spec that its translator turns into Accepted False,
// reason Invalid. Only structural ones: values the translator cannot parse or rejects by a
// fixed rule, and references to objects that must be in the input, and Lua scripts, which
// the controller compiles. Anything that needs the data plane (Wasm checksums) or running a
// script (Lua's Strict validation) is left to the cluster.
//
// Messages follow the translator's: "<Feature>: <what is wrong>."
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/cel/cel.h"
#include "lib/config/config.h"
#include "lib/graph/topology.h"
#include "lib/model/ascii.h"
#include "lib/model/cidr.h"
#include "lib/model/duration.h"
#include "lib/model/encoding.h"
#include "lib/model/quote.h"
#include "lib/model/regex.h"
#include "lib/model/secret.h"
#include "lib/policy/envoygateway/envoygateway.h"
#include "lib/policy/envoygateway/lua.h"

namespace pg::policy::envoygateway {

namespace {

constexpr std::string_view kServiceImportGroup = "multicluster.x-k8s.io";

// Envoy's Maglev table size must be a prime no larger than this.
constexpr std::int64_t kMaxConsistentHashTableSize = 5000011;

std::string capitalized(std::string_view word) {
  std::string out(word);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// Go's time.ParseDuration, which the translator uses for every duration field: a sequence of
// decimal numbers with a unit each (ns, us, µs, ms, s, m, h), or "0". Returns nanoseconds.
std::optional<double> parseDuration(std::string_view text) {
  std::optional<long double> total = model::parseGoDuration(text);
  return total ? std::optional<double>(static_cast<double>(*total)) : std::nullopt;
}

// Field names the Envoy Gateway API gives its durations.
bool isDurationField(std::string_view key) {
  auto endsWith = [&](std::string_view suffix) {
    return key.size() >= suffix.size() && key.substr(key.size() - suffix.size()) == suffix;
  };
  return key == "timeout" || key == "interval" || key == "idleTime" || endsWith("Timeout") ||
         endsWith("Duration") || endsWith("Interval") || endsWith("Delay");
}

// What a check sees: the object, its spec, and the objects it may name. A check reports
// with `fail`; the translator joins every problem in one message.
struct Context {
  const model::Resource& object;
  const model::Store& store;
  const graph::ReferenceGrantIndex& grants;
  yaml::NodeRef spec;
  const std::vector<config::ExternalObject>& external;  // made outside the repository
  const Policy* policy = nullptr;  // with `topology`: for checks on the targets
  const graph::Topology* topology = nullptr;
  std::vector<Problem> problems;
  const config::EnvoyGatewaySettings* settings = nullptr;  // the controller's, when known

  void fail(std::string message, yaml::NodeRef at,
            std::optional<model::Missing> missing = std::nullopt) {
    problems.push_back(Problem{std::move(message), at, std::move(missing)});
  }
};

// The key node of `name` in a mapping (where a finding about the whole field points), null
// when the mapping has no such key.
yaml::NodeRef keyOf(yaml::NodeRef mapping, std::string_view name) {
  for (auto [key, value] : mapping.entries())
    if (key.str() == name) return key;
  return {};
}

// Whether a ClientTrafficPolicy reaches a listener `accepts` takes (a listener of the
// targeted Gateway or ListenerSet, or the one its sectionName names): the translator builds,
// and checks, each part of the policy only on the listeners that part applies to
// (clienttrafficpolicy.go translateClientTrafficPolicyForListener). True without a policy.
template <typename Accepts>
bool reachesListener(const Context& c, Accepts&& accepts) {
  if (!c.policy) return true;
  for (const Target& t : c.policy->targets) {
    if (!t.attached() || !t.resource) continue;
    for (yaml::NodeRef listener : t.resource->spec().get("listeners").items())
      if ((t.sectionName.empty() || listener.get("name").str() == t.sectionName) &&
          accepts(listener))
        return true;
  }
  return false;
}

// TLS settings (ciphers, client validation) apply where TLS terminates: HTTPS, or TLS not in
// Passthrough mode (buildListenerTLSParameters).
bool reachesTlsListener(const Context& c) {
  return reachesListener(c, [](yaml::NodeRef listener) {
    const std::string_view protocol = listener.get("protocol").str();
    return protocol == "HTTPS" ||
           (protocol == "TLS" && listener.get("tls").get("mode").str() != "Passthrough");
  });
}

// Header, HTTP/1 and HTTP/2 settings apply to HTTP and HTTPS listeners.
bool reachesHttpListener(const Context& c) {
  return reachesListener(c, [](yaml::NodeRef listener) {
    const std::string_view protocol = listener.get("protocol").str();
    return protocol == "HTTP" || protocol == "HTTPS";
  });
}

// The feature a top-level field configures, as the translator names it in messages.
std::string featureName(std::string_view key) {
  if (key == "circuitBreaker") return "CircuitBreaker";
  if (key == "connection") return "Connection";
  return capitalized(key);
}

void checkDurationsUnder(Context& c, const std::string& feature, yaml::NodeRef node) {
  if (node.isMapping()) {
    for (auto [key, value] : node.entries()) {
      if (isDurationField(key.str()) && value.isScalar() && !value.isNull() &&
          !parseDuration(value.str()))
        c.fail(feature + ": invalid " + capitalized(key.str()) + " value " +
                   std::string(value.str()) + ".",
               value);
      checkDurationsUnder(c, feature, value);
    }
  } else if (node.isSequence()) {
    for (yaml::NodeRef item : node.items()) checkDurationsUnder(c, feature, item);
  }
}

void checkDurations(Context& c) {
  for (auto [key, value] : c.spec.entries()) checkDurationsUnder(c, featureName(key.str()), value);
}

void checkCircuitBreaker(Context& c) {
  for (auto [key, value] : c.spec.get("circuitBreaker").entries()) {
    std::optional<std::int64_t> n = value.asInt();
    if (n && *n < 0)
      c.fail("CircuitBreaker: invalid " + capitalized(key.str()) + " value " + std::to_string(*n) +
                 ".",
             value);
  }
}

bool isPrime(std::int64_t n) {
  if (n < 2) return false;
  for (std::int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// Cluster settings (clustersettings.go translateTrafficFeatures), of a BackendTrafficPolicy's
// spec or of an external service's `backendSettings`; `prefix` is how the translator prefixes
// the problem ("LoadBalancer: " and "Retry: " at the top level, the feature's "ExtAuth: "
// inside one).
void checkLoadBalancerOf(Context& c, const std::string& prefix, yaml::NodeRef settings) {
  yaml::NodeRef size = settings.get("loadBalancer").get("consistentHash").get("tableSize");
  std::optional<std::int64_t> n = size.asInt();
  if (n && (*n > kMaxConsistentHashTableSize || !isPrime(*n)))
    c.fail(prefix + "ConsistentHash: invalid TableSize value " + std::to_string(*n) + ".", size);
}

void checkLoadBalancer(Context& c) {
  checkLoadBalancerOf(c, "LoadBalancer: ", c.spec);
}

void checkRetryOf(Context& c, const std::string& prefix, yaml::NodeRef settings) {
  // The field is `backOff`; the translator's case-insensitive decoding also reads `backoff`,
  // which the API server refuses (an unknown field) but an object without a schema may hold.
  yaml::NodeRef perRetry = settings.get("retry").get("perRetry");
  yaml::NodeRef backoff = perRetry.get("backOff");
  if (!backoff) backoff = perRetry.get("backoff");
  yaml::NodeRef base = backoff.get("baseInterval");
  yaml::NodeRef max = backoff.get("maxInterval");
  std::optional<double> b = base ? parseDuration(base.str()) : std::nullopt;
  std::optional<double> m = max ? parseDuration(max.str()) : std::nullopt;
  if (b && *b == 0) {
    c.fail(prefix + "baseInterval cannot be set to 0s.", base);
    return;
  }
  if (m && *m == 0) {
    c.fail(prefix + "maxInterval cannot be set to 0s.", max);
    return;
  }
  if (b && m && *m < *b) c.fail(prefix + "maxInterval cannot be less than baseInterval.", max);
}

void checkRetry(Context& c) {
  checkRetryOf(c, "Retry: ", c.spec);
}

// Go's net.ParseCIDR: an address with a prefix length no longer than the address.
bool parsesAsCidr(std::string_view text) {
  return text.find('/') != std::string_view::npos && model::Cidr::parse(text).has_value();
}

// Seconds in a rate limit unit (ratelimit.UnitToSeconds); 0 for an unknown one.
std::int64_t unitSeconds(std::string_view unit) {
  if (unit == "Second") return 1;
  if (unit == "Minute") return 60;
  if (unit == "Hour") return 3600;
  if (unit == "Day") return 86400;
  if (unit == "Month") return 2592000;
  if (unit == "Year") return 31536000;
  return 0;
}

// One client selector of a rate limit rule (backendtrafficpolicy.go buildRateLimitRule):
// headers (a value unless Distinct, which takes none and cannot be inverted; a regular
// expression that compiles), a path pattern that compiles, a source CIDR that parses.
bool checkRateLimitSelector(Context& c, yaml::NodeRef selector) {
  const std::string prefix = "RateLimit: ";
  // The CRD asks for one of the fields; an empty list passes it and selects nothing.
  if (selector.get("headers").size() == 0 && selector.get("methods").size() == 0 &&
      !selector.get("path").isMapping() && !selector.get("sourceCIDR").isMapping() &&
      selector.get("queryParams").size() == 0) {
    c.fail(prefix +
               "unable to translate rateLimit. At least one of the header or method or path or "
               "sourceCIDR or queryParameters must be specified.",
           selector);
    return false;
  }
  for (yaml::NodeRef header : selector.get("headers").items()) {
    const std::string_view type = header.get("type") ? header.get("type").str() : "Exact";
    const yaml::NodeRef value = header.get("value");
    const bool valued = value && !value.isNull();
    if ((type == "Distinct") == valued ||
        (type != "Distinct" && type != "Exact" && type != "RegularExpression")) {
      c.fail(prefix +
                 "unable to translate rateLimit. Either the header.Type is not valid or the "
                 "header is missing a value.",
             header);
      return false;
    }
    if (type == "Distinct" && header.get("invert").asBool() == true) {
      c.fail(prefix +
                 "unable to translate rateLimit.Invert is not applicable for distinct header "
                 "match type.",
             header.get("invert"));
      return false;
    }
    if (type == "RegularExpression")
      if (std::string error = model::re2Error(value.str()); !error.empty()) {
        c.fail(prefix + "regex " + model::quoted(value.str()) +
                   " is invalid: error parsing regexp: " + error + ".",
               value);
        return false;
      }
  }
  const yaml::NodeRef path = selector.get("path");
  if (path.get("type").str() == "RegularExpression")
    if (std::string error = model::re2Error(path.get("value").str()); !error.empty()) {
      c.fail(prefix + "regex " + model::quoted(path.get("value").str()) +
                 " is invalid: error parsing regexp: " + error + ".",
             path.get("value"));
      return false;
    }
  if (const yaml::NodeRef cidr = selector.get("sourceCIDR").get("value");
      cidr && !parsesAsCidr(cidr.str())) {
    c.fail(prefix + "unable to translate rateLimit: invalid CIDR address: " +
               std::string(cidr.str()) + ".",
           cidr);
    return false;
  }
  return true;
}

// A BackendTrafficPolicy's rate limits (backendtrafficpolicy.go buildRateLimit,
// buildLocalRateLimit, buildRateLimitRule), the first problem ending them: a deprecated
// `type` without its section; local limits with more than one rule without client selectors
// (the default one) or a rule whose unit is not a multiple of the default rule's; then each
// rule's client selectors, local before global.
void checkRateLimit(Context& c) {
  const yaml::NodeRef rateLimit = c.spec.get("rateLimit");
  if (!rateLimit.isMapping()) return;
  const std::string_view type = rateLimit.get("type").str();
  for (std::string_view scope : {"Global", "Local"}) {
    std::string section(scope);
    section[0] = model::lowerAscii(section[0]);
    if (type == scope && !rateLimit.get(section).isMapping()) {
      c.fail("RateLimit: " + section + " configuration empty for rateLimit.",
             rateLimit.get("type"));
      return;
    }
  }
  // Global limits need Envoy Gateway's rate limit service (buildGlobalRateLimit), which its
  // own configuration turns on; checked only when that configuration is known.
  if (const yaml::NodeRef global = rateLimit.get("global");
      global.isMapping() && type != "Local" && c.settings && c.settings->rateLimit == false) {
    c.fail(
        "RateLimit: enable Ratelimit in the EnvoyGateway config to configure global "
        "rateLimit.",
        keyOf(rateLimit, "global"));
    return;
  }
  const yaml::NodeRef local = rateLimit.get("local");
  if (type != "Global" && local.isMapping()) {
    yaml::NodeRef fallback;
    for (yaml::NodeRef rule : local.get("rules").items()) {
      if (rule.get("clientSelectors").size() > 0) continue;
      if (fallback) {
        c.fail(
            "RateLimit: local rateLimit can not have more than one rule without "
            "clientSelectors.",
            rule);
        return;
      }
      fallback = rule;
    }
    const std::int64_t unit =
        fallback ? unitSeconds(fallback.get("limit").get("unit").str()) : std::int64_t{1};
    for (yaml::NodeRef rule : local.get("rules").items()) {
      const std::int64_t seconds = unitSeconds(rule.get("limit").get("unit").str());
      if (unit == 0 || seconds % unit != 0) {
        c.fail(
            "RateLimit: local rateLimit rule limit unit must be a multiple of the default "
            "limit unit.",
            rule.get("limit").get("unit"));
        return;
      }
    }
  }
  for (std::string_view scope : {"local", "global"}) {
    if ((scope == "local" && type == "Global") || (scope == "global" && type == "Local")) continue;
    for (yaml::NodeRef rule : rateLimit.get(scope).get("rules").items())
      for (yaml::NodeRef selector : rule.get("clientSelectors").items())
        if (!checkRateLimitSelector(c, selector)) return;
  }
}

// A Kubernetes resource.Quantity as a whole number (Quantity.AsInt64): a decimal number, then
// a binary suffix (Ki ... Ei), a decimal one (k, M ... E) or an exponent (e6); nullopt when
// the text does not parse, or is no integer that fits.
std::optional<std::int64_t> quantityAsInt(std::string_view text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  long double value = 0;
  bool digits = false;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, digits = true)
    value = value * 10 + (text[i] - '0');
  if (i < text.size() && text[i] == '.') {
    long double scale = 0.1L;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
         ++i, digits = true, scale /= 10)
      value += scale * (text[i] - '0');
  }
  if (!digits) return std::nullopt;
  const std::string_view suffix = text.substr(i);
  long double multiplier = 1;
  constexpr std::pair<std::string_view, int> kBinary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                          {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  constexpr std::pair<std::string_view, int> kDecimal[] = {{"k", 3},  {"M", 6},  {"G", 9},
                                                           {"T", 12}, {"P", 15}, {"E", 18}};
  bool known = suffix.empty();
  for (auto [name, power] : kBinary)
    if (suffix == name) known = true, multiplier = std::ldexp(1.0L, power);
  for (auto [name, power] : kDecimal)
    if (suffix == name) known = true, multiplier = std::pow(10.0L, power);
  if (!known && (suffix.front() == 'e' || suffix.front() == 'E') && suffix.size() > 1) {
    int exponent = 0;
    const auto [end, error] =
        std::from_chars(suffix.data() + 1, suffix.data() + suffix.size(), exponent);
    if (error != std::errc() || end != suffix.data() + suffix.size()) return std::nullopt;
    known = true;
    multiplier = std::pow(10.0L, exponent);
  }
  if (!known) return std::nullopt;
  value *= multiplier;
  if (value != std::floor(value) || value > 9.2e18L) return std::nullopt;
  const auto whole = static_cast<std::int64_t>(value);
  return negative ? -whole : whole;
}

// A quantity field of a policy that Envoy takes as a 32-bit count of bytes (a buffer limit):
// `out of range` words the message after the value.
void checkQuantityRange(Context& c, yaml::NodeRef value, const std::string& feature,
                        const std::string& name, std::int64_t low, std::int64_t high,
                        const std::string& outOfRange) {
  if (!value || value.isNull()) return;
  const std::string written(value.str());
  const std::optional<std::int64_t> n = quantityAsInt(written);
  if (!n)
    c.fail(feature + ": invalid " + name + " value " + written + ".", value);
  else if (*n < low || *n > high)
    c.fail(feature + ": " + outOfRange + ".", value);
}

constexpr std::int64_t kMaxUint32 = 4294967295;

// Buffer and window sizes the translator converts to Envoy's 32-bit fields
// (clustersettings.go buildBackendConnection, http.go buildIRHTTP2Settings,
// backendtrafficpolicy.go buildRequestBuffer, clienttrafficpolicy.go buildConnection and
// translateListenerHeaderSettings); a request buffer cannot sit in front of an upgraded
// connection.
void checkSizes(Context& c) {
  const bool client = c.object.kind == "ClientTrafficPolicy";
  const yaml::NodeRef buffer = c.spec.get("connection").get("bufferLimit");
  checkQuantityRange(c, buffer, client ? "Connection" : "BackendConnection", "BufferLimit", 0,
                     kMaxUint32,
                     "BufferLimit value " + std::string(buffer.str()) + " is out of range" +
                         (client ? ", must be between 0 and 4294967295" : ""));
  const bool http = !client || reachesHttpListener(c);
  for (std::string_view window : {"initialStreamWindowSize", "initialConnectionWindowSize"}) {
    if (!http) break;
    const yaml::NodeRef value = c.spec.get("http2").get(window);
    const std::string name = capitalized(window);
    checkQuantityRange(c, value, "HTTP2", name, 65535, 2147483647,
                       name + " value " + std::string(value.str()) +
                           " is out of range, must be between 65535 and 2147483647");
  }
  if (client) {
    if (!http) return;
    const yaml::NodeRef bytes = c.spec.get("headers").get("maxRequestHeaderBytes");
    checkQuantityRange(
        c, bytes, "Headers", "MaxRequestHeaderBytes", 1024,
        std::numeric_limits<std::int64_t>::max(),
        "MaxRequestHeaderBytes must be at least 1Ki (1024 bytes), got " + std::string(bytes.str()));
    return;
  }
  const yaml::NodeRef requestBuffer = c.spec.get("requestBuffer");
  const yaml::NodeRef limit = requestBuffer.get("limit");
  const std::size_t before = c.problems.size();
  checkQuantityRange(c, limit, "RequestBuffer", "limit", 0, kMaxUint32,
                     "limit value " + std::string(limit.str()) +
                         " is out of range, must be between 0 and 4294967295");
  if (!requestBuffer.isMapping() || c.problems.size() != before) return;
  if (c.spec.get("httpUpgrade").size() > 0)
    c.fail("RequestBuffer: requestBuffer cannot be used together with httpUpgrade.",
           keyOf(c.spec, "httpUpgrade"));
}

// Envoy's bandwidth limit filter works in KiB/s: a smaller limit cannot be expressed.
void checkBandwidthLimit(Context& c) {
  for (std::string_view direction : {"request", "response"}) {
    const yaml::NodeRef limit = c.spec.get("bandwidthLimit").get(direction).get("limit");
    const yaml::NodeRef value = limit.get("value");
    if (!value || value.isNull()) continue;
    const std::string prefix = "BandwidthLimit: " + std::string(direction);
    // A Quantity (bandwidthToKibps): "1Mi" per second is 1024 KiB/s.
    const std::optional<std::int64_t> bytes = quantityAsInt(value.str());
    if (!bytes) {
      c.fail(prefix + " limit value must be convertible to an int64.", value);
      return;
    }
    if (*bytes < 0) {
      c.fail(prefix + " limit value must be positive.", value);
      return;
    }
    const std::string_view unit = limit.get("unit").str();
    const std::int64_t seconds = unit == "Minute" ? 60 : unit == "Hour" ? 3600 : 1;
    if (*bytes / (seconds * 1024) == 0) {
      c.fail(prefix + ": bandwidth limit of " + std::to_string(*bytes) + " bytes per " +
                 std::string(unit) + " is below the minimum of 1 KiB/s.",
             value);
      return;
    }
  }
}

// The cipher suites the translator lets through to Envoy (tls.go validCipherSuites): each
// by its OpenSSL name and by its IANA name, which Envoy maps to the former.
constexpr std::string_view kCipherSuites[] = {
    "ECDHE-ECDSA-AES128-GCM-SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "ECDHE-RSA-AES128-GCM-SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "ECDHE-ECDSA-AES256-GCM-SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "ECDHE-ECDSA-CHACHA20-POLY1305",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    "ECDHE-RSA-CHACHA20-POLY1305",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    "ECDHE-ECDSA-AES128-SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "ECDHE-RSA-AES128-SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    "AES128-GCM-SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "AES128-SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA",
    "ECDHE-ECDSA-AES256-SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "ECDHE-RSA-AES256-SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "AES256-GCM-SHA384",
    "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "AES256-SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA",
};

// Whether an exact hostname falls under a listener's hostname (empty: any; `*.x`: one or more
// labels before `.x`).
bool underListenerHostname(std::string_view host, std::string_view listener) {
  if (listener.empty()) return true;
  if (!listener.starts_with("*.")) return host == listener;
  const std::string_view suffix = listener.substr(1);
  return host.size() > suffix.size() && host.ends_with(suffix);
}

// A ClientTrafficPolicy's HTTP/1.0 default host (clienttrafficpolicy.go translateHTTP1Settings):
// an HTTP/1.0 request has no Host, so Envoy gives it the listener's hostname; a listener with
// none, or a wildcard, needs exactly one route host without a wildcard to take instead, counted
// as the translator builds routes: once per rule and match of each attached route.
void checkHttp10DefaultHost(Context& c) {
  const yaml::NodeRef use = c.spec.get("http1").get("http10").get("useDefaultHost");
  if (use.asBool() != true || !c.policy || !c.topology) return;
  for (const Target& t : c.policy->targets) {
    const graph::Gateway* gateway = c.topology->findGateway(t.namespace_, t.name, t.kind);
    if (!gateway) continue;
    for (const graph::Listener& listener : gateway->listeners) {
      if (!t.sectionName.empty() && listener.name != t.sectionName) continue;
      if (listener.protocol != "HTTP" && listener.protocol != "HTTPS") continue;
      if (!listener.hostname.empty() && listener.hostname.find('*') == std::string_view::npos)
        continue;
      std::size_t hosts = 0;
      for (const graph::Route& route : c.topology->routes) {
        const bool attached = std::any_of(
            route.parents.begin(), route.parents.end(), [&](const graph::RouteParent& parent) {
              return std::find(parent.listeners.begin(), parent.listeners.end(), &listener) !=
                     parent.listeners.end();
            });
        if (!attached) continue;
        std::size_t exact = 0;
        for (std::string_view host : route.hostnames)
          if (host.find('*') == std::string_view::npos &&
              underListenerHostname(host, listener.hostname))
            ++exact;
        for (const graph::RouteRule& rule : route.rules)
          hosts += exact * std::max<std::size_t>(1, rule.node.get("matches").size());
      }
      if (hosts == 1) continue;
      c.fail(std::string("HTTP1: cannot set http10 default host on listener with only wildcard "
                         "hostnames") +
                 (hosts > 1 ? " and more than one possible default route." : "."),
             use);
      return;
    }
  }
}

// A ClientTrafficPolicy's TLS ciphers must be ones Envoy knows, named exactly (the first
// unknown one is reported).
void checkCipherSuites(Context& c) {
  if (!reachesTlsListener(c)) return;
  for (yaml::NodeRef cipher : c.spec.get("tls").get("ciphers").items()) {
    if (!cipher.isScalar()) continue;
    std::string_view name = cipher.str();
    if (std::find(std::begin(kCipherSuites), std::end(kCipherSuites), name) !=
        std::end(kCipherSuites))
      continue;
    c.fail("TLS: unsupported cipher suite: " + std::string(name) + ".", cipher);
    return;
  }
}

// A ClientTrafficPolicy's client certificate validation (clienttrafficpolicy.go
// buildListenerTLSParameters -> validateAndGetDataAtKeyInRef): each CA reference must resolve
// (a Secret or ConfigMap, across namespaces by ReferenceGrant, holding `ca.crt` or a single
// entry; a ClusterTrustBundle by name).
void checkClientValidation(Context& c) {
  const yaml::NodeRef refs = c.spec.get("tls").get("clientValidation").get("caCertificateRefs");
  if (refs.size() == 0 || !reachesTlsListener(c)) return;
  const std::string prefix = "TLS: failed to get certificate from ref: ";
  const std::string_view own = c.object.namespace_;
  for (yaml::NodeRef ref : refs.items()) {
    const std::string_view kind = ref.get("kind") ? ref.get("kind").str() : "Secret";
    const std::string_view name = ref.get("name").str();
    const yaml::NodeRef at = ref.get("name") ? ref.get("name") : ref;
    if (kind == "ClusterTrustBundle") {
      auto bundles = c.store.ofKind(kind);
      if (std::none_of(bundles.begin(), bundles.end(),
                       [&](const model::Resource* r) { return r->name == name; }) &&
          !config::findExternal(c.external, ref.get("group").str(), kind, "", name)) {
        c.fail(prefix + "ref ClusterTrustBundle [" + std::string(name) + "] not found.", at,
               model::Missing{std::string(ref.get("group").str()), "ClusterTrustBundle", "",
                              std::string(name)});
        return;
      }
      continue;
    }
    if (kind != "Secret" && kind != "ConfigMap") {
      c.fail(prefix + "unsupported ref kind:" + std::string(kind) + ".", ref.get("kind"));
      return;
    }
    if (!ref.get("group").str().empty()) {
      c.fail(prefix + "secret ref group must be unspecified/empty.", ref.get("group"));
      return;
    }
    const std::string_view ns =
        ref.get("namespace").str().empty() ? own : ref.get("namespace").str();
    const std::string named = std::string(ns) + "/" + std::string(name);
    if (ns != own && !c.grants.permits(kGroup, c.object.kind, own, "", kind, ns, name)) {
      c.fail(
          prefix + "certificate ref to secret " + named + " not permitted by any ReferenceGrant.",
          ref.get("namespace"));
      return;
    }
    const model::Resource* object = c.store.find("", kind, ns, name);
    const std::string word = kind == "Secret" ? "secret" : "configmap";
    if (!object) {
      if (config::findExternal(c.external, "", kind, ns, name)) continue;
      c.fail(prefix + word + " " + named + " does not exist.", at,
             model::Missing{"", std::string(kind), std::string(ns), std::string(name)});
      return;
    }
    if (!holdsCaCertificate(*object)) {
      c.fail(prefix + "ref " + word + " [" + named + "] has no key ca.crt and more than one entry.",
             at);
      return;
    }
  }
}

// Envoy's header value syntax (filters.go HeaderValueRegexp): printable ASCII words separated
// by single spaces or tabs.
bool isHeaderValue(std::string_view value) {
  if (value.empty()) return false;
  bool blank = true;  // the previous character was a blank (or there was none)
  for (char ch : value) {
    if (ch == ' ' || ch == '\t') {
      if (blank) return false;
      blank = true;
    } else if (ch < '!' || ch > '~') {
      return false;
    } else {
      blank = false;
    }
  }
  return !blank;
}

// A ClientTrafficPolicy's header modifiers (clienttrafficpolicy.go translateHeaderModifier):
// names without `/` or `:`, values Envoy takes, removals that name a header; a group given
// must leave something valid to do.
void checkHeaders(Context& c) {
  yaml::NodeRef headers = c.spec.get("headers");
  if (!headers.isMapping() || !reachesHttpListener(c)) return;
  for (std::string_view group : {"earlyRequestHeaders", "lateResponseHeaders"}) {
    const yaml::NodeRef modifier = headers.get(group);
    if (!modifier.isMapping()) continue;
    std::string name = capitalized(group);
    std::size_t valid = 0;
    for (std::string_view op : {"add", "set", "addIfAbsent"}) {
      for (yaml::NodeRef header : modifier.get(op).items()) {
        std::string_view key = header.get("name").str();
        if (key.empty())
          c.fail(
              "Headers: " + name + " cannot " + std::string(op) + " a header with an empty name.",
              header);
        else if (key.find_first_of("/:") != std::string_view::npos)
          c.fail("Headers: " + name + " cannot " + std::string(op) +
                     " a header with a '/' or ':' character in them.",
                 header.get("name"));
        else if (!isHeaderValue(header.get("value").str()))
          c.fail("Headers: " + name + " cannot " + std::string(op) +
                     " a header with an invalid value. Header: '" + model::quoted(key) + "'.",
                 header.get("value"));
        else
          ++valid;
      }
    }
    for (yaml::NodeRef removed : modifier.get("remove").items()) {
      if (removed.str().empty())
        c.fail("Headers: " + name + " cannot remove a header with an empty name.", removed);
      else
        ++valid;
    }
    valid += modifier.get("removeOnMatch").size();
    if (valid == 0)
      c.fail("Headers: " + name +
                 " did not provide valid configuration to add/set/remove any headers.",
             keyOf(headers, group));
  }
}

void checkResponseOverride(Context& c) {
  std::string_view ns = c.object.namespace_;
  for (yaml::NodeRef entry : c.spec.get("responseOverride").items()) {
    const yaml::NodeRef body = entry.get("response").get("body");
    yaml::NodeRef ref = body.get("valueRef");
    if (!ref || ref.get("kind").str() != "ConfigMap" || body.get("type").str() == "Inline")
      continue;
    std::string_view name = ref.get("name").str();
    const std::string named = std::string(ns) + "/" + std::string(name);
    const model::Resource* map = c.store.find("", "ConfigMap", ns, name);
    if (!map) {
      if (config::findExternal(c.external, "", "ConfigMap", ns, name)) continue;
      c.fail("ResponseOverride: can't find the referenced configmap " + named + ".",
             ref.get("name"));
      return;
    }
    if (!map->node.get("data").get("response.body") && map->node.get("data").size() == 0 &&
        map->node.get("binaryData").size() == 0) {
      c.fail("ResponseOverride: can't find the key response.body in the referenced configmap " +
                 named + ".",
             ref.get("name"));
      return;
    }
  }
}

// backendRef(s) of an external service (ext auth, ext proc): one endpoint type for all of them,
// a Service or ServiceImport in another namespace needs a ReferenceGrant, a Service needs a
// port, and the port given must be one of the object's TCP ports (ext_service.go
// translateExtServiceBackendRefs).
void checkBackendRefsOf(Context& c, const std::string& feature, yaml::NodeRef service) {
  if (!service.isMapping()) return;
  std::vector<yaml::NodeRef> refs;
  if (yaml::NodeRef one = service.get("backendRef"); one.isMapping()) refs.push_back(one);
  for (yaml::NodeRef ref : service.get("backendRefs").items()) refs.push_back(ref);
  std::string_view ownNamespace = c.object.namespace_;
  // Envoy builds one cluster for the service: its endpoints are either all static (Service,
  // ServiceImport, a Backend's IP or Unix socket) or all resolved by DNS (a Backend's FQDN).
  bool staticEndpoints = false;
  bool dnsEndpoints = false;
  for (yaml::NodeRef ref : refs) {
    std::string_view group = goField(ref, "group").str();
    std::string_view kind = goField(ref, "kind") ? goField(ref, "kind").str() : "Service";
    std::string_view refNamespace =
        goField(ref, "namespace") ? goField(ref, "namespace").str() : ownNamespace;
    if (group == kGroup && kind == "Backend") {
      if (const model::Resource* backend =
              c.store.find(group, kind, refNamespace, goField(ref, "name").str()))
        for (yaml::NodeRef endpoint : backend->spec().get("endpoints").items()) {
          if (endpoint.get("fqdn")) dnsEndpoints = true;
          if (endpoint.get("ip") || endpoint.get("unix")) staticEndpoints = true;
        }
    } else {
      staticEndpoints = true;
    }
    if (staticEndpoints && dnsEndpoints) {
      c.fail(feature +
                 ": external service destinations having multiple endpoint types are not "
                 "supported.",
             ref);
      return;
    }
  }
  for (yaml::NodeRef ref : refs) {
    std::string_view group = goField(ref, "group").str();
    std::string_view kind = goField(ref, "kind") ? goField(ref, "kind").str() : "Service";
    bool isService = group.empty() && kind == "Service";
    bool isServiceImport = group == kServiceImportGroup && kind == "ServiceImport";
    if (!isService && !isServiceImport) continue;
    std::string_view name = goField(ref, "name").str();
    std::string_view ns =
        goField(ref, "namespace") ? goField(ref, "namespace").str() : ownNamespace;
    if (ns != ownNamespace &&
        !c.grants.permits(kGroup, c.object.kind, ownNamespace, group, kind, ns, name)) {
      c.fail(feature + ": backend ref to " + std::string(kind) + " " + std::string(ns) + "/" +
                 std::string(name) + " not permitted by any ReferenceGrant.",
             ref);
      continue;
    }
    const model::Resource* target = c.store.find(group, kind, ns, name);
    if (!target && !config::findExternal(c.external, group, kind, ns, name)) {
      c.fail(feature + ": " + (isService ? "service " : "ServiceImport ") + std::string(ns) + "/" +
                 std::string(name) + " not found.",
             goField(ref, "name") ? goField(ref, "name") : ref,
             model::Missing{std::string(group), std::string(kind), std::string(ns),
                            std::string(name)});
      continue;
    }
    yaml::NodeRef port = goField(ref, "port");
    if (!port) {
      if (isService && target)
        c.fail(feature +
                   ": a valid port number corresponding to a port on the Service must be "
                   "specified.",
               ref);
      continue;
    }
    std::optional<std::int64_t> number = port.asInt();
    if (!target || !number) continue;
    if (!graph::servicePortExists(*target, *number, "TCP"))
      c.fail(feature + ": TCP Port " + std::to_string(*number) + " not found on service " +
                 std::string(ns) + "/" + std::string(name) + ".",
             port);
  }
}

// The `backendSettings` of an external service (ext auth, ext proc, an OIDC provider, a
// remote JWKS), built like a BackendTrafficPolicy's cluster settings under the feature's name.
void checkBackendSettingsOf(Context& c, const std::string& feature, yaml::NodeRef service) {
  const yaml::NodeRef settings = service.get("backendSettings");
  if (!settings.isMapping()) return;
  const yaml::NodeRef buffer = settings.get("connection").get("bufferLimit");
  checkQuantityRange(c, buffer, feature, "BufferLimit", 0, kMaxUint32,
                     "BufferLimit value " + std::string(buffer.str()) + " is out of range");
  checkLoadBalancerOf(c, feature + ": ", settings);
  checkRetryOf(c, feature + ": ", settings);
}

// SecurityPolicy ext auth: its backends, then the context extensions read from a ConfigMap
// or Secret in the policy's namespace, which must hold the key named
// (securitypolicy.go buildExtAuth, buildContextExtensions).
void checkExtAuthBackends(Context& c) {
  const yaml::NodeRef extAuth = c.spec.get("extAuth");
  const std::size_t before = c.problems.size();
  for (std::string_view protocol : {"http", "grpc"}) {
    checkBackendRefsOf(c, "ExtAuth", extAuth.get(protocol));
    checkBackendSettingsOf(c, "ExtAuth", extAuth.get(protocol));
  }
  if (c.problems.size() != before) return;
  const std::string_view ns = c.object.namespace_;
  for (yaml::NodeRef extension : extAuth.get("contextExtensions").items()) {
    if (extension.get("type").str() != "ValueRef") continue;
    const yaml::NodeRef ref = extension.get("valueRef");
    const std::string_view kind = ref.get("kind").str();
    if (kind != "ConfigMap" && kind != "Secret") continue;
    const std::string_view name = ref.get("name").str();
    const std::string_view key = ref.get("key").str();
    const std::string word = kind == "Secret" ? "secret" : "configmap";
    const model::Resource* object = c.store.find("", kind, ns, name);
    if (!object) {
      if (config::findExternal(c.external, "", kind, ns, name)) continue;
      c.fail("ExtAuth: can't find the referenced " + word + " " + model::quoted(name) +
                 " in namespace " + model::quoted(ns) + ".",
             ref.get("name"));
      return;
    }
    const bool hasKey = kind == "Secret" ? model::secretHasKey(*object, key)
                                         : static_cast<bool>(object->node.get("data").get(key));
    if (!hasKey) {
      c.fail("ExtAuth: can't find the key " + model::quoted(key) + " in the referenced " + word +
                 " " + model::quoted(name) + ".",
             ref.get("key"));
      return;
    }
  }
}

void checkExtProcBackends(Context& c) {
  for (yaml::NodeRef extProc : c.spec.get("extProc").items()) {
    checkBackendRefsOf(c, "ExtProc", extProc);
    checkBackendSettingsOf(c, "ExtProc", extProc);
  }
}

// A Secret reference of a policy, as validate.go validateSecretRef checks it: no group, kind
// Secret (or ConfigMap, which still names a Secret), in the policy's namespace or in one a
// ReferenceGrant opens to the policy's kind, and there. The first problem is reported under
// `feature`, and nullopt returned; a Secret declared under `external:` is there but cannot be
// read: nullptr.
std::optional<const model::Resource*> resolveSecret(Context& c, const std::string& feature,
                                                    yaml::NodeRef ref) {
  const std::string_view own = c.object.namespace_;
  const yaml::NodeRef group = ref.get("group");
  const yaml::NodeRef kind = ref.get("kind");
  const yaml::NodeRef namespaceNode = ref.get("namespace");
  const yaml::NodeRef name = ref.get("name");
  if (!group.str().empty()) {
    c.fail(feature + ": secret ref group must be unspecified/empty.", group);
    return std::nullopt;
  }
  if (kind && kind.str() != "Secret" && kind.str() != "ConfigMap") {
    c.fail(feature + ": secret ref kind must be Secret.", kind);
    return std::nullopt;
  }
  const std::string_view ns = namespaceNode.str().empty() ? own : namespaceNode.str();
  const std::string named = std::string(ns) + "/" + std::string(name.str());
  if (ns != own && !c.grants.permits(kGroup, c.object.kind, own, "", "Secret", ns, name.str())) {
    c.fail(
        feature + ": certificate ref to secret " + named + " not permitted by any ReferenceGrant.",
        namespaceNode);
    return std::nullopt;
  }
  if (const model::Resource* secret = c.store.find("", "Secret", ns, name.str())) return secret;
  if (config::findExternal(c.external, "", "Secret", ns, name.str())) return nullptr;
  c.fail(feature + ": secret " + named + " does not exist.", name ? name : ref,
         model::Missing{"", "Secret", std::string(ns), std::string(name.str())});
  return std::nullopt;
}

std::string namespacedName(const model::Resource& object) {
  return std::string(object.namespace_) + "/" + std::string(object.name);
}

// Whether any of the policy's targets is a route of one of `kinds`.
bool targetsRouteKind(const Context& c, std::initializer_list<std::string_view> kinds) {
  if (!c.policy) return false;
  return std::any_of(c.policy->targets.begin(), c.policy->targets.end(), [&](const Target& t) {
    return std::find(kinds.begin(), kinds.end(), t.kind) != kinds.end();
  });
}

// SecurityPolicy on an HTTP or gRPC route (securitypolicy.go validateSecurityPolicy): OIDC
// may pass its token on only to a JWT provider that reads it from a header.
void checkPassThroughAuthHeader(Context& c) {
  const yaml::NodeRef pass = c.spec.get("oidc").get("passThroughAuthHeader");
  if (pass.asBool() != true || !targetsRouteKind(c, {"HTTPRoute", "GRPCRoute"})) return;
  const yaml::NodeRef providers = c.spec.get("jwt").get("providers");
  if (providers.size() == 0) {
    c.fail(
        "Invalid SecurityPolicy: the OIDC.PassThroughAuthHeader setting must be used in "
        "conjunction with JWT settings.",
        pass);
    return;
  }
  for (yaml::NodeRef provider : providers.items()) {
    const yaml::NodeRef from = provider.get("extractFrom");
    if (!from || from.get("headers").size() > 0) return;
  }
  c.fail(
      "Invalid SecurityPolicy: the OIDC.PassThroughAuthHeader setting must be used in "
      "conjunction with a JWT provider that is configured to read from a header.",
      pass);
}

// SecurityPolicy on a TCPRoute (securitypolicy.go validateSecurityPolicyForTCP): only
// authorization by client address applies to TCP.
void checkTcpSecurityPolicy(Context& c) {
  if (!targetsRouteKind(c, {"TCPRoute"})) return;
  const std::string prefix = "Invalid SecurityPolicy for TCP route: ";
  constexpr std::string_view kHttpOnly[] = {"cors",       "jwt",       "oidc",
                                            "apiKeyAuth", "basicAuth", "extAuth"};
  for (auto [key, value] : c.spec.entries())
    if (std::find(std::begin(kHttpOnly), std::end(kHttpOnly), key.str()) != std::end(kHttpOnly) &&
        !value.isNull()) {
      c.fail(prefix + "only authorization is supported for TCP (routes/listeners).", key);
      return;
    }
  std::size_t index = 0;
  for (yaml::NodeRef rule : c.spec.get("authorization").get("rules").items()) {
    const std::string at = "rule " + std::to_string(index++) + ": ";
    if (const yaml::NodeRef cel = rule.get("cel")) {
      c.fail(prefix + at + "CEL not supported for TCP.", cel);
      return;
    }
    const yaml::NodeRef principal = rule.get("principal");
    for (auto [field, what] : {std::pair{"jwt", "JWT"}, std::pair{"headers", "headers"},
                               std::pair{"clientIPGeoLocations", "clientIPGeoLocations"}})
      if (const yaml::NodeRef set = principal.get(field);
          set && !set.isNull() && (set.isMapping() || set.size() > 0)) {
        c.fail(prefix + at + what + " not supported for TCP.", set);
        return;
      }
    for (yaml::NodeRef cidr : principal.get("clientCIDRs").items())
      if (!parsesAsCidr(cidr.str())) {
        c.fail(prefix + at + "invalid ClientCIDR \"" + std::string(cidr.str()) +
                   "\": invalid CIDR address: " + std::string(cidr.str()) + ".",
               cidr);
        return;
      }
  }
}

// SecurityPolicy basic auth (securitypolicy.go buildBasicAuth): the users Secret must hold a
// non-empty `.htpasswd`, every line `user:{SHA}<base64 of a SHA-1 digest>`, the one hash
// Envoy's basic auth filter reads.
void checkBasicAuth(Context& c) {
  const yaml::NodeRef users = c.spec.get("basicAuth").get("users");
  if (!users.isMapping()) return;
  const std::optional<const model::Resource*> secret = resolveSecret(c, "BasicAuth", users);
  if (!secret || !*secret) return;
  const std::string text = model::secretValue(**secret, ".htpasswd");
  const yaml::NodeRef at = users.get("name");
  if (text.empty()) {
    c.fail("BasicAuth: secret " + namespacedName(**secret) +
               " must contain a non-empty \".htpasswd\" key.",
           at);
    return;
  }
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front())))
      line.remove_prefix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
      line.remove_suffix(1);
    if (line.empty()) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      c.fail(
          "BasicAuth: invalid htpasswd format: each line must be in the format "
          "'username:password'.",
          at);
      return;
    }
    const std::string_view password = line.substr(colon + 1);
    if (!password.starts_with("{SHA}")) {
      c.fail("BasicAuth: unsupported htpasswd format: please use {SHA}.", at);
      return;
    }
    const std::string_view encoded = password.substr(5);
    const std::string digest = model::decodeBase64(encoded);
    if (digest.empty() && !encoded.empty()) {
      c.fail("BasicAuth: invalid htpasswd format: {SHA} must be base64-encoded SHA1.", at);
      return;
    }
    if (digest.size() != 20) {
      c.fail("BasicAuth: invalid htpasswd format: {SHA} must be SHA1 (20 bytes).", at);
      return;
    }
  }
}

// SecurityPolicy API key auth (securitypolicy.go buildAPIKeyAuth): every credential Secret
// must resolve; taken in order, each Secret's client IDs sorted, a client ID already read
// from an earlier Secret is skipped, and no key may serve two clients.
void checkApiKeys(Context& c) {
  std::vector<std::string> clients;
  std::vector<std::string> keys;
  for (yaml::NodeRef ref : c.spec.get("apiKeyAuth").get("credentialRefs").items()) {
    const std::optional<const model::Resource*> secret = resolveSecret(c, "APIKeyAuth", ref);
    if (!secret) return;
    if (!*secret) continue;
    std::vector<std::string> ids;
    for (std::string_view field : {"data", "stringData"})
      for (auto [key, value] : (*secret)->node.get(field).entries())
        if (std::find(ids.begin(), ids.end(), key.str()) == ids.end()) ids.emplace_back(key.str());
    std::sort(ids.begin(), ids.end());
    for (const std::string& id : ids) {
      if (std::find(clients.begin(), clients.end(), id) != clients.end()) continue;
      clients.push_back(id);
      std::string key = model::secretValue(**secret, id);
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
        c.fail("APIKeyAuth: duplicated API key.", ref.get("name"));
        return;
      }
      keys.push_back(std::move(key));
    }
  }
}

// SecurityPolicy authorization rules (securitypolicy.go buildAuthorization), rule by rule:
// client CIDRs must parse (the CRD's pattern is not anchored), then a CEL expression must.
// The translator prefixes the feature only for route targets.
void checkAuthorizationRules(Context& c) {
  const bool onRoute = targetsRouteKind(c, {"HTTPRoute", "GRPCRoute"});
  const std::string prefix = onRoute ? "Authorization: unable to translate authorization rule: "
                                     : "Unable to translate authorization rule: ";
  for (yaml::NodeRef rule : c.spec.get("authorization").get("rules").items()) {
    for (yaml::NodeRef cidr : rule.get("principal").get("clientCIDRs").items())
      if (!parsesAsCidr(cidr.str())) {
        c.fail(prefix + "invalid CIDR address: " + std::string(cidr.str()) + ".", cidr);
        return;
      }
    if (const yaml::NodeRef path = rule.get("operation").get("path");
        path.get("type").str() == "RegularExpression")
      if (const std::string error = model::re2Error(path.get("value").str()); !error.empty()) {
        c.fail(prefix + "error parsing regexp: " + error + ".", path.get("value"));
        return;
      }
    const yaml::NodeRef cel = rule.get("cel");
    if (!cel.isScalar() || cel.isNull()) continue;
    if (const std::optional<cel::CompileError> error = cel::syntaxError(cel.str());
        error && !error->unsupported) {
      c.fail(std::string(onRoute ? "Authorization: " : "") +
                 "invalid CEL expression: " + std::string(cel.str()) + ".",
             cel);
      return;
    }
  }
}

// The path of an OIDC redirect URL as securitypolicy.go extractRedirectPath finds it: after
// `scheme://host`, with scheme http, https or Envoy's forwarded-proto substitution, and not
// just "/".
bool hasRedirectPath(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos || scheme == 0) return false;
  const std::string_view name = url.substr(0, scheme);
  if (name != "http" && name != "https" && name != "%REQ(x-forwarded-proto)%") return false;
  const std::string_view rest = url.substr(scheme + 3);
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) return false;
  return rest.substr(slash) != "/";
}

// The host of an absolute URL (without port or brackets).
std::string_view urlHost(std::string_view url) {
  const std::size_t scheme = url.find("://");
  std::string_view rest = scheme == std::string_view::npos ? url : url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const std::size_t at = rest.rfind('@'); at != std::string_view::npos)
    rest = rest.substr(at + 1);
  if (rest.starts_with('[')) return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.rfind(':') == std::string_view::npos ? rest.size() : rest.rfind(':'));
}

// SecurityPolicy OIDC (securitypolicy.go buildOIDC), in the translator's order: a token
// endpoint given with the authorization endpoint must name a domain (when either is left to
// discovery, the provider's document decides, which needs the network); the client ID Secret
// with `client-id`; the client secret Secret with `client-secret`; a redirect URL with a path.
void checkOidc(Context& c) {
  const yaml::NodeRef oidc = c.spec.get("oidc");
  if (!oidc.isMapping()) return;
  const yaml::NodeRef provider = oidc.get("provider");
  const std::size_t before = c.problems.size();
  checkBackendRefsOf(c, "OIDC", provider);
  checkBackendSettingsOf(c, "OIDC", provider);
  if (c.problems.size() != before) return;
  if (const yaml::NodeRef token = provider.get("tokenEndpoint");
      token && provider.get("authorizationEndpoint") &&
      model::Cidr::parse(urlHost(token.str())).has_value()) {
    c.fail("OIDC: token endpoint URL must be a domain name: " + std::string(token.str()) + ".",
           token);
    return;
  }
  for (auto [field, key, what] : {std::tuple{"clientIDRef", "client-id", "client ID"},
                                  std::tuple{"clientSecret", "client-secret", "client secret"}}) {
    const yaml::NodeRef ref = oidc.get(field);
    if (!ref.isMapping()) continue;
    const std::optional<const model::Resource*> secret = resolveSecret(c, "OIDC", ref);
    if (!secret) return;
    if (*secret && model::secretValue(**secret, key).empty()) {
      c.fail(
          std::string("OIDC: ") + what + " not found in secret " + namespacedName(**secret) + ".",
          ref.get("name"));
      return;
    }
  }
  if (const yaml::NodeRef redirect = oidc.get("redirectURL");
      redirect.isScalar() && !redirect.isNull() && !hasRedirectPath(redirect.str()))
    c.fail("OIDC: invalid redirect URL " + std::string(redirect.str()) + ".", redirect);
}

// Go's url.ParseRequestURI, for what JWT providers name: an absolute path, or a scheme
// (a letter, then letters, digits, `+`, `-`, `.`) followed by a path or `//authority`, whose
// port, if any, is numeric; no control characters or spaces.
bool parsesAsRequestUri(std::string_view uri) {
  if (uri.empty()) return false;
  for (char ch : uri)
    if (static_cast<unsigned char>(ch) < 0x21 || ch == 0x7f) return false;
  if (uri.front() == '/') return true;
  const std::size_t colon = uri.find(':');
  if (colon == std::string_view::npos || colon == 0 ||
      !std::isalpha(static_cast<unsigned char>(uri.front())))
    return false;
  for (char ch : uri.substr(0, colon))
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '+' && ch != '-' && ch != '.')
      return false;
  const std::string_view rest = uri.substr(colon + 1);
  if (!rest.starts_with('/')) return false;
  if (!rest.starts_with("//")) return true;
  std::string_view authority = rest.substr(2, rest.substr(2).find_first_of("/?#"));
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos)
    authority = authority.substr(at + 1);
  std::string_view port;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    port = authority.substr(close + 1);
    if (!port.empty() && !port.starts_with(':')) return false;
  } else if (const std::size_t p = authority.rfind(':'); p != std::string_view::npos) {
    port = authority.substr(p);
  }
  if (port.starts_with(':')) port.remove_prefix(1);
  return std::all_of(port.begin(), port.end(),
                     [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
}

// Go's mail.ParseAddress, for an issuer with an `@`: `local@domain`, bare or in angle
// brackets after a display name.
bool parsesAsEmail(std::string_view text) {
  if (const std::size_t open = text.rfind('<'); open != std::string_view::npos) {
    if (!text.ends_with('>')) return false;
    text = text.substr(open + 1, text.size() - open - 2);
  }
  const std::size_t at = text.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == text.size() ||
      text.find('@', at + 1) != std::string_view::npos)
    return false;
  return std::none_of(text.begin(), text.end(), [](char ch) {
    return std::isspace(static_cast<unsigned char>(ch)) || ch == '<' || ch == '>';
  });
}

// SecurityPolicy JWT providers (securitypolicy.go validateJWTProvider, then buildLocalJWKS),
// provider by provider: an issuer with `:` must be a URI, one with `@` an email address; a
// remote JWKS URI must parse; claim-to-header entries need both names; then no two providers
// may share a name; a local JWKS from a ConfigMap needs the ConfigMap, in the policy's
// namespace, with data.
void checkJwtProviders(Context& c) {
  const yaml::NodeRef providers = c.spec.get("jwt").get("providers");
  for (yaml::NodeRef provider : providers.items()) {
    const yaml::NodeRef issuer = provider.get("issuer");
    const std::string_view text = issuer.str();
    if (text.find(':') != std::string_view::npos
            ? !parsesAsRequestUri(text)
            : text.find('@') != std::string_view::npos && !parsesAsEmail(text)) {
      c.fail(
          text.find(':') != std::string_view::npos
              ? "JWT: invalid issuer; when issuer contains ':' character, it MUST be a valid URI."
              : "JWT: invalid issuer; when issuer contains '@' character, it MUST be a valid "
                "Email Address format.",
          issuer);
      return;
    }
    if (const yaml::NodeRef uri = provider.get("remoteJWKS").get("uri");
        uri && !uri.str().empty() && !parsesAsRequestUri(uri.str())) {
      c.fail("JWT: invalid remote JWKS URI: " + std::string(uri.str()) + ".", uri);
      return;
    }
    for (yaml::NodeRef entry : provider.get("claimToHeaders").items()) {
      if (entry.get("header").str().empty()) {
        c.fail("JWT: header must be set for claimToHeader provider.", entry);
        return;
      }
      if (entry.get("claim").str().empty()) {
        c.fail("JWT: claim must be set for claimToHeader provider.", entry);
        return;
      }
    }
  }
  // Provider names key Envoy's JWT filter configuration: one name, one provider.
  std::vector<std::string_view> names;
  for (yaml::NodeRef provider : providers.items()) {
    const yaml::NodeRef name = provider.get("name");
    if (std::find(names.begin(), names.end(), name.str()) != names.end()) {
      c.fail("JWT: provider name " + std::string(name.str()) + " must be unique.", name);
      return;
    }
    names.push_back(name.str());
  }
  for (yaml::NodeRef provider : providers.items()) {
    const std::size_t before = c.problems.size();
    checkBackendRefsOf(c, "JWT", provider.get("remoteJWKS"));
    checkBackendSettingsOf(c, "JWT", provider.get("remoteJWKS"));
    if (c.problems.size() != before) return;
    const yaml::NodeRef local = provider.get("localJWKS");
    if (local.get("type").str() != "ValueRef") continue;
    const yaml::NodeRef name = local.get("valueRef").get("name");
    const std::string_view ns = c.object.namespace_;
    const std::string named = std::string(ns) + "/" + std::string(name.str());
    const model::Resource* map = c.store.find("", "ConfigMap", ns, name.str());
    if (!map) {
      if (config::findExternal(c.external, "", "ConfigMap", ns, name.str())) continue;
      c.fail("JWT: local JWKS ConfigMap " + named + " not found.", name,
             model::Missing{"", "ConfigMap", std::string(ns), std::string(name.str())});
      return;
    }
    const yaml::NodeRef data = map->node.get("data");
    if (!data.get("jwks") && data.size() == 0) {
      c.fail(
          "JWT: JWKS data not found in ConfigMap " + named + ": no \"jwks\" key and no other data.",
          name);
      return;
    }
  }
}

// EnvoyExtensionPolicy Wasm from an OCI image (envoyextensionpolicy.go buildWasm): the pull
// Secret must resolve and hold `.dockerconfigjson`.
void checkWasmPullSecrets(Context& c) {
  for (yaml::NodeRef wasm : c.spec.get("wasm").items()) {
    const yaml::NodeRef ref = wasm.get("code").get("image").get("pullSecretRef");
    if (!ref.isMapping()) continue;
    const std::optional<const model::Resource*> secret = resolveSecret(c, "Wasm", ref);
    if (!secret) return;
    if (*secret && !model::secretHasKey(**secret, ".dockerconfigjson")) {
      c.fail("Wasm: missing .dockerconfigjson key in secret " + namespacedName(**secret) + ".",
             ref.get("name"));
      return;
    }
  }
}

// Whether an EnvoyProxy turns Lua validation off (`lua.validationType`, else the deprecated
// `luaValidation`). Strict, the default, and InsecureSyntax both compile the script.
bool luaValidationDisabled(const model::Resource* proxy) {
  if (!proxy) return false;
  yaml::NodeRef mode = proxy->spec().get("lua").get("validationType");
  if (!mode.isScalar() || mode.isNull()) mode = proxy->spec().get("luaValidation");
  return mode.str() == "Disabled";
}

// The managed Gateways a policy's targets put it on: the targeted Gateways and ListenerSets,
// and the parents of targeted routes.
std::vector<const graph::Gateway*> gatewaysOf(const Context& c) {
  std::vector<const graph::Gateway*> out;
  if (!c.policy || !c.topology) return out;
  auto add = [&](const graph::Gateway* g) {
    if (g && g->managed && std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  };
  for (const Target& t : c.policy->targets) {
    if (!t.resource) continue;
    if (t.kind == "Gateway" || t.kind == "ListenerSet" || t.kind == "XListenerSet") {
      add(c.topology->findGateway(t.namespace_, t.name, t.kind));
    } else if (const graph::Route* r = c.topology->findRoute(t.resource)) {
      for (const graph::RouteParent& p : r->parents) add(p.gateway);
    }
  }
  return out;
}

// EnvoyExtensionPolicy dynamic modules (envoyextensionpolicy.go buildDynamicModules): Envoy
// loads only the modules the EnvoyProxy of the policy's Gateways lists under
// `dynamicModules`.
void checkDynamicModules(Context& c) {
  const yaml::NodeRef modules = c.spec.get("dynamicModule");
  if (modules.size() == 0) return;
  for (const graph::Gateway* gateway : gatewaysOf(c)) {
    const model::Resource* proxy = envoyProxyOf(c.store, *gateway);
    for (yaml::NodeRef module : modules.items()) {
      const std::string_view name = module.get("name").str();
      bool registered = false;
      if (proxy)
        for (yaml::NodeRef allowed : proxy->spec().get("dynamicModules").items())
          registered = registered || allowed.get("name").str() == name;
      if (!registered) {
        c.fail("DynamicModule: dynamic module " + model::quoted(name) +
                   " is not registered in the EnvoyProxy dynamicModules allowlist.",
               module.get("name"));
        return;
      }
    }
  }
}

// The script of one `lua` entry: inline, or from a ConfigMap in the policy's namespace under
// `lua`, else under its only key (the translator takes "the first" of several in Go's map
// order, which is random: nullopt without a problem then). A missing ConfigMap or one with no
// data is a problem.
std::optional<std::string_view> luaBody(Context& c, yaml::NodeRef lua) {
  if (lua.get("type").str() != "ValueRef") {
    yaml::NodeRef inline_ = lua.get("inline");
    if (!inline_.isScalar() || inline_.isNull()) return std::nullopt;
    return inline_.str();
  }
  yaml::NodeRef ref = lua.get("valueRef");
  if (!ref.isMapping()) return std::nullopt;
  std::string name(ref.get("name").str());
  std::string_view ns = c.object.namespace_;
  const model::Resource* map = c.store.find("", "ConfigMap", ns, name);
  if (!map) {
    c.fail("Lua: can't find the referenced configmap " + name + " in namespace " + std::string(ns) +
               ".",
           ref.get("name"));
    return std::nullopt;
  }
  yaml::NodeRef data = map->node.get("data");
  if (yaml::NodeRef body = data.get("lua")) return body.str();
  if (data.size() == 0) {
    c.fail("Lua: can't find the key lua in the referenced configmap " + name + ".",
           ref.get("name"));
    return std::nullopt;
  }
  if (data.size() == 1) return data.valueAt(0).str();
  return std::nullopt;
}

// EnvoyExtensionPolicy Lua (envoyextensionpolicy.go buildLuas -> buildLua ->
// luavalidator.Validate), entry by entry, the first problem only:
//  - the script must name envoy_on_request or envoy_on_response (checked even when
//    validation is Disabled);
//  - unless the EnvoyProxy of every Gateway the policy is on disables validation, the script,
//    with a call of each of those functions appended, must compile. The translator judges
//    the policy once per Gateway; a policy here has one verdict, so a route policy whose
//    route is on Gateways with and without validation is judged as where it is on.
//    Strict validation also runs the script against mocks of Envoy's stream handle;
//    policygraph does not run repository code, so runtime errors are left to the controller.
void checkLua(Context& c) {
  constexpr std::string_view kOnRequest = "envoy_on_request";
  constexpr std::string_view kOnResponse = "envoy_on_response";
  yaml::NodeRef entries = c.spec.get("lua");
  if (!entries.isSequence()) return;
  std::vector<const graph::Gateway*> gateways = gatewaysOf(c);
  const bool compile =
      gateways.empty() || std::any_of(gateways.begin(), gateways.end(), [&](const auto* g) {
        return !luaValidationDisabled(envoyProxyOf(c.store, *g));
      });
  std::string prefix = "Lua: validation failed for lua body in policy with name " +
                       model::lowerAscii(c.object.kind) + "/" + std::string(c.object.namespace_) +
                       "/" + std::string(c.object.name) + "/lua/";
  std::size_t index = 0;
  for (yaml::NodeRef lua : entries.items()) {
    std::string name = prefix + std::to_string(index++) + ": ";
    const std::size_t before = c.problems.size();
    std::optional<std::string_view> body = luaBody(c, lua);
    if (c.problems.size() != before) return;
    if (!body) continue;
    yaml::NodeRef at = lua.get("inline") ? lua.get("inline") : lua;
    const bool onRequest = body->find(kOnRequest) != std::string_view::npos;
    const bool onResponse = body->find(kOnResponse) != std::string_view::npos;
    if (!onRequest && !onResponse) {
      c.fail(name + "expected one of " + std::string(kOnRequest) + "() or " +
                 std::string(kOnResponse) + "() to be defined.",
             at);
      return;
    }
    if (!compile) continue;
    for (std::string_view function : {kOnRequest, kOnResponse}) {
      if (body->find(function) == std::string_view::npos) continue;
      std::string chunk(*body);
      chunk += '\n';
      chunk += function;
      chunk += "(StreamHandle)";
      LuaCompile result = compileLua(chunk);
      if (!result.error.empty()) {
        c.fail(
            name + "failed to validate with " + std::string(function) + ": " + result.error + ".",
            at);
        return;
      }
    }
  }
}

// EnvoyProxy: the provider and its Service (envoyproxy_validate.go validateProvider).
void checkEnvoyProxyProvider(Context& c) {
  yaml::NodeRef provider = c.spec.get("provider");
  if (!provider.isMapping()) return;
  yaml::NodeRef type = provider.get("type");
  if (type.isScalar() && type.str() != "Kubernetes")
    c.fail("unsupported provider type " + std::string(type.str()), type);
  yaml::NodeRef service = provider.get("kubernetes").get("envoyService");
  yaml::NodeRef serviceType = service.get("type");
  if (!serviceType.isScalar() || serviceType.isNull()) return;
  std::string_view t = serviceType.str();
  if (t != "LoadBalancer" && t != "ClusterIP" && t != "NodePort")
    c.fail("unsupported envoy service type " + std::string(t), serviceType);
  if (yaml::NodeRef ports = service.get("allocateLoadBalancerNodePorts");
      ports && t != "LoadBalancer")
    c.fail("allocateLoadBalancerNodePorts can only be set for LoadBalancer type", ports);
  if (yaml::NodeRef ip = service.get("loadBalancerIP"); ip.isScalar() && !ip.isNull()) {
    if (t != "LoadBalancer") c.fail("loadBalancerIP can only be set for LoadBalancer type", ip);
    std::optional<model::Cidr> address = model::Cidr::parse(ip.str());
    if (!address || address->v6 || address->length != 32 ||
        ip.str().find('/') != std::string_view::npos)
      c.fail("loadBalancerIP:" + std::string(ip.str()) + " is an invalid IPv4 address", ip);
  }
}

// EnvoyProxy: each access log sink needs the settings its type names (envoyproxy_validate.go
// validateProxyAccessLog); a disabled access log is not checked. A format without its text
// or json is the default format, not an error.
void checkEnvoyProxyAccessLog(Context& c) {
  yaml::NodeRef accessLog = c.spec.get("telemetry").get("accessLog");
  if (accessLog.get("disable").asBool() == true) return;
  for (yaml::NodeRef setting : accessLog.get("settings").items()) {
    for (yaml::NodeRef sink : setting.get("sinks").items()) {
      std::string_view sinkType = sink.get("type").str();
      if (sinkType == "File" && !sink.get("file"))
        c.fail(
            "unable to configure access log when using File sink type but \"file\" field being "
            "empty",
            sink);
      if (sinkType == "OpenTelemetry" && !sink.get("openTelemetry"))
        c.fail(
            "unable to configure access log when using OpenTelemetry sink type but "
            "\"openTelemetry\" field being empty",
            sink);
    }
  }
}

// The name the translator gives a listener in its IR: namespace/gateway/listener, and for a
// ListenerSet's listener namespace/gateway/namespace/listenerset/listener.
std::string irListenerName(const graph::Listener& l) {
  const graph::Gateway& g = *l.gateway;
  std::string out;
  if (g.parent)
    out = std::string(g.parent->resource->namespace_) + "/" +
          std::string(g.parent->resource->name) + "/";
  return out + std::string(g.resource->namespace_) + "/" + std::string(g.resource->name) + "/" +
         std::string(l.name);
}

// ClientTrafficPolicy: plain HTTP listeners on one port share one Envoy listener, so a policy
// may not reach one of them without the others: on a listener, no other HTTP listener of
// its data plane may share its port; on a whole Gateway or ListenerSet, none from outside
// it (clienttrafficpolicy.go validatePortOverlapForClientTrafficPolicy). The data plane
// is the Gateway with its ListenerSets, or every Gateway of the class when its EnvoyProxy
// merges Gateways.
void checkClientTrafficPolicyPorts(Context& c) {
  if (!c.policy || !c.topology) return;
  for (const Target& t : c.policy->targets) {
    if (!t.resource) continue;
    const graph::Gateway* g = c.topology->findGateway(t.namespace_, t.name, t.kind);
    if (!g || !g->managed) continue;
    const graph::Gateway* root = g->parent ? g->parent : g;
    const bool merged = mergesGateways(c.store, root->gatewayClass);
    auto inPlane = [&](const graph::Gateway& other) {
      const graph::Gateway* otherRoot = other.parent ? other.parent : &other;
      if (otherRoot == root) return true;
      return merged && otherRoot->managed && otherRoot->gatewayClass == root->gatewayClass;
    };
    for (const graph::Listener& l : g->listeners) {
      if (!t.sectionName.empty() && l.name != t.sectionName) continue;
      if (l.protocol != "HTTP") continue;
      std::string conflicting;
      for (const graph::Gateway& other : c.topology->gateways) {
        if (!inPlane(other)) continue;
        // A whole Gateway takes its ListenerSets' listeners with it (their IR names start
        // with the Gateway's).
        if (t.sectionName.empty() && (&other == g || other.parent == g)) continue;
        for (const graph::Listener& o : other.listeners)
          if (&o != &l && o.protocol == "HTTP" && o.port == l.port)
            conflicting += (conflicting.empty() ? "" : ", ") + irListenerName(o);
      }
      if (!conflicting.empty()) {
        c.fail("ClientTrafficPolicy is being applied to multiple http (non https) listeners (" +
                   conflicting + ") on the same port, which is not allowed.",
               t.node ? t.node : c.spec);
        return;
      }
    }
  }
}

// The client IP detection of the ClientTrafficPolicy on `gateway` (or one of its listeners):
// its `spec.clientIPDetection`, null when no policy there sets one.
yaml::NodeRef clientIpDetection(const model::Store& store, const graph::Gateway& gateway) {
  for (const model::Resource* ctp : store.ofKind(kGroup, "ClientTrafficPolicy")) {
    if (ctp->namespace_ != gateway.resource->namespace_) continue;
    const yaml::NodeRef detection = ctp->spec().get("clientIPDetection");
    if (!detection.isMapping()) continue;
    std::vector<yaml::NodeRef> refs;
    if (yaml::NodeRef one = ctp->spec().get("targetRef"); one.isMapping()) refs.push_back(one);
    for (yaml::NodeRef ref : ctp->spec().get("targetRefs").items()) refs.push_back(ref);
    for (yaml::NodeRef ref : refs)
      if (ref.get("kind").str() == gateway.resource->kind &&
          ref.get("name").str() == gateway.resource->name)
        return detection;
  }
  return {};
}

// What authorization by client IP geolocation needs on one Gateway
// (securitypolicy.go validateAuthorizationGeoIP): a ClientTrafficPolicy that says where the
// client address comes from, in exactly one way, and not from X-Forwarded-For by trusted
// CIDRs; an EnvoyProxy with a MaxMind geoIP provider holding the database each field asks.
std::optional<std::string> geoIpProblem(const Context& c, const graph::Gateway& gateway,
                                        const std::vector<std::string_view>& fields) {
  yaml::NodeRef detection = clientIpDetection(c.store, gateway);
  if (!detection && gateway.parent) detection = clientIpDetection(c.store, *gateway.parent);
  const std::string needs = "authorization clientIPGeoLocations ";
  if (!detection)
    return needs + "requires ClientTrafficPolicy.spec.clientIPDetection to be configured";
  int modes = 0;
  for (std::string_view mode : {"xForwardedFor", "customHeader", "directSourceIP"})
    if (const yaml::NodeRef set = detection.get(mode); set && !set.isNull()) ++modes;
  if (modes != 1)
    return needs +
           "requires exactly one of "
           "ClientTrafficPolicy.spec.clientIPDetection.{xForwardedFor,customHeader,directSourceIP}";
  if (detection.get("xForwardedFor").get("trustedCIDRs").size() > 0)
    return needs + "does not support ClientIPDetection.XForwardedFor.TrustedCIDRs";
  const model::Resource* proxy = envoyProxyOf(c.store, gateway);
  const yaml::NodeRef provider =
      proxy ? proxy->spec().get("geoIP").get("provider") : yaml::NodeRef();
  if (!provider.isMapping())
    return needs + "requires EnvoyProxy.spec.geoIP.provider to be configured";
  const std::string_view type = provider.get("type").str();
  const yaml::NodeRef maxMind = provider.get("maxMind");
  if (type != "MaxMind") return "unsupported geoIP provider type " + model::quoted(type);
  if (!maxMind.isMapping())
    return std::string("geoIP provider MaxMind is missing maxMind configuration");
  // The database each field is read from; a country is in the city database too.
  constexpr std::tuple<std::string_view, std::string_view, std::string_view> kSources[] = {
      {"country", "countryDbSource", "cityDbSource"},
      {"region", "cityDbSource", ""},
      {"city", "cityDbSource", ""},
      {"asn", "asnDbSource", ""},
      {"isp", "ispDbSource", ""},
      {"anonymous", "anonymousIpDbSource", ""}};
  for (auto [field, source, alternative] : kSources) {
    if (std::find(fields.begin(), fields.end(), field) == fields.end()) continue;
    if (maxMind.get(source) || (!alternative.empty() && maxMind.get(alternative))) continue;
    return "authorization clientIPGeoLocations." + std::string(field) +
           " requires EnvoyProxy.spec.geoIP.provider.maxMind." + std::string(source) +
           (alternative.empty() ? "" : " or " + std::string(alternative));
  }
  return std::nullopt;
}

// SecurityPolicy authorization by client IP geolocation, on every Gateway the policy reaches.
void checkGeoIp(Context& c) {
  if (!c.policy || !c.topology) return;
  yaml::NodeRef geo;
  std::vector<std::string_view> fields;
  for (yaml::NodeRef rule : c.spec.get("authorization").get("rules").items())
    for (yaml::NodeRef location : rule.get("principal").get("clientIPGeoLocations").items()) {
      if (!geo) geo = rule.get("principal").get("clientIPGeoLocations");
      for (auto [key, value] : location.entries())
        if (std::find(fields.begin(), fields.end(), key.str()) == fields.end())
          fields.push_back(key.str());
    }
  if (!geo) return;
  for (const graph::Gateway* g : gatewaysOf(c)) {
    if (const std::optional<std::string> problem = geoIpProblem(c, *g, fields)) {
      c.fail("Authorization: " + *problem + ".", geo);
      return;
    }
  }
}

// One validation of the translator. `kinds` lists the kinds it runs for ("*": every Envoy
// Gateway policy kind); `reason` is the condition reason the translator writes.
struct Check {
  std::string_view upstream;  // the function of envoyproxy/gateway it follows
  std::string_view kinds;
  std::string_view reason;
  void (*run)(Context&);
};

constexpr std::string_view kPolicies = "*";

// Every check, in the order the translator runs them: a policy reports every problem, joined.
constexpr Check kChecks[] = {
    {"every policy: time.ParseDuration / metav1.Duration of duration fields", kPolicies, "Invalid",
     checkDurations},
    {"backendtrafficpolicy.go buildCircuitBreaker", kPolicies, "Invalid", checkCircuitBreaker},
    {"clustersettings.go buildConsistentHashLoadBalancer (Maglev table size)", kPolicies, "Invalid",
     checkLoadBalancer},
    {"clustersettings.go buildRetry (backoff intervals)", kPolicies, "Invalid", checkRetry},
    {"backendtrafficpolicy.go buildRateLimit / buildLocalRateLimit / buildRateLimitRule", kPolicies,
     "Invalid", checkRateLimit},
    {"backendtrafficpolicy.go buildBandwidthLimit (at least 1 KiB/s)", kPolicies, "Invalid",
     checkBandwidthLimit},
    {"clustersettings.go buildBackendConnection, http.go buildIRHTTP2Settings, "
     "backendtrafficpolicy.go buildRequestBuffer, clienttrafficpolicy.go buildConnection / "
     "translateListenerHeaderSettings (Quantity ranges)",
     kPolicies, "Invalid", checkSizes},
    {"clienttrafficpolicy.go translateEarlyRequestHeaders / lateResponseHeaders", kPolicies,
     "Invalid", checkHeaders},
    {"clienttrafficpolicy.go translateListenerTLSParameters -> tls.go validateCipherSuites",
     "ClientTrafficPolicy", "Invalid", checkCipherSuites},
    {"clienttrafficpolicy.go buildListenerTLSParameters -> validateAndGetDataAtKeyInRef "
     "(client validation CA references)",
     "ClientTrafficPolicy", "Invalid", checkClientValidation},
    {"backendtrafficpolicy.go buildResponseOverride (ConfigMap valueRef)", kPolicies, "Invalid",
     checkResponseOverride},
    {"securitypolicy.go buildExtAuth -> ext_service.go translateExtServiceBackendRefs, "
     "buildContextExtensions",
     kPolicies, "Invalid", checkExtAuthBackends},
    {"envoyextensionpolicy.go buildExtProc -> ext_service.go translateExtServiceBackendRefs",
     kPolicies, "Invalid", checkExtProcBackends},
    {"securitypolicy.go validateSecurityPolicy (OIDC passThroughAuthHeader needs a JWT header)",
     "SecurityPolicy", "Invalid", checkPassThroughAuthHeader},
    {"securitypolicy.go validateSecurityPolicyForTCP (authorization by client CIDR only)",
     "SecurityPolicy", "Invalid", checkTcpSecurityPolicy},
    {"securitypolicy.go buildBasicAuth (validateSecretRef, .htpasswd, validateHtpasswdFormat)",
     "SecurityPolicy", "Invalid", checkBasicAuth},
    {"securitypolicy.go buildAPIKeyAuth (validateSecretRef, duplicated keys)", "SecurityPolicy",
     "Invalid", checkApiKeys},
    {"securitypolicy.go buildAuthorization (parseCIDR, validateAuthorizationOperation, "
     "validCELExpression)",
     "SecurityPolicy", "Invalid", checkAuthorizationRules},
    {"securitypolicy.go buildOIDC (provider backendRefs, validateTokenEndpoint, client ID and "
     "secret Secrets, extractRedirectPath)",
     "SecurityPolicy", "Invalid", checkOidc},
    {"securitypolicy.go buildJWT (validateJWTProvider, remote JWKS backendRefs, buildLocalJWKS)",
     "SecurityPolicy", "Invalid", checkJwtProviders},
    {"envoyextensionpolicy.go buildWasm (pullSecretRef)", "EnvoyExtensionPolicy", "Invalid",
     checkWasmPullSecrets},
    {"envoyextensionpolicy.go buildDynamicModules (EnvoyProxy allowlist)", "EnvoyExtensionPolicy",
     "Invalid", checkDynamicModules},
    {"envoyextensionpolicy.go buildLuas -> buildLua -> luavalidator.Validate",
     "EnvoyExtensionPolicy", "Invalid", checkLua},
    {"securitypolicy.go validateAuthorizationGeoIP (client IP detection, EnvoyProxy geoIP "
     "databases)",
     "SecurityPolicy", "Invalid", checkGeoIp},
    {"clienttrafficpolicy.go translateHTTP1Settings (HTTP/1.0 default host)", "ClientTrafficPolicy",
     "Invalid", checkHttp10DefaultHost},
    {"clienttrafficpolicy.go validatePortOverlapForClientTrafficPolicy", "ClientTrafficPolicy",
     "Invalid", checkClientTrafficPolicyPorts},
    {"envoyproxy_validate.go validateProvider / validateService", "EnvoyProxy", "InvalidParameters",
     checkEnvoyProxyProvider},
    {"envoyproxy_validate.go validateProxyAccessLog", "EnvoyProxy", "InvalidParameters",
     checkEnvoyProxyAccessLog},
};

bool appliesTo(const Check& check, std::string_view kind) {
  if (check.kinds == kPolicies) return kind != "EnvoyProxy";
  return check.kinds == kind;
}

}  // namespace

bool holdsCaCertificate(const model::Resource& object) {
  std::size_t entries = object.node.get("data").size();
  if (object.kind != "Secret") return object.node.get("data").get("ca.crt") || entries == 1;
  return model::secretHasKey(object, "ca.crt") ||
         entries + object.node.get("stringData").size() == 1;
}

yaml::NodeRef goField(yaml::NodeRef map, std::string_view key) {
  if (yaml::NodeRef exact = map.get(key)) return exact;
  for (auto [k, value] : map.entries()) {
    std::string_view name = k.str();
    if (model::equalsIgnoringCase(name, key)) return value;
  }
  return {};
}

std::vector<Problem> validateAll(const model::Resource& object, const model::Store& store,
                                 const graph::ReferenceGrantIndex& grants,
                                 const std::vector<config::ExternalObject>& external,
                                 bool firstOnly, const Policy* policy,
                                 const graph::Topology* topology,
                                 const config::EnvoyGatewaySettings* settings) {
  Context c{object, store, grants, object.spec(), external, policy, topology, {}, settings};
  if (!c.spec.isMapping()) return {};
  for (const Check& check : kChecks) {
    if (!appliesTo(check, object.kind)) continue;
    check.run(c);
    if (firstOnly && !c.problems.empty()) {
      c.problems.resize(1);
      break;
    }
  }
  return std::move(c.problems);
}

std::vector<Problem> validate(const Policy& policy, const model::Store& store,
                              const graph::Topology& topology,
                              const std::vector<config::ExternalObject>& external,
                              const config::EnvoyGatewaySettings& settings) {
  return validateAll(*policy.resource, store, topology.grants, external, false, &policy, &topology,
                     &settings);
}

}  // namespace pg::policy::envoygateway
