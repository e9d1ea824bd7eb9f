// pg_bench_gen: writes a synthetic GitOps repository of Gateway API, Kuadrant, Envoy Gateway,
// Kuma and Linkerd manifests for the benchmarks. The repository is meant to be clean (no
// findings) so that a run measures the work every repository pays for, not the reporting of
// findings; and deterministic (same arguments, same bytes) so that figures taken on different
// days compare.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "lib/model/quote.h"

namespace {

// A self-signed Ed25519 certificate for example.com (valid 2024 to 2124) and its key, base64
// as a Secret's data holds them: controllers parse both and match them.
constexpr const char* kCertificate =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJDVENCdktBREFnRUNBaFE1OWRGSU1GSkovS21r"
    "NmNhK2tTMGY4cUVHVkRBRkJnTXJaWEF3RmpFVU1CSUcKQTFVRUF3d0xaWGhoYlhCc1pTNWpiMjB3SUJj"
    "Tk1qUXdNVEF4TURBd01EQXdXaGdQTWpFeU5EQXhNREV3TURBdwpNREJhTUJZeEZEQVNCZ05WQkFNTUMy"
    "VjRZVzF3YkdVdVkyOXRNQ293QlFZREsyVndBeUVBNm9kVFl5TVFIUlFyCm1XbmZDaUZpdnJCVm1RSG56"
    "bWt4NDJUQWJCZUs0UmFqR2pBWU1CWUdBMVVkRVFRUE1BMkNDMlY0WVcxd2JHVXUKWTI5dE1BVUdBeXRs"
    "Y0FOQkFPY3ZPRlRnYitDakhuQTk0cDB2Ky9Wb0kyMS9lUDhnNDdpSHcvTkRuTkdHTVoxRQp6bFc2eW0r"
    "RVR1NUYxUXAzOGZpRDZkeUhBRVROeDE2ekJIOWViUTQ9Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";
constexpr const char* kPrivateKey =
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1DNENBUUF3QlFZREsyVndCQ0lFSUhjSkVwaWZPQSt4"
    "TVg4TEM2VFlob2laZXA4dWdFNGd0RTB5clk5M29PVHYKLS0tLS1FTkQgUFJJVkFURSBLRVktLS0tLQo=";

namespace fs = std::filesystem;

// SplitMix64: its output is fixed by its definition, unlike the standard distributions, whose
// results differ between library implementations.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi]; the modulo bias is irrelevant for test data.
  int between(int lo, int hi) {
    return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return between(0, 99) < percent; }

 private:
  std::uint64_t state_;
};

// A manifest as a tree, so one object can be written as YAML, as JSON, or inside a List.
struct Field;
struct Value {
  enum class Type { String, Literal, Block, Map, Seq };
  Type type = Type::Map;
  std::string text;           // String (always a string), Literal (number, boolean), Block
  std::vector<Field> fields;  // Map
  std::vector<Value> items;   // Seq
};
struct Field {
  std::string key;
  Value value;
};

Value str(std::string text) {
  return {Value::Type::String, std::move(text), {}, {}};
}
Value lit(long long number) {
  return {Value::Type::Literal, std::to_string(number), {}, {}};
}
Value boolean(bool b) {
  return {Value::Type::Literal, b ? "true" : "false", {}, {}};
}
Value block(std::string text) {
  return {Value::Type::Block, std::move(text), {}, {}};
}
Value map(std::vector<Field> fields) {
  return {Value::Type::Map, {}, std::move(fields), {}};
}
Value seq(std::vector<Value> items) {
  return {Value::Type::Seq, {}, {}, std::move(items)};
}

std::string padded(int number, int width) {
  std::string digits = std::to_string(number);
  if (static_cast<int>(digits.size()) < width)
    digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  return digits;
}

// --- writers ----------------------------------------------------------------------------------

// A plain scalar that YAML would read as something other than this string needs quotes.
bool needsQuotes(std::string_view s) {
  if (s.empty()) return true;
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos)
    return true;
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos ||
      s.back() == ':' || s.back() == ' ')
    return true;
  static constexpr std::string_view kTyped[] = {"true", "false", "True", "False", "yes", "no",
                                                "on",   "off",   "null", "Null",  "~"};
  if (std::find(std::begin(kTyped), std::end(kTyped), s) != std::end(kTyped)) return true;
  double d = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  return ec == std::errc() && ptr == s.data() + s.size();
}

void yamlScalar(std::string& out, const Value& v, int indent) {
  switch (v.type) {
    case Value::Type::Literal:
      out += v.text;
      break;
    case Value::Type::Block: {
      out += "|\n";
      std::string_view rest = v.text;
      while (!rest.empty()) {
        std::size_t nl = rest.find('\n');
        out.append(static_cast<std::size_t>(indent + 2), ' ');
        out += rest.substr(0, nl);
        out += '\n';
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
      }
      out.pop_back();  // the caller ends the line
      break;
    }
    default:
      if (needsQuotes(v.text)) {
        pg::model::appendQuoted(out, v.text);
      } else {
        out += v.text;
      }
  }
}

bool isScalar(const Value& v) {
  return v.type != Value::Type::Map && v.type != Value::Type::Seq;
}

void yamlValue(std::string& out, const Value& v, int indent);

// Entries of a mapping at `indent`; the first one may already have its indentation written
// (after a sequence's "- ").
void yamlMap(std::string& out, const Value& v, int indent, bool firstIndented) {
  bool first = true;
  for (const Field& f : v.fields) {
    if (!(first && firstIndented)) out.append(static_cast<std::size_t>(indent), ' ');
    first = false;
    out += f.key;
    out += ':';
    yamlValue(out, f.value, indent);
  }
}

// Sequences are written the way kubectl writes them: "- " at the indentation of their key.
void yamlSeq(std::string& out, const Value& v, int indent) {
  for (const Value& item : v.items) {
    out.append(static_cast<std::size_t>(indent), ' ');
    out += "- ";
    if (isScalar(item)) {
      yamlScalar(out, item, indent + 2);
      out += '\n';
    } else if (item.type == Value::Type::Map && !item.fields.empty()) {
      yamlMap(out, item, indent + 2, true);
    } else {
      out += item.type == Value::Type::Map ? "{}\n" : "[]\n";
    }
  }
}

// The value after "key:" of a mapping entry at `indent`.
void yamlValue(std::string& out, const Value& v, int indent) {
  if (isScalar(v)) {
    out += ' ';
    yamlScalar(out, v, indent);
    out += '\n';
  } else if (v.type == Value::Type::Map) {
    if (v.fields.empty()) {
      out += " {}\n";
      return;
    }
    out += '\n';
    yamlMap(out, v, indent + 2, false);
  } else {
    if (v.items.empty()) {
      out += " []\n";
      return;
    }
    out += '\n';
    yamlSeq(out, v, indent);
  }
}

void json(std::string& out, const Value& v, int indent) {
  auto newline = [&](int level) {
    out += '\n';
    out.append(static_cast<std::size_t>(level), ' ');
  };
  switch (v.type) {
    case Value::Type::Literal:
      out += v.text;
      return;
    case Value::Type::String:
    case Value::Type::Block:
      pg::model::appendQuoted(out, v.text);
      return;
    case Value::Type::Map: {
      if (v.fields.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      for (std::size_t i = 0; i < v.fields.size(); ++i) {
        newline(indent + 2);
        pg::model::appendQuoted(out, v.fields[i].key);
        out += ": ";
        json(out, v.fields[i].value, indent + 2);
        if (i + 1 < v.fields.size()) out += ',';
      }
      newline(indent);
      out += '}';
      return;
    }
    case Value::Type::Seq: {
      if (v.items.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        newline(indent + 2);
        json(out, v.items[i], indent + 2);
        if (i + 1 < v.items.size()) out += ',';
      }
      newline(indent);
      out += ']';
      return;
    }
  }
}

// --- the repository ---------------------------------------------------------------------------

constexpr std::string_view kGatewayGroup = "gateway.networking.k8s.io";
constexpr std::string_view kGatewayNamespace = "infra-gateways";
constexpr std::string_view kSharedNamespace = "shared-services";

enum class Format { Yaml, YamlList, JsonList, JsonSingle };

// Objects that belong together (one namespace's routes, say), written over one or more files.
struct Group {
  std::string dir;   // relative to the output folder
  std::string stem;  // file names are stem-NN.ext
  Format format = Format::Yaml;
  std::string comment;  // first line of each YAML file
  std::vector<Value> objects;
};

Value metadata(const std::string& name, std::string_view ns, std::vector<Field> extra = {}) {
  std::vector<Field> fields{{"name", str(name)}};
  if (!ns.empty()) fields.push_back({"namespace", str(std::string(ns))});
  for (Field& f : extra) fields.push_back(std::move(f));
  return map(std::move(fields));
}

Value object(std::string_view apiVersion, std::string_view kind, Value meta, Value spec) {
  std::vector<Field> fields{{"apiVersion", str(std::string(apiVersion))},
                            {"kind", str(std::string(kind))},
                            {"metadata", std::move(meta)}};
  if (spec.type != Value::Type::Map || !spec.fields.empty())
    fields.push_back({"spec", std::move(spec)});
  return map(std::move(fields));
}

Value targetRef(std::string_view group, std::string_view kind, const std::string& name,
                std::string sectionName = {}) {
  std::vector<Field> fields{
      {"group", str(std::string(group))}, {"kind", str(std::string(kind))}, {"name", str(name)}};
  if (!sectionName.empty()) fields.push_back({"sectionName", str(std::move(sectionName))});
  return map(std::move(fields));
}

enum class Mesh { None, Kuma, Linkerd };

// Several routes (paths of one product) share a backend Service.
constexpr int kRoutesPerService = 4;

// What the repository is about: the Gateway API edge (routes, gateways and their policies, with
// a little of each mesh) or one mesh at scale (workloads, their Services and mesh policies).
enum class Family { Gateway, Kuma, Linkerd };

struct Plan {
  Family family = Family::Gateway;
  int workloads = 0;  // Kuma and Linkerd families
  int routes = 0;
  int namespaces = 0;
  int gateways = 0;
  int routesPerNamespace = 100;
};

struct Generator {
  Plan plan;
  Random rng;
  std::vector<Group> groups;

  static std::string namespaceName(int n) { return "team-" + padded(n, 3); }
  static std::string gatewayName(int g) { return "gw-" + padded(g, 2); }
  static std::string zone(int g) { return "zone" + std::to_string(g) + ".example.com"; }
  int gatewayOf(int ns) const { return ns % plan.gateways; }
  static Mesh meshOf(int ns) {
    return ns % 4 == 1 ? Mesh::Kuma : ns % 4 == 3 ? Mesh::Linkerd : Mesh::None;
  }

  void run() {
    switch (plan.family) {
      case Family::Gateway:
        cluster();
        for (int ns = 0; ns < plan.namespaces; ++ns) application(ns);
        break;
      case Family::Kuma:
        kumaMesh();
        break;
      case Family::Linkerd:
        linkerdMesh();
        break;
    }
  }

  void cluster() {
    Group namespaces{"cluster/namespaces",
                     "namespaces",
                     Format::Yaml,
                     "# Namespaces, owned by the platform team (Zürich).",
                     {}};
    namespaces.objects.push_back(object("v1", "Namespace",
                                        metadata(std::string(kGatewayNamespace), {},
                                                 {{"labels", map({{"role", str("gateways")}})}}),
                                        map({})));
    namespaces.objects.push_back(
        object("v1", "Namespace",
               metadata(std::string(kSharedNamespace), {},
                        {{"labels", map({{"gateway-access", str("shared")}})}}),
               map({})));
    for (int ns = 0; ns < plan.namespaces; ++ns) {
      std::vector<Field> labels{{"gateway-access", str("shared")},
                                {"team", str(namespaceName(ns))}};
      std::vector<Field> annotations{{"description", block("Services of " + namespaceName(ns) +
                                                           ".\nOn call: see the team's runbook.")}};
      if (meshOf(ns) == Mesh::Kuma) labels.push_back({"kuma.io/sidecar-injection", str("enabled")});
      if (meshOf(ns) == Mesh::Linkerd) annotations.push_back({"linkerd.io/inject", str("enabled")});
      namespaces.objects.push_back(object("v1", "Namespace",
                                          metadata(namespaceName(ns), {},
                                                   {{"labels", map(std::move(labels))},
                                                    {"annotations", map(std::move(annotations))}}),
                                          map({})));
    }
    groups.push_back(std::move(namespaces));

    // One file per GatewayClass, in JSON, as `kubectl get -o json` writes single objects.
    const char* controllers[] = {"gateway.envoyproxy.io/gatewayclass-controller",
                                 "kuadrant.io/policy-controller"};
    for (int c = 0; c < 2; ++c) {
      Group classes{
          "cluster/gatewayclasses", c == 0 ? "envoy" : "kuadrant", Format::JsonSingle, {}, {}};
      classes.objects.push_back(
          object(std::string(kGatewayGroup) + "/v1", "GatewayClass",
                 metadata(c == 0 ? "envoy" : "kuadrant", {}),
                 map({{"controllerName", str(controllers[c])},
                      {"description", str("Shared edge proxies, class " + std::to_string(c))}})));
      groups.push_back(std::move(classes));
    }

    Group gateways{"cluster/gateways", "gateways", Format::Yaml, "# Edge gateways.", {}};
    for (int g = 0; g < plan.gateways; ++g) gateway(gateways, g);
    groups.push_back(std::move(gateways));

    Group mesh{"cluster/mesh", "mesh", Format::Yaml, "# Kuma control plane.", {}};
    mesh.objects.push_back(object(
        "kuma.io/v1alpha1", "Mesh", metadata("default", {}),
        map({{"mtls", map({{"enabledBackend", str("ca-1")},
                           {"backends",
                            seq({map({{"name", str("ca-1")}, {"type", str("builtin")}})})}})}})));
    groups.push_back(std::move(mesh));

    shared();
  }

  void gateway(Group& out, int g) {
    const std::string name = gatewayName(g);
    auto listener = [&](std::string lname, std::string protocol, int port, std::string host,
                        bool tls, std::string routeKind) {
      std::vector<Field> fields{{"name", str(std::move(lname))},
                                {"hostname", str(std::move(host))},
                                {"port", lit(port)},
                                {"protocol", str(std::move(protocol))}};
      if (tls) {
        fields.push_back(
            {"tls", map({{"mode", str("Terminate")},
                         {"certificateRefs",
                          seq({map({{"kind", str("Secret")}, {"name", str(name + "-cert")}})})}})});
      }
      fields.push_back(
          {"allowedRoutes",
           map({{"namespaces", map({{"from", str("Selector")},
                                    {"selector", map({{"matchLabels", map({{"gateway-access",
                                                                            str("shared")}})}})}})},
                {"kinds", seq({map({{"group", str(std::string(kGatewayGroup))},
                                    {"kind", str(std::move(routeKind))}})})}})});
      return map(std::move(fields));
    };
    out.objects.push_back(object(
        std::string(kGatewayGroup) + "/v1", "Gateway",
        metadata(name, kGatewayNamespace,
                 {{"labels", map({{"gateway", str(name)}, {"tier", str("edge")}})}}),
        map({{"gatewayClassName", str(g % 2 == 0 ? "envoy" : "kuadrant")},
             {"listeners",
              seq({listener("http", "HTTP", 80, "*." + zone(g), false, "HTTPRoute"),
                   listener("https", "HTTPS", 443, "*." + zone(g), true, "HTTPRoute"),
                   listener("https-admin", "HTTPS", 8443, "admin." + zone(g), true, "HTTPRoute"),
                   listener("grpc", "HTTPS", 9443, "grpc." + zone(g), true, "GRPCRoute")})}})));
    out.objects.push_back(
        map({{"apiVersion", str("v1")},
             {"kind", str("Secret")},
             {"metadata", metadata(name + "-cert", kGatewayNamespace)},
             {"type", str("kubernetes.io/tls")},
             {"data", map({{"tls.crt", str(kCertificate)}, {"tls.key", str(kPrivateKey)}})}}));
    // Gateway-wide defaults that route policies refine.
    out.objects.push_back(
        object("kuadrant.io/v1", "RateLimitPolicy", metadata(name + "-limits", kGatewayNamespace),
               map({{"targetRef", targetRef(kGatewayGroup, "Gateway", name)},
                    {"defaults",
                     map({{"strategy", str("merge")},
                          {"limits",
                           map({{"global",
                                 map({{"rates", seq({map({{"limit", lit(10000)},
                                                          {"window", str("1s")}})})}})}})}})}})));
    out.objects.push_back(object(
        "gateway.envoyproxy.io/v1alpha1", "ClientTrafficPolicy",
        metadata(name + "-clients", kGatewayNamespace),
        map({{"targetRefs", seq({targetRef(kGatewayGroup, "Gateway", name)})},
             {"timeout", map({{"http", map({{"idleTimeout", str("5m")}})}})},
             {"clientIPDetection", map({{"xForwardedFor", map({{"numTrustedHops", lit(1)}})}})}})));
  }

  // Backends every team may call, through ReferenceGrants naming each team (at most 16
  // `from` entries each, the schema's bound).
  void shared() {
    Group group{"shared", "shared", Format::Yaml, "# Shared backends.", {}};
    group.objects.push_back(service("auth", kSharedNamespace, false));
    for (int first = 0; first < plan.namespaces; first += 16) {
      std::vector<Value> from;
      for (int ns = first; ns < std::min(plan.namespaces, first + 16); ++ns)
        from.push_back(map({{"group", str(std::string(kGatewayGroup))},
                            {"kind", str("HTTPRoute")},
                            {"namespace", str(namespaceName(ns))}}));
      std::string name = "routes-to-auth";
      if (first > 0) name += "-" + std::to_string(first / 16);
      group.objects.push_back(object(std::string(kGatewayGroup) + "/v1beta1", "ReferenceGrant",
                                     metadata(name, kSharedNamespace),
                                     map({{"from", seq(std::move(from))},
                                          {"to", seq({map({{"group", str("")},
                                                           {"kind", str("Service")},
                                                           {"name", str("auth")}})})}})));
    }
    groups.push_back(std::move(group));
  }

  static Value service(const std::string& name, std::string_view ns, bool tlsPort) {
    std::vector<Value> ports{map({{"name", str("http")},
                                  {"port", lit(80)},
                                  {"targetPort", str("http")},
                                  {"protocol", str("TCP")}})};
    if (tlsPort)
      ports.push_back(map({{"name", str("https")},
                           {"port", lit(443)},
                           {"targetPort", lit(8443)},
                           {"protocol", str("TCP")}}));
    return object("v1", "Service", metadata(name, ns, {{"labels", map({{"app", str(name)}})}}),
                  map({{"type", str("ClusterIP")},
                       {"selector", map({{"app", str(name)}})},
                       {"ports", seq(std::move(ports))}}));
  }

  static Value deployment(const std::string& name, std::string_view ns) {
    return object(
        "apps/v1", "Deployment", metadata(name, ns, {{"labels", map({{"app", str(name)}})}}),
        map({{"replicas", lit(2)},
             {"selector", map({{"matchLabels", map({{"app", str(name)}})}})},
             {"template",
              map({{"metadata", map({{"labels", map({{"app", str(name)}})}})},
                   {"spec",
                    map({{"serviceAccountName", str(name)},
                         {"automountServiceAccountToken", boolean(false)},
                         {"containers",
                          seq({map(
                              {{"name", str("app")},
                               {"image", str("registry.example.com/" + name + ":1.4.2")},
                               {"ports", seq({map({{"name", str("http")},
                                                   {"containerPort", lit(8080)}})})}})})}})}})}}));
  }

  Value route(int ns, int index, const std::string& name, int services) {
    const std::string nsName = namespaceName(ns);
    const int g = gatewayOf(ns);
    const std::string svc = "svc-" + padded(index / kRoutesPerService, 5);
    std::vector<Value> parents{map({{"name", str(gatewayName(g))},
                                    {"namespace", str(std::string(kGatewayNamespace))},
                                    {"sectionName", str("https")}})};
    if (rng.chance(20))
      parents.push_back(map({{"name", str(gatewayName(g))},
                             {"namespace", str(std::string(kGatewayNamespace))},
                             {"sectionName", str("http")}}));
    std::vector<Value> rules;
    // One to three rules, two most often.
    const int roll = rng.between(0, 99);
    const int ruleCount = roll < 40 ? 1 : roll < 85 ? 2 : 3;
    for (int r = 0; r < ruleCount; ++r) {
      std::vector<Field> rule;
      std::vector<Field> match{
          {"path", map({{"type", str(r == 0 ? "PathPrefix" : "Exact")},
                        {"value", str("/" + name + (r == 0 ? "" : "/v" + std::to_string(r)))}})}};
      if (rng.chance(20))
        match.push_back(
            {"headers", seq({map({{"name", str("x-tenant")},
                                  {"value", str("t" + std::to_string(rng.between(1, 9)))}})})});
      if (rng.chance(15)) match.push_back({"method", str("GET")});
      rule.push_back({"matches", seq({map(std::move(match))})});
      if (rng.chance(25))
        rule.push_back(
            {"filters", seq({map({{"type", str("RequestHeaderModifier")},
                                  {"requestHeaderModifier",
                                   map({{"set", seq({map({{"name", str("x-route")},
                                                          {"value", str(name)}})})}})}})})});
      std::vector<Value> backends{map({{"name", str(svc)}, {"port", lit(80)}})};
      if (rng.chance(20) && index / kRoutesPerService + 1 < services) {
        backends.front().fields.push_back({"weight", lit(90)});
        backends.push_back(map({{"name", str("svc-" + padded(index / kRoutesPerService + 1, 5))},
                                {"port", lit(80)},
                                {"weight", lit(10)}}));
      }
      rule.push_back({"backendRefs", seq(std::move(backends))});
      rules.push_back(map(std::move(rule)));
    }
    if (rng.chance(6)) {
      rules.push_back(
          map({{"matches", seq({map({{"path", map({{"type", str("PathPrefix")},
                                                   {"value", str("/" + name + "/login")}})}})})},
               {"backendRefs", seq({map({{"name", str("auth")},
                                         {"namespace", str(std::string(kSharedNamespace))},
                                         {"port", lit(80)}})})}}));
    }
    std::vector<Field> labels;
    if (index % 4 == 0)
      labels.push_back({"labels", map({{"app.kubernetes.io/part-of", str(nsName)}})});
    return object(std::string(kGatewayGroup) + "/v1", "HTTPRoute",
                  metadata(name, nsName, std::move(labels)),
                  map({{"parentRefs", seq(std::move(parents))},
                       {"hostnames", seq({str(name + "." + nsName + "." + zone(g))})},
                       {"rules", seq(std::move(rules))}}));
  }

  void application(int ns) {
    const std::string nsName = namespaceName(ns);
    const std::string dir = "apps/" + nsName;
    const int first = ns * plan.routesPerNamespace;
    const int count = std::min(plan.routesPerNamespace, plan.routes - first);
    if (count <= 0) return;
    const int services = (count + kRoutesPerService - 1) / kRoutesPerService;
    const Mesh mesh = meshOf(ns);

    Group routes{dir, "routes", Format::Yaml, "# HTTP routes of " + nsName + ".", {}};
    std::vector<std::string> routeNames;
    for (int i = 0; i < count; ++i) {
      routeNames.push_back("r-" + padded(first + i, 5));
      routes.objects.push_back(route(ns, i, routeNames.back(), services));
    }

    // Every tenth team keeps its Services as `kubectl get -o json` Lists.
    Group backends{dir,
                   "services",
                   ns % 10 == 2 ? Format::JsonList : Format::Yaml,
                   "# Services of " + nsName + ".",
                   {}};
    for (int s = 0; s < services; ++s) {
      const std::string svc = "svc-" + padded(s, 5);
      backends.objects.push_back(service(svc, nsName, s % 10 == 0));
      if (mesh == Mesh::Linkerd && s % 10 == 0) backends.objects.push_back(deployment(svc, nsName));
    }

    // Every tenth team writes its policies as one `kind: List` per file.
    Group policies{dir,
                   "policies",
                   ns % 10 == 4 ? Format::YamlList : Format::Yaml,
                   "# Traffic policies of " + nsName + ".",
                   {}};
    for (int i = 0; i < count; ++i) {
      const std::string& r = routeNames[static_cast<std::size_t>(i)];
      if (i % 20 == 0)
        policies.objects.push_back(object(
            "kuadrant.io/v1", "RateLimitPolicy", metadata(r + "-limits", nsName),
            map({{"targetRef", targetRef(kGatewayGroup, "HTTPRoute", r)},
                 {"limits",
                  map({{"per-user",
                        map({{"rates",
                              seq({map({{"limit", lit(100 + i)}, {"window", str("1m")}})})},
                             {"counters", seq({map({{"expression",
                                                     str("auth.identity.username")}})})}})}})}})));
      if (i % 20 == 5)
        policies.objects.push_back(object(
            "kuadrant.io/v1", "AuthPolicy", metadata(r + "-auth", nsName),
            map({{"targetRef", targetRef(kGatewayGroup, "HTTPRoute", r)},
                 {"rules",
                  map({{"authentication",
                        map({{"api-key",
                              map({{"apiKey", map({{"selector", map({{"matchLabels",
                                                                      map({{"app", str(r)}})}})}})},
                                   {"credentials",
                                    map({{"authorizationHeader",
                                          map({{"prefix", str("APIKEY")}})}})}})}})}})}})));
      if (i % 20 == 12)
        policies.objects.push_back(object(
            "gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy",
            metadata(r + "-traffic", nsName),
            map({{"targetRefs", seq({targetRef(kGatewayGroup, "HTTPRoute", r)})},
                 {"timeout", map({{"http", map({{"requestTimeout", str("10s")}})}})},
                 {"retry",
                  map({{"numRetries", lit(3)},
                       {"retryOn", map({{"httpStatusCodes", seq({lit(502), lit(503)})}})}})}})));
    }
    for (int s = 0; s < services; s += 10) {
      const std::string svc = "svc-" + padded(s, 5);
      policies.objects.push_back(
          object(std::string(kGatewayGroup) + "/v1", "BackendTLSPolicy",
                 metadata(svc + "-tls", nsName),
                 map({{"targetRefs", seq({targetRef("", "Service", svc, "https")})},
                      {"validation",
                       map({{"caCertificateRefs", seq({map({{"group", str("")},
                                                            {"kind", str("ConfigMap")},
                                                            {"name", str(nsName + "-ca")}})})},
                            {"hostname", str(svc + "." + nsName + ".svc.cluster.local")}})}})));
    }
    policies.objects.push_back(
        map({{"apiVersion", str("v1")},
             {"kind", str("ConfigMap")},
             {"metadata", metadata(nsName + "-ca", nsName)},
             {"data", map({{"ca.crt", block("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n"
                                            "-----END CERTIFICATE-----")}})}}));
    if (mesh == Mesh::Kuma) kumaPolicies(policies, nsName, services);
    if (mesh == Mesh::Linkerd) linkerdPolicies(policies, nsName, services);

    groups.push_back(std::move(routes));
    groups.push_back(std::move(backends));
    groups.push_back(std::move(policies));
  }

  static Value kumaMeta(const std::string& name, const std::string& ns) {
    return metadata(name, ns, {{"labels", map({{"kuma.io/mesh", str("default")}})}});
  }

  void kumaPolicies(Group& out, const std::string& ns, int services) {
    for (int s = 0; s < services; s += 10) {
      const std::string svc = "svc-" + padded(s, 5);
      out.objects.push_back(object(
          "kuma.io/v1alpha1", "MeshTimeout", kumaMeta(svc + "-timeouts", ns),
          map({{"targetRef", map({{"kind", str("Mesh")}})},
               {"to",
                seq({map(
                    {{"targetRef", map({{"kind", str("MeshService")}, {"name", str(svc)}})},
                     {"default", map({{"idleTimeout", str("20s")},
                                      {"http", map({{"requestTimeout", str("2s")}})}})}})})}})));
    }
    out.objects.push_back(
        object("kuma.io/v1alpha1", "MeshTrafficPermission", kumaMeta(ns + "-permissions", ns),
               map({{"targetRef", map({{"kind", str("Mesh")}})},
                    {"from",
                     seq({map({{"targetRef", map({{"kind", str("MeshSubset")},
                                                  {"tags", map({{"kuma.io/zone", str("east")}})}})},
                               {"default", map({{"action", str("Allow")}})}})})}})));
  }

  void linkerdPolicies(Group& out, const std::string& ns, int services) {
    out.objects.push_back(
        object("policy.linkerd.io/v1alpha1", "MeshTLSAuthentication", metadata(ns + "-clients", ns),
               map({{"identities",
                     seq({str("*." + ns + ".serviceaccount.identity.linkerd.cluster.local")})}})));
    for (int s = 0; s < services; s += 10) {
      const std::string svc = "svc-" + padded(s, 5);
      out.objects.push_back(
          object("policy.linkerd.io/v1beta3", "Server", metadata(svc + "-http", ns),
                 map({{"podSelector", map({{"matchLabels", map({{"app", str(svc)}})}})},
                      {"port", str("http")},
                      {"proxyProtocol", str("HTTP/1")}})));
      out.objects.push_back(object(
          "policy.linkerd.io/v1alpha1", "AuthorizationPolicy", metadata(svc + "-http-authz", ns),
          map({{"targetRef", targetRef("policy.linkerd.io", "Server", svc + "-http")},
               {"requiredAuthenticationRefs", seq({map({{"group", str("policy.linkerd.io")},
                                                        {"kind", str("MeshTLSAuthentication")},
                                                        {"name", str(ns + "-clients")}})})}})));
    }
  }

  // --- the mesh families ------------------------------------------------------------------------
  // Workloads in namespaces of kWorkloadsPerNamespace, each a Deployment and the Service in
  // front of it; the policies are the ones a platform team and service owners write, about one
  // for every five workloads.
  static constexpr int kWorkloadsPerNamespace = 50;

  static std::string meshNamespace(int n) { return "mesh-" + padded(n, 3); }
  static std::string workloadName(int w) { return "app-" + padded(w, 5); }
  int meshNamespaces() const {
    return (plan.workloads + kWorkloadsPerNamespace - 1) / kWorkloadsPerNamespace;
  }

  // A Deployment with an HTTP port, an admin port its probes use, and a ServiceAccount of its
  // own; `labels` go on the pod template.
  static Value meshWorkload(const std::string& name, const std::string& ns,
                            std::vector<Field> podLabels) {
    podLabels.insert(podLabels.begin(), {"app", str(name)});
    auto probe = [](std::string path) {
      return map({{"httpGet", map({{"path", str(std::move(path))}, {"port", str("admin")}})},
                  {"periodSeconds", lit(10)}});
    };
    return object(
        "apps/v1", "Deployment", metadata(name, ns, {{"labels", map({{"app", str(name)}})}}),
        map({{"replicas", lit(2)},
             {"selector", map({{"matchLabels", map({{"app", str(name)}})}})},
             {"template",
              map({{"metadata", map({{"labels", map(std::move(podLabels))}})},
                   {"spec",
                    map({{"serviceAccountName", str(name)},
                         {"containers",
                          seq({map({{"name", str("app")},
                                    {"image", str("registry.example.com/" + name + ":2.0.1")},
                                    {"ports", seq({map({{"name", str("http")},
                                                        {"containerPort", lit(8080)}}),
                                                   map({{"name", str("admin")},
                                                        {"containerPort", lit(9990)}})})},
                                    {"readinessProbe", probe("/ready")},
                                    {"livenessProbe", probe("/live")}})})}})}})}}));
  }

  static Value meshService(const std::string& name, const std::string& ns) {
    return object("v1", "Service", metadata(name, ns, {{"labels", map({{"app", str(name)}})}}),
                  map({{"selector", map({{"app", str(name)}})},
                       {"ports", seq({map({{"name", str("http")},
                                           {"port", lit(80)},
                                           {"targetPort", str("http")},
                                           {"appProtocol", str("http")}})})}}));
  }

  static Value serviceAccount(const std::string& name, const std::string& ns) {
    return object("v1", "ServiceAccount", metadata(name, ns), map({}));
  }

  // Namespaces, and per namespace its workloads (one group) and its policies (another).
  template <typename Policies>
  void meshNamespacesWith(std::string_view meshLabel, std::vector<Field> nsLabels,
                          std::vector<Field> nsAnnotations, Policies policiesOf) {
    Group namespaces{"cluster/namespaces", "namespaces", Format::Yaml, "# Namespaces.", {}};
    for (int n = 0; n < meshNamespaces(); ++n)
      namespaces.objects.push_back(object(
          "v1", "Namespace",
          metadata(meshNamespace(n), {},
                   {{"labels", map(nsLabels)}, {"annotations", map(nsAnnotations)}}),
          map({})));
    groups.push_back(std::move(namespaces));
    for (int n = 0; n < meshNamespaces(); ++n) {
      const std::string ns = meshNamespace(n);
      const int first = n * kWorkloadsPerNamespace;
      const int count = std::min(kWorkloadsPerNamespace, plan.workloads - first);
      Group workloads{"apps/" + ns, "workloads", Format::Yaml,
                      "# Workloads of " + ns + " (" + std::string(meshLabel) + ").", {}};
      for (int w = first; w < first + count; ++w) {
        const std::string name = workloadName(w);
        std::vector<Field> podLabels{{"version", str(w % 3 == 0 ? "v2" : "v1")}};
        workloads.objects.push_back(serviceAccount(name, ns));
        workloads.objects.push_back(meshWorkload(name, ns, std::move(podLabels)));
        workloads.objects.push_back(meshService(name, ns));
      }
      groups.push_back(std::move(workloads));
      Group policies{"apps/" + ns, "policies", Format::Yaml, "# Mesh policies of " + ns + ".", {}};
      policiesOf(policies, n, first, count);
      groups.push_back(std::move(policies));
    }
  }

  static Value kumaRef(std::string_view kind, const std::string& name = {},
                       const std::string& ns = {}) {
    std::vector<Field> fields{{"kind", str(std::string(kind))}};
    if (!name.empty()) fields.push_back({"name", str(name)});
    if (!ns.empty()) fields.push_back({"namespace", str(ns)});
    return map(std::move(fields));
  }

  // Kuma on Kubernetes: sidecar injection on the namespaces, the Mesh and mesh-wide defaults in
  // kuma-system, and in each namespace producer timeouts for its services, consumer retries
  // towards another namespace, a traffic permission for its v2 workloads and a route.
  void kumaMesh() {
    Group system{"cluster/kuma-system", "mesh", Format::Yaml, "# Kuma control plane.", {}};
    system.objects.push_back(object("v1", "Namespace", metadata("kuma-system", {}), map({})));
    system.objects.push_back(object(
        "kuma.io/v1alpha1", "Mesh", metadata("default", {}),
        map({{"mtls", map({{"enabledBackend", str("ca-1")},
                           {"backends",
                            seq({map({{"name", str("ca-1")}, {"type", str("builtin")}})})}})}})));
    system.objects.push_back(object(
        "kuma.io/v1alpha1", "MeshCircuitBreaker", kumaMeta("mesh-circuit-breaker", "kuma-system"),
        map({{"targetRef", kumaRef("Mesh")},
             {"to", seq({map({{"targetRef", kumaRef("Mesh")},
                              {"default", map({{"outlierDetection",
                                                map({{"disabled", boolean(false)},
                                                     {"interval", str("5s")}})}})}})})}})));
    system.objects.push_back(object(
        "kuma.io/v1alpha1", "MeshTimeout", kumaMeta("mesh-timeouts", "kuma-system"),
        map({{"targetRef", kumaRef("Mesh")},
             {"to", seq({map({{"targetRef", kumaRef("Mesh")},
                              {"default", map({{"connectionTimeout", str("5s")},
                                               {"idleTimeout", str("1h")},
                                               {"http", map({{"requestTimeout", str("15s")}})}})}})})},
             {"from", seq({map({{"targetRef", kumaRef("Mesh")},
                                {"default", map({{"idleTimeout", str("1h")}})}})})}})));
    groups.push_back(std::move(system));

    const int namespaces = meshNamespaces();
    meshNamespacesWith(
        "Kuma", {{"kuma.io/sidecar-injection", str("enabled")}}, {},
        [&](Group& out, int n, int first, int count) {
          const std::string ns = meshNamespace(n);
          for (int w = first; w < first + count; w += 5) {
            const std::string svc = workloadName(w);
            out.objects.push_back(object(
                "kuma.io/v1alpha1", "MeshTimeout", kumaMeta(svc + "-producer-timeouts", ns),
                map({{"to", seq({map({{"targetRef", kumaRef("MeshService", svc)},
                                      {"default", map({{"http", map({{"requestTimeout",
                                                                      str(std::to_string(2 + w % 7) +
                                                                          "s")}})}})}})})}})));
          }
          const std::string other = meshNamespace((n + 1) % namespaces);
          const std::string callee = workloadName(((n + 1) % namespaces) * kWorkloadsPerNamespace);
          out.objects.push_back(object(
              "kuma.io/v1alpha1", "MeshRetry", kumaMeta(ns + "-retries", ns),
              map({{"to", seq({map({{"targetRef", kumaRef("MeshService", callee, other)},
                                    {"default", map({{"http", map({{"numRetries", lit(3)}})}})}})})}})));
          out.objects.push_back(object(
              "kuma.io/v1alpha1", "MeshTrafficPermission", kumaMeta(ns + "-v2-callers", ns),
              map({{"targetRef",
                    map({{"kind", str("Dataplane")},
                         {"labels", map({{"version", str("v2")}})}})},
                   {"from", seq({map({{"targetRef", kumaRef("Mesh")},
                                      {"default", map({{"action", str("Allow")}})}})})}})));
          const std::string routed = workloadName(first);
          out.objects.push_back(object(
              "kuma.io/v1alpha1", "MeshHTTPRoute", kumaMeta(routed + "-canary", ns),
              map({{"to",
                    seq({map({{"targetRef", kumaRef("MeshService", routed)},
                              {"rules",
                               seq({map({{"matches",
                                          seq({map({{"path", map({{"type", str("PathPrefix")},
                                                                  {"value", str("/v2")}})}})})},
                                         {"default",
                                          map({{"backendRefs",
                                                seq({map({{"kind", str("MeshService")},
                                                          {"name", str(routed)},
                                                          {"port", lit(80)}})})}})}})})}})})}})));
        });
  }

  // Linkerd: injection annotations on the namespaces; per workload a Server on its HTTP port
  // with an AuthorizationPolicy for the namespace's clients and one for the monitoring
  // network; every tenth workload an HTTPRoute with its own authorization.
  void linkerdMesh() {
    Group system{"cluster/linkerd", "linkerd", Format::Yaml, "# Linkerd control plane.", {}};
    system.objects.push_back(object("v1", "Namespace", metadata("linkerd", {}), map({})));
    groups.push_back(std::move(system));
    meshNamespacesWith(
        "Linkerd", {}, {{"linkerd.io/inject", str("enabled")},
                        {"config.linkerd.io/default-inbound-policy", str("all-authenticated")}},
        [&](Group& out, int n, int first, int count) {
          const std::string ns = meshNamespace(n);
          out.objects.push_back(object(
              "policy.linkerd.io/v1alpha1", "MeshTLSAuthentication", metadata(ns + "-clients", ns),
              map({{"identityRefs", seq({map({{"kind", str("Namespace")}, {"name", str(ns)}})})}})));
          out.objects.push_back(object(
              "policy.linkerd.io/v1alpha1", "NetworkAuthentication", metadata("monitoring", ns),
              map({{"networks", seq({map({{"cidr", str("10.96.0.0/16")},
                                          {"except", seq({str("10.96.255.0/24")})}})})}})));
          for (int w = first; w < first + count; ++w) {
            const std::string name = workloadName(w);
            out.objects.push_back(
                object("policy.linkerd.io/v1beta3", "Server", metadata(name + "-http", ns),
                       map({{"podSelector", map({{"matchLabels", map({{"app", str(name)}})}})},
                            {"port", str("http")},
                            {"proxyProtocol", str("HTTP/1")}})));
            auto authRef = [](std::string_view kind, const std::string& ref) {
              return map({{"group", str("policy.linkerd.io")},
                          {"kind", str(std::string(kind))},
                          {"name", str(ref)}});
            };
            out.objects.push_back(object(
                "policy.linkerd.io/v1alpha1", "AuthorizationPolicy", metadata(name + "-clients", ns),
                map({{"targetRef", targetRef("policy.linkerd.io", "Server", name + "-http")},
                     {"requiredAuthenticationRefs",
                      seq({authRef("MeshTLSAuthentication", ns + "-clients")})}})));
            out.objects.push_back(object(
                "policy.linkerd.io/v1alpha1", "AuthorizationPolicy",
                metadata(name + "-monitoring", ns),
                map({{"targetRef", targetRef("policy.linkerd.io", "Server", name + "-http")},
                     {"requiredAuthenticationRefs",
                      seq({authRef("NetworkAuthentication", "monitoring")})}})));
            if ((w - first) % 10 != 0) continue;
            out.objects.push_back(object(
                std::string(kGatewayGroup) + "/v1", "HTTPRoute", metadata(name + "-api", ns),
                map({{"parentRefs", seq({map({{"group", str("policy.linkerd.io")},
                                              {"kind", str("Server")},
                                              {"name", str(name + "-http")}})})},
                     {"rules",
                      seq({map({{"matches",
                                 seq({map({{"path", map({{"type", str("PathPrefix")},
                                                         {"value", str("/api")}})},
                                           {"method", str("GET")}})})}})})}})));
            out.objects.push_back(object(
                "policy.linkerd.io/v1alpha1", "AuthorizationPolicy", metadata(name + "-api", ns),
                map({{"targetRef", targetRef(kGatewayGroup, "HTTPRoute", name + "-api")},
                     {"requiredAuthenticationRefs",
                      seq({authRef("MeshTLSAuthentication", ns + "-clients")})}})));
          }
        });
  }
};

// --- writing files ----------------------------------------------------------------------------

void writeFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

Value listOf(std::vector<Value> items) {
  return map({{"apiVersion", str("v1")},
              {"kind", str("List")},
              {"metadata", map({})},
              {"items", seq(std::move(items))}});
}

std::string render(const Group& group, std::size_t begin, std::size_t end) {
  std::string text;
  auto slice = [&] {
    return std::vector<Value>(group.objects.begin() + static_cast<std::ptrdiff_t>(begin),
                              group.objects.begin() + static_cast<std::ptrdiff_t>(end));
  };
  switch (group.format) {
    case Format::Yaml:
      text += group.comment + "\n";
      for (std::size_t i = begin; i < end; ++i) {
        text += "---\n";
        yamlMap(text, group.objects[i], 0, false);
      }
      break;
    case Format::YamlList:
      text += group.comment + "\n";
      yamlMap(text, listOf(slice()), 0, false);
      break;
    case Format::JsonList:
      json(text, listOf(slice()), 0);
      text += '\n';
      break;
    case Format::JsonSingle:
      json(text, group.objects[begin], 0);
      text += '\n';
      break;
  }
  return text;
}

struct Totals {
  std::size_t files = 0;
  std::size_t objects = 0;
  std::size_t bytes = 0;
};

// Splits each group into files of `perFile` objects (0: a random 10 to 50 each).
Totals writeRepository(const fs::path& out, const std::vector<Group>& groups, std::size_t perFile,
                       Random& rng) {
  Totals totals;
  for (const Group& group : groups) {
    const char* ext =
        group.format == Format::JsonList || group.format == Format::JsonSingle ? ".json" : ".yaml";
    std::size_t begin = 0;
    int part = 0;
    while (begin < group.objects.size()) {
      std::size_t size = group.format == Format::JsonSingle ? 1
                         : perFile                          ? perFile
                                   : static_cast<std::size_t>(rng.between(10, 50));
      std::size_t end = std::min(group.objects.size(), begin + size);
      std::string text = render(group, begin, end);
      std::string name = group.stem;
      if (group.format != Format::JsonSingle) {
        name += '-';  // not `"-" + padded(...)`: g++ 12 warns falsely there (-Wrestrict)
        name += padded(part++, 2);
      }
      writeFile(out / group.dir / (name + ext), text);
      ++totals.files;
      totals.objects += end - begin;
      totals.bytes += text.size();
      begin = end;
    }
  }
  return totals;
}

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "pg_bench_gen: " << problem << "\n"
            << "usage: pg_bench_gen OUT_DIR --routes N [--files F] [--seed S]\n"
            << "       pg_bench_gen OUT_DIR --family kuma|linkerd --workloads N [--files F]\n"
            << "  Writes a synthetic repository with N HTTPRoutes (and the namespaces, gateways,\n"
            << "  services and policies around them) into OUT_DIR, which must be empty or\n"
            << "  absent. --files F aims at about F files (each namespace's routes, services and\n"
            << "  policies keep files of their own, so a small F is exceeded); --seed S varies\n"
            << "  the content. --family kuma|linkerd writes one mesh instead: N workloads (a\n"
            << "  Deployment, its Service and ServiceAccount each) in namespaces of 50, and the\n"
            << "  mesh's policies, about one for every five workloads (Linkerd: a Server and two\n"
            << "  AuthorizationPolicies per workload).\n";
  std::exit(2);
}

unsigned long long number(std::string_view option, const char* text) {
  if (!text) usage(std::string(option) + " needs a value");
  std::string_view s(text);
  unsigned long long value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size())
    usage(std::string(option) + " takes a number, not " + std::string(s));
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path out;
  long long routes = -1;
  long long workloads = -1;
  Family family = Family::Gateway;
  unsigned long long files = 0;
  unsigned long long seed = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--routes") {
      routes = static_cast<long long>(number(arg, value));
      ++i;
    } else if (arg == "--workloads") {
      workloads = static_cast<long long>(number(arg, value));
      ++i;
    } else if (arg == "--family") {
      std::string_view name = value ? value : "";
      if (name == "gateway") {
        family = Family::Gateway;
      } else if (name == "kuma") {
        family = Family::Kuma;
      } else if (name == "linkerd") {
        family = Family::Linkerd;
      } else {
        usage("--family takes gateway, kuma or linkerd");
      }
      ++i;
    } else if (arg == "--files") {
      files = number(arg, value);
      ++i;
    } else if (arg == "--seed") {
      seed = number(arg, value);
      ++i;
    } else if (arg == "-h" || arg == "--help") {
      usage("writes a benchmark repository");
    } else if (!arg.empty() && arg.front() == '-') {
      usage("unknown option " + std::string(arg));
    } else if (out.empty()) {
      out = arg;
    } else {
      usage("one OUT_DIR only");
    }
  }
  if (out.empty()) usage("OUT_DIR is missing");
  if (family == Family::Gateway && (routes < 1 || routes > 10'000'000))
    usage("--routes N is required, 1 to 10000000");
  if (family != Family::Gateway && (workloads < 1 || workloads > 1'000'000))
    usage("--workloads N is required with --family kuma|linkerd, 1 to 1000000");
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_empty(out, ec)) usage(out.string() + " is not empty");

  try {
    Generator gen{{}, Random(seed), {}};
    gen.plan.family = family;
    gen.plan.workloads = static_cast<int>(workloads);
    gen.plan.routes = static_cast<int>(std::max(routes, 0LL));
    gen.plan.namespaces =
        (gen.plan.routes + gen.plan.routesPerNamespace - 1) / gen.plan.routesPerNamespace;
    gen.plan.gateways = std::clamp(gen.plan.routes / 2500, 2, 16);
    gen.run();
    std::size_t objects = 0;
    for (const Group& g : gen.groups) objects += g.objects.size();
    std::size_t perFile = files ? std::max<std::size_t>(1, (objects + files - 1) / files) : 0;
    Random chunks(seed ^ 0x5eed);
    Totals totals = writeRepository(out, gen.groups, perFile, chunks);
    std::printf("%zu objects in %zu files, %.1f MB, in %s\n", totals.objects, totals.files,
                static_cast<double>(totals.bytes) / 1e6, out.string().c_str());
  } catch (const std::exception& e) {
    std::cerr << "pg_bench_gen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
