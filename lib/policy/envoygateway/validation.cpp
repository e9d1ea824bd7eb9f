// Checks of an Envoy Gateway policy's spec that its translator turns into Accepted False,
// reason Invalid. Only structural ones: values the translator cannot parse or rejects by a
// fixed rule, and references to objects that must be in the input. Anything that needs the
// data plane (Wasm checksums, Lua syntax, TLS cipher names) is left to the cluster.
//
// Messages follow the translator's: "<Feature>: <what is wrong>."
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include "lib/graph/topology.h"
#include "lib/policy/envoygateway/envoygateway.h"

namespace pg::policy::envoygateway {

namespace {

constexpr std::string_view kEnvoyGatewayGroup = "gateway.envoyproxy.io";

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
  if (text == "0") return 0.0;
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  double total = 0;
  while (!s.empty()) {
    std::size_t digits = 0;
    bool seenDigit = false;
    while (digits < s.size() &&
           (std::isdigit(static_cast<unsigned char>(s[digits])) || s[digits] == '.')) {
      seenDigit = seenDigit || s[digits] != '.';
      ++digits;
    }
    if (!seenDigit) return std::nullopt;
    double number = std::stod(std::string(s.substr(0, digits)));
    s.remove_prefix(digits);
    std::size_t unitLength = 0;
    while (unitLength < s.size() && !std::isdigit(static_cast<unsigned char>(s[unitLength])) &&
           s[unitLength] != '.')
      ++unitLength;
    std::string_view unit = s.substr(0, unitLength);
    s.remove_prefix(unitLength);
    double scale = 0;
    if (unit == "ns")
      scale = 1;
    else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs")
      scale = 1e3;
    else if (unit == "ms")
      scale = 1e6;
    else if (unit == "s")
      scale = 1e9;
    else if (unit == "m")
      scale = 60e9;
    else if (unit == "h")
      scale = 3600e9;
    else
      return std::nullopt;
    total += number * scale;
  }
  return negative ? -total : total;
}

// Field names the Envoy Gateway API gives its durations.
bool isDurationField(std::string_view key) {
  auto endsWith = [&](std::string_view suffix) {
    return key.size() >= suffix.size() && key.substr(key.size() - suffix.size()) == suffix;
  };
  return key == "timeout" || key == "interval" || key == "idleTime" || endsWith("Timeout") ||
         endsWith("Duration") || endsWith("Interval") || endsWith("Delay");
}

class Validator {
 public:
  Validator(const Policy& policy, const model::Store& store,
            const graph::ReferenceGrantIndex& grants)
      : policy_(policy), store_(store), grants_(grants), spec_(policy.resource->spec()) {}

  std::optional<Problem> run() {
    for (auto [key, value] : spec_.entries()) {
      std::string feature = featureName(key.str());
      checkDurations(feature, value);
      if (problem_) return problem_;
    }
    checkCircuitBreaker();
    checkLoadBalancer();
    checkRetry();
    checkRateLimit();
    checkBandwidthLimit();
    checkHeaders();
    checkResponseOverride();
    checkBackendRefs("ExtAuth", spec_.get("extAuth").get("http"));
    checkBackendRefs("ExtAuth", spec_.get("extAuth").get("grpc"));
    for (yaml::NodeRef extProc : spec_.get("extProc").items()) checkBackendRefs("ExtProc", extProc);
    return problem_;
  }

 private:
  // The feature a top-level field configures, as the translator names it in messages.
  static std::string featureName(std::string_view key) {
    if (key == "circuitBreaker") return "CircuitBreaker";
    if (key == "connection") return "Connection";
    return capitalized(key);
  }

  void fail(std::string message, yaml::NodeRef at) {
    if (!problem_) problem_ = Problem{std::move(message), at};
  }

  void checkDurations(const std::string& feature, yaml::NodeRef node) {
    if (node.isMapping()) {
      for (auto [key, value] : node.entries()) {
        if (isDurationField(key.str()) && value.isScalar() && !value.isNull() &&
            !parseDuration(value.str()))
          fail(feature + ": invalid " + capitalized(key.str()) + " value " +
                   std::string(value.str()) + ".",
               value);
        checkDurations(feature, value);
      }
    } else if (node.isSequence()) {
      for (yaml::NodeRef item : node.items()) checkDurations(feature, item);
    }
  }

  void checkCircuitBreaker() {
    for (auto [key, value] : spec_.get("circuitBreaker").entries()) {
      std::optional<std::int64_t> n = value.asInt();
      if (n && *n < 0)
        fail("CircuitBreaker: invalid " + capitalized(key.str()) + " value " + std::to_string(*n) +
                 ".",
             value);
    }
  }

  static bool isPrime(std::int64_t n) {
    if (n < 2) return false;
    for (std::int64_t d = 2; d * d <= n; ++d)
      if (n % d == 0) return false;
    return true;
  }

  void checkLoadBalancer() {
    yaml::NodeRef size = spec_.get("loadBalancer").get("consistentHash").get("tableSize");
    std::optional<std::int64_t> n = size.asInt();
    if (n && (*n > kMaxConsistentHashTableSize || !isPrime(*n)))
      fail("LoadBalancer: ConsistentHash: invalid TableSize value " + std::to_string(*n) + ".",
           size);
  }

  void checkRetry() {
    yaml::NodeRef backoff = spec_.get("retry").get("perRetry").get("backoff");
    yaml::NodeRef base = backoff.get("baseInterval");
    yaml::NodeRef max = backoff.get("maxInterval");
    std::optional<double> b = base ? parseDuration(base.str()) : std::nullopt;
    std::optional<double> m = max ? parseDuration(max.str()) : std::nullopt;
    if (b && *b == 0) fail("Retry: baseInterval cannot be set to 0s.", base);
    if (b && m && *m < *b) fail("Retry: maxInterval cannot be less than baseInterval.", max);
  }

  void checkRateLimit() {
    yaml::NodeRef rateLimit = spec_.get("rateLimit");
    for (std::string_view scope : {"global", "local"})
      for (yaml::NodeRef rule : rateLimit.get(scope).get("rules").items())
        for (yaml::NodeRef selector : rule.get("clientSelectors").items())
          for (yaml::NodeRef header : selector.get("headers").items())
            if (header.get("type").str() == "Distinct" && header.get("invert").asBool() == true)
              fail(
                  "RateLimit: unable to translate rateLimit.Invert is not applicable for "
                  "distinct header match type.",
                  header.get("invert"));
  }

  // Envoy's bandwidth limit filter works in KiB/s: a smaller limit cannot be expressed.
  void checkBandwidthLimit() {
    for (std::string_view direction : {"request", "response"}) {
      yaml::NodeRef limit = spec_.get("bandwidthLimit").get(direction).get("limit");
      std::optional<std::int64_t> bytes = limit.get("value").asInt();
      if (!bytes) continue;
      std::string_view unit = limit.get("unit").str();
      double perSecond = static_cast<double>(*bytes);
      if (unit == "Minute") perSecond /= 60;
      if (unit == "Hour") perSecond /= 3600;
      if (perSecond < 1024)
        fail("BandwidthLimit: " + std::string(direction) + ": bandwidth limit of " +
                 std::to_string(*bytes) + " bytes per " + std::string(unit) +
                 " is below the minimum of 1 KiB/s.",
             limit.get("value"));
    }
  }

  void checkHeaders() {
    yaml::NodeRef headers = spec_.get("headers");
    for (std::string_view group : {"earlyRequestHeaders", "lateResponseHeaders"}) {
      std::string name = capitalized(group);
      for (std::string_view op : {"add", "set"}) {
        for (yaml::NodeRef header : headers.get(group).get(op).items()) {
          std::string_view key = header.get("name").str();
          if (key.empty())
            fail("Headers: " + name + " cannot add a header with an empty name.", header);
          else if (key.find_first_of("/:") != std::string_view::npos)
            fail("Headers: " + name + " cannot add a header with a '/' or ':' character in them.",
                 header.get("name"));
        }
      }
      for (yaml::NodeRef removed : headers.get(group).get("remove").items())
        if (removed.str().empty())
          fail("Headers: " + name + " cannot remove a header with an empty name.", removed);
    }
  }

  void checkResponseOverride() {
    std::string_view ns = policy_.resource->namespace_;
    for (yaml::NodeRef entry : spec_.get("responseOverride").items()) {
      yaml::NodeRef ref = entry.get("response").get("body").get("valueRef");
      if (!ref || ref.get("kind").str() != "ConfigMap") continue;
      std::string_view name = ref.get("name").str();
      if (!store_.find("", "ConfigMap", ns, name))
        fail("ResponseOverride: can't find the referenced configmap " + std::string(ns) + "/" +
                 std::string(name) + ".",
             ref);
    }
  }

  // backendRef(s) of an external service (ext auth, ext proc): a Service in another namespace
  // needs a ReferenceGrant, and a Service needs a port it has.
  void checkBackendRefs(const std::string& feature, yaml::NodeRef service) {
    if (!service.isMapping()) return;
    std::vector<yaml::NodeRef> refs;
    if (yaml::NodeRef one = service.get("backendRef"); one.isMapping()) refs.push_back(one);
    for (yaml::NodeRef ref : service.get("backendRefs").items()) refs.push_back(ref);
    std::string_view ownNamespace = policy_.resource->namespace_;
    for (yaml::NodeRef ref : refs) {
      std::string_view group = goField(ref, "group").str();
      std::string_view kind = goField(ref, "kind") ? goField(ref, "kind").str() : "Service";
      if (!group.empty() || kind != "Service") continue;
      std::string_view name = goField(ref, "name").str();
      std::string_view ns =
          goField(ref, "namespace") ? goField(ref, "namespace").str() : ownNamespace;
      if (ns != ownNamespace && !grants_.permits(kEnvoyGatewayGroup, policy_.profile->kind,
                                                 ownNamespace, "", "Service", ns, name)) {
        fail(feature + ": backend ref to Service " + std::string(ns) + "/" + std::string(name) +
                 " not permitted by any ReferenceGrant.",
             ref);
        continue;
      }
      if (!goField(ref, "port") && store_.find("", "Service", ns, name))
        fail(feature +
                 ": a valid port number corresponding to a port on the Service must be "
                 "specified.",
             ref);
    }
  }

  const Policy& policy_;
  const model::Store& store_;
  const graph::ReferenceGrantIndex& grants_;
  yaml::NodeRef spec_;
  std::optional<Problem> problem_;
};

}  // namespace

yaml::NodeRef goField(yaml::NodeRef map, std::string_view key) {
  if (yaml::NodeRef exact = map.get(key)) return exact;
  for (auto [k, value] : map.entries()) {
    std::string_view name = k.str();
    if (name.size() == key.size() &&
        std::equal(name.begin(), name.end(), key.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        }))
      return value;
  }
  return {};
}

std::optional<Problem> validate(const Policy& policy, const model::Store& store,
                                const graph::ReferenceGrantIndex& grants) {
  if (!policy.resource->spec().isMapping()) return std::nullopt;
  return Validator(policy, store, grants).run();
}

}  // namespace pg::policy::envoygateway
