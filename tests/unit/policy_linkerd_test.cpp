// Linkerd: CIDRs, the `linkerd:` settings, workloads and their ports and probes, the inbound
// servers the policy controller would serve (server selection, default policies, probe routes,
// authorizations, routes), the status of routes on Servers, and the admission checks.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/config/config.h"
#include "lib/graph/workloads.h"
#include "lib/model/cidr.h"
#include "lib/policy/linkerd/admission.h"
#include "lib/policy/linkerd/inbound.h"
#include "tests/unit/test_folder.h"

using namespace pg;
namespace ld = policy::linkerd;

namespace {

struct Fixture {
  testing::TestFolder dir;
  analysis::Analysis a;

  explicit Fixture(const std::string& manifests, const std::string& settings = {},
                   unsigned jobs = 1) {
    dir.write("manifests.yaml", manifests);
    config::Config config = config::parseConfig(settings, ".policygraph.yaml");
    a = analysis::analyze(config, {{dir.path().string()}, dir.path(), jobs, {}, {}, {}});
  }

  const ld::WorkloadInbound& inbound(std::string_view kind, std::string_view ns,
                                     std::string_view name) const {
    std::vector<const model::Resource*> found = a.store.findByKind(kind, ns, name);
    REQUIRE(found.size() == 1);
    const ld::WorkloadInbound* w = a.linkerd.inboundOf(found.front());
    REQUIRE(w);
    return *w;
  }

  const ld::InboundPort& port(std::string_view kind, std::string_view ns, std::string_view name,
                              std::int64_t number) const {
    for (const ld::InboundPort& p : inbound(kind, ns, name).ports)
      if (p.port == number) return p;
    FAIL("no port " << number);
    throw std::logic_error("unreachable");
  }
};

std::vector<std::int64_t> portsOf(const ld::WorkloadInbound& w) {
  std::vector<std::int64_t> out;
  for (const ld::InboundPort& p : w.ports) out.push_back(p.port);
  return out;
}

std::vector<std::string> refs(const ld::Authorizations& list) {
  std::vector<std::string> out;
  for (const ld::Authorization& a : list) out.push_back(a.kind + "/" + a.name);
  return out;
}

std::vector<std::string> refs(const ld::InboundRoutes& list) {
  std::vector<std::string> out;
  for (const ld::InboundRoute& r : list) out.push_back(r.kind + "/" + r.name);
  return out;
}

std::vector<std::string> nets(const std::vector<ld::Network>& list) {
  std::vector<std::string> out;
  for (const ld::Network& n : list) {
    std::string s = n.net.str();
    for (const model::Cidr& e : n.except) s += " -" + e.str();
    out.push_back(s);
  }
  return out;
}

const char* const kPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: api
  namespace: shop
  labels: {app: api}
spec:
  containers:
  - name: api
    image: example.com/api:1.0
    ports:
    - {name: http, containerPort: 8080}
    - {name: admin, containerPort: 9990}
    readinessProbe:
      httpGet: {path: "/ready?x=1", port: http}
)";

}  // namespace

TEST_CASE("CIDRs parse, print and contain as networks") {
  std::optional<model::Cidr> net = model::Cidr::parse("10.1.0.0/16");
  REQUIRE(net);
  CHECK(net->str() == "10.1.0.0/16");
  CHECK(model::Cidr::parse("192.168.3.4")->str() == "192.168.3.4/32");
  CHECK(model::Cidr::parse("fd00::1")->str() == "fd00::1/128");
  CHECK(net->contains(*model::Cidr::parse("10.1.255.0/24")));
  CHECK_FALSE(net->contains(*model::Cidr::parse("10.2.0.0/24")));
  CHECK_FALSE(net->contains(*model::Cidr::parse("10.0.0.0/8")));
  CHECK(model::Cidr::parse("10.0.0.0/8")->contains(*net));
  CHECK_FALSE(net->contains(*model::Cidr::parse("::/0")));
  CHECK(model::Cidr::parse("10.1.2.3/8")->network().str() == "10.0.0.0/8");
  for (const char* bad : {"", "10.0.0.0/33", "10.300.0.0/16", "::/129", "10.0.0.0/", "x/8"})
    CHECK_MESSAGE(!model::Cidr::parse(bad), bad);
}

TEST_CASE("linkerd settings: Helm's defaults, lists or comma-separated strings, errors") {
  config::Config defaults = config::parseConfig("", "c.yaml");
  CHECK(defaults.linkerd.defaultInboundPolicy == "all-unauthenticated");
  CHECK(defaults.linkerd.controlPlaneNamespace == "linkerd");
  CHECK(defaults.linkerd.identityDomain == "cluster.local");
  REQUIRE(defaults.linkerd.clusterNetworks.size() == 5);
  CHECK(defaults.linkerd.clusterNetworks.back().str() == "fd00::/8");
  REQUIRE(defaults.linkerd.probeNetworks.size() == 2);

  config::Config c = config::parseConfig(
      "linkerd:\n  clusterNetworks: \"10.0.0.0/8, 192.168.0.0/16\"\n  probeNetworks: []\n"
      "  defaultInboundPolicy: deny\n  identityDomain: example.org\n",
      "c.yaml");
  REQUIRE(c.linkerd.clusterNetworks.size() == 2);
  CHECK(c.linkerd.clusterNetworks[1].str() == "192.168.0.0/16");
  CHECK(c.linkerd.probeNetworks.empty());
  CHECK(c.linkerd.defaultInboundPolicy == "deny");
  CHECK(c.linkerd.identityDomain == "example.org");

  CHECK_THROWS_WITH_AS(
      config::parseConfig("linkerd:\n  probeNetworks: [10.0.0.0/8, bad]\n", "c.yaml"),
      doctest::Contains("c.yaml:2:31"), config::ConfigError);
  CHECK_THROWS_WITH_AS(config::parseConfig("linkerd:\n  defaultInboundPolicy: allow\n", "c.yaml"),
                       doctest::Contains("c.yaml:2:25"), config::ConfigError);
  CHECK_THROWS_WITH_AS(config::parseConfig("linkerd:\n  clusterNetwork: []\n", "c.yaml"),
                       doctest::Contains("unknown linkerd setting"), config::ConfigError);
}

TEST_CASE("workloads: pods and pod templates, their ports and HTTP probes") {
  Fixture f(std::string(kPod) + R"(---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: shop}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        metadata:
          labels: {app: nightly}
        spec:
          initContainers:
          - {name: init, ports: [{containerPort: 7000, protocol: UDP}, {containerPort: 7001}]}
          containers:
          - name: job
            livenessProbe: {httpGet: {port: 8080}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-workload, namespace: shop}
)");
  std::vector<graph::Workload> workloads = graph::collectWorkloads(f.a.store);
  REQUIRE(workloads.size() == 2);
  CHECK(workloads[0].resource->kind == "Pod");
  CHECK(workloads[1].resource->kind == "CronJob");
  CHECK(workloads[1].labels.get("app").str() == "nightly");
  std::vector<graph::ContainerPort> ports = graph::containerPorts(workloads[1].podSpec);
  REQUIRE(ports.size() == 2);
  CHECK(ports[0].protocol == "UDP");
  CHECK(ports[1].number == 7001);
  CHECK(ports[1].protocol == "TCP");
  CHECK(ports[1].init);
  std::vector<graph::HttpProbe> probes = graph::httpProbes(workloads[0].podSpec);
  REQUIRE(probes.size() == 1);
  CHECK(probes[0].portName == "http");
  CHECK(probes[0].port == 8080);
  CHECK(probes[0].path == "/ready?x=1");
  CHECK_FALSE(graph::httpProbes(workloads[1].podSpec)[0].path);
}

TEST_CASE("default server: annotations, require-identity, opaque ports and probe routes") {
  Fixture f(std::string(kPod) + R"(---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations:
    config.linkerd.io/default-inbound-policy: cluster-unauthenticated
    config.linkerd.io/proxy-require-identity-inbound-ports: "9000-9999"
    config.linkerd.io/opaque-ports: "9990"
)",
            "linkerd:\n  clusterNetworks: [10.0.0.0/8]\n  probeNetworks: [10.1.0.0/16]\n");
  const ld::WorkloadInbound& w = f.inbound("Pod", "shop", "api");
  CHECK(portsOf(w) == std::vector<std::int64_t>{8080, 9990});
  const ld::InboundPort& http = f.port("Pod", "shop", "api", 8080);
  CHECK_FALSE(http.server);
  CHECK(http.serverName == "cluster-unauthenticated");
  CHECK(http.protocol == "Detect");
  CHECK(refs(http.authorizations) == std::vector<std::string>{"default/cluster-unauthenticated"});
  CHECK(nets(http.authorizations[0].networks) == std::vector<std::string>{"10.0.0.0/8"});
  CHECK(refs(http.httpRoutes) == std::vector<std::string>{"default/default", "default/probe"});
  const ld::InboundRoute& probe = http.httpRoutes[1];
  REQUIRE(probe.rules.size() == 1);
  REQUIRE(probe.rules[0].httpMatches.size() == 1);
  CHECK(probe.rules[0].httpMatches[0].path->value == "/ready");
  CHECK(probe.rules[0].httpMatches[0].method == "GET");
  CHECK(nets(probe.authorizations[0].networks) == std::vector<std::string>{"10.1.0.0/16"});
  CHECK(http.grpcRoutes.empty());

  const ld::InboundPort& admin = f.port("Pod", "shop", "api", 9990);
  CHECK(admin.serverName == "cluster-authenticated");
  CHECK(admin.protocol == "Opaque");
  CHECK(admin.authorizations[0].authentication == ld::AuthenticationKind::TlsAuthenticated);
  CHECK(refs(admin.httpRoutes) == std::vector<std::string>{"default/default"});
}

TEST_CASE("a repository with nothing of Linkerd gives no workload an inbound model") {
  const std::string service = R"(---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: http}]
)";
  Fixture plain(std::string(kPod) + service);
  std::vector<const model::Resource*> pod = plain.a.store.findByKind("Pod", "shop", "api");
  REQUIRE(pod.size() == 1);
  CHECK(plain.a.linkerd.inboundOf(pod.front()) == nullptr);
  CHECK(plain.a.linkerd.workloads.empty());

  // Any one sign of Linkerd brings the model back: a Namespace annotation, a workload
  // annotation, or an object of a linkerd.io group.
  Fixture annotatedNamespace(std::string(kPod) + service + R"(---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations: {linkerd.io/inject: enabled}
)");
  CHECK(portsOf(annotatedNamespace.inbound("Pod", "shop", "api")) ==
        std::vector<std::int64_t>{8080, 9990});
  std::string annotatedPod(kPod);
  annotatedPod.replace(annotatedPod.find("  labels:"), 0,
                       "  annotations: {config.linkerd.io/default-inbound-policy: deny}\n");
  Fixture podAnnotation(annotatedPod);
  CHECK(podAnnotation.port("Pod", "shop", "api", 8080).serverName == "deny");
  Fixture server(std::string(kPod) + R"(---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: other, namespace: elsewhere}
spec:
  podSelector: {matchLabels: {app: other}}
  port: 80
)");
  CHECK(portsOf(server.inbound("Pod", "shop", "api")) == std::vector<std::int64_t>{8080, 9990});
}

TEST_CASE("a port list with one bad entry is empty, as Linkerd reads it") {
  Fixture f(std::string(kPod).replace(std::string(kPod).find("  labels:"), 0,
                                      "  annotations:\n    config.linkerd.io/opaque-ports: "
                                      "\"9990,admin\"\n"));
  CHECK(f.port("Pod", "shop", "api", 9990).protocol == "Detect");
}

TEST_CASE("servers: by name or number, the oldest wins, no timestamp counts as oldest") {
  Fixture f(std::string(kPod) + R"(---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: a-new, namespace: shop, creationTimestamp: "2025-01-01T00:00:00Z"}
spec: {podSelector: {matchLabels: {app: api}}, port: http, proxyProtocol: HTTP/1}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: z-old, namespace: shop, creationTimestamp: "2024-01-01T00:00:00Z"}
spec: {podSelector: {matchLabels: {app: api}}, port: 8080, proxyProtocol: HTTP/2}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: y-stamped, namespace: shop, creationTimestamp: "2000-01-01T00:00:00Z"}
spec: {podSelector: {matchLabels: {app: api}}, port: admin, proxyProtocol: gRPC}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: z-unstamped, namespace: shop}
spec: {podSelector: {matchLabels: {app: api}}, port: 9990, proxyProtocol: opaque, accessPolicy: audit}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: extra, namespace: shop}
spec: {podSelector: {}, port: 4191}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: elsewhere, namespace: other}
spec: {podSelector: {}, port: 5000}
)");
  CHECK(portsOf(f.inbound("Pod", "shop", "api")) == std::vector<std::int64_t>{4191, 8080, 9990});
  const ld::InboundPort& http = f.port("Pod", "shop", "api", 8080);
  CHECK(http.serverName == "z-old");
  CHECK(http.protocol == "HTTP/2");
  CHECK(http.authorizations.empty());  // no authorization: deny
  REQUIRE(http.shadowed.size() == 1);
  CHECK(http.shadowed[0]->name == "a-new");
  CHECK(f.inbound("Pod", "shop", "api").selectedBy.size() == 5);
  // With a Server and no route: the default HTTP routes (with the probe) and the default gRPC
  // route.
  CHECK(refs(http.httpRoutes) == std::vector<std::string>{"default/default", "default/probe"});
  CHECK(refs(http.grpcRoutes) == std::vector<std::string>{"default/default"});
  REQUIRE(http.grpcRoutes[0].rules[0].grpcMatches.size() == 1);
  CHECK(http.grpcRoutes[0].rules[0].grpcMatches[0].hasMethod);
  const ld::InboundPort& admin = f.port("Pod", "shop", "api", 9990);
  CHECK(admin.serverName == "z-unstamped");
  CHECK(admin.protocol == "Opaque");
  CHECK(refs(admin.authorizations) == std::vector<std::string>{"default/audit"});
  CHECK(f.port("Pod", "shop", "api", 4191).serverName == "extra");
}

TEST_CASE("authorizations: policies, their authentications, and what drops them") {
  Fixture f(std::string(kPod) + R"(---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api, namespace: shop, labels: {tier: back}}
spec: {podSelector: {matchLabels: {app: api}}, port: http}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: sa, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api}
  requiredAuthenticationRefs: [{kind: ServiceAccount, name: web}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: missing, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: nope}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: two-networks, namespace: shop}
spec:
  targetRef: {kind: Namespace, name: shop}
  requiredAuthenticationRefs:
  - {group: policy.linkerd.io, kind: NetworkAuthentication, name: net}
  - {group: policy.linkerd.io, kind: NetworkAuthentication, name: net}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: ns-net, namespace: shop}
spec:
  targetRef: {kind: Namespace, name: shop}
  requiredAuthenticationRefs:
  - {group: policy.linkerd.io, kind: NetworkAuthentication, name: net}
  - {group: policy.linkerd.io, kind: MeshTLSAuthentication, name: ns, namespace: linkerd}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: {name: net, namespace: shop}
spec: {networks: [{cidr: 10.2.0.0/16, except: [10.2.0.1]}]}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: ns, namespace: linkerd}
spec: {identityRefs: [{kind: Namespace, name: billing}]}
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: selected, namespace: shop}
spec:
  server: {selector: {matchLabels: {tier: back}}}
  client: {meshTLS: {serviceAccounts: [{name: ci, namespace: tools}]}}
)",
            "linkerd:\n  clusterNetworks: [10.0.0.0/8]\n");
  const ld::InboundPort& http = f.port("Pod", "shop", "api", 8080);
  REQUIRE(refs(http.authorizations) == std::vector<std::string>{"AuthorizationPolicy/ns-net",
                                                                "AuthorizationPolicy/sa",
                                                                "ServerAuthorization/selected"});
  std::vector<std::string> ignored;
  for (const ld::Ignored& i : f.a.linkerd.ignored)
    ignored.push_back(std::string(i.object->name) + "@" + std::to_string(i.at.start().line));
  // two-networks requires two NetworkAuthentications: Linkerd's webhook refuses it (LD601), so
  // it is never created and the index never sees it, nor ignores it.
  CHECK(ignored == std::vector<std::string>{"missing@34"});
  const ld::Authorization& nsNet = http.authorizations[0];
  CHECK(nets(nsNet.networks) == std::vector<std::string>{"10.2.0.0/16 -10.2.0.1/32"});
  REQUIRE(nsNet.identities.size() == 1);
  CHECK_FALSE(nsNet.identities[0].exact);
  CHECK(nsNet.identities[0].suffix == std::vector<std::string>{"billing", "serviceaccount",
                                                               "identity", "linkerd", "cluster",
                                                               "local"});
  const ld::Authorization& sa = http.authorizations[1];
  CHECK(sa.authentication == ld::AuthenticationKind::TlsAuthenticated);
  CHECK(sa.identities[0].name == "web.shop.serviceaccount.identity.linkerd.cluster.local");
  CHECK(nets(sa.networks) == std::vector<std::string>{"0.0.0.0/0", "::/0"});
  const ld::Authorization& selected = http.authorizations[2];
  CHECK(selected.identities[0].name == "ci.tools.serviceaccount.identity.linkerd.cluster.local");
  CHECK(nets(selected.networks) == std::vector<std::string>{"10.0.0.0/8"});
}

TEST_CASE("routes on Servers: status, conflicts, serving order, route authorizations") {
  const std::string manifests = std::string(kPod) + R"(---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api, namespace: shop}
spec: {podSelector: {matchLabels: {app: api}}, port: http}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b-route, namespace: shop}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: Server, name: api}]
  rules: [{matches: [{path: {type: Exact, value: /b}}]}]
---
apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata: {name: c-route, namespace: shop, creationTimestamp: "2024-01-01T00:00:00Z"}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: Server, name: api}]
  rules: [{matches: [{path: {value: /c}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a-route, namespace: shop}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: Server, name: api}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: mirrored, namespace: shop}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: Server, name: api}]
  rules: [{filters: [{type: RequestMirror, requestMirror: {backendRef: {name: x, port: 1}}}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: raw, namespace: shop}
spec:
  parentRefs:
  - {group: policy.linkerd.io, kind: Server, name: api}
  - {group: policy.linkerd.io, kind: Server, name: gone}
  rules: [{backendRefs: [{name: api, port: 80}]}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: on-route, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: httproute, name: B-Route}
  requiredAuthenticationRefs: []
)";
  Fixture f(manifests);
  const ld::InboundPort& http = f.port("Pod", "shop", "api", 8080);
  // Stamped first; then by name; `mirrored` is dropped by the index.
  CHECK(refs(http.httpRoutes) ==
        std::vector<std::string>{"HTTPRoute/c-route", "HTTPRoute/a-route", "HTTPRoute/b-route"});
  CHECK(http.httpRoutes[0].group == "policy.linkerd.io");
  // a-route writes no rules: the API server stores the schema's default, one rule matching
  // the path prefix "/".
  REQUIRE(http.httpRoutes[1].rules.size() == 1);
  REQUIRE(http.httpRoutes[1].rules[0].httpMatches.size() == 1);
  REQUIRE(http.httpRoutes[1].rules[0].httpMatches[0].path.has_value());
  CHECK(http.httpRoutes[1].rules[0].httpMatches[0].path->kind == "prefix");
  CHECK(http.httpRoutes[1].rules[0].httpMatches[0].path->value == "/");
  CHECK(refs(http.httpRoutes[2].authorizations) ==
        std::vector<std::string>{"AuthorizationPolicy/on-route"});
  CHECK(http.httpRoutes[0].authorizations.empty());

  std::vector<std::string> status;
  for (const ld::ServerParent& p : f.a.linkerd.serverParents)
    status.push_back(std::string(p.route->name) + ">" + p.name + ":" + p.accepted.reason);
  CHECK(status == std::vector<std::string>{"b-route>api:Accepted", "c-route>api:Accepted",
                                           "a-route>api:Accepted", "mirrored>api:Accepted",
                                           "raw>api:RouteReasonConflicted",
                                           "raw>gone:NoMatchingParent"});

  // The same answers on several threads.
  Fixture parallel(manifests, {}, 4);
  const ld::InboundPort& again = parallel.port("Pod", "shop", "api", 8080);
  CHECK(refs(again.httpRoutes) == refs(http.httpRoutes));
}

TEST_CASE("admission: identities, networks, policies") {
  for (const char* ok : {"*", "*.ns.serviceaccount.identity.linkerd.cluster.local", "a.b-c.d",
                         "spiffe://td", "spiffe://td/ns/a/sa/b"})
    CHECK_MESSAGE(ld::validIdentity(ok), ok);
  for (const char* bad : {"A.b", "a..b", ".a", "a.", "a.*", "spiffe:///x", "spiffe://td/",
                          "spiffe://td//x", "spiffe://td/./x", "spiffe://TD"})
    CHECK_MESSAGE(!ld::validIdentity(bad), bad);

  Fixture f(R"(apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata: {name: n, namespace: shop}
spec:
  networks:
  - cidr: 10.0.0.0/16
    except: [10.0.0.0/8, 10.0.1.0/24, 11.0.0.0/24]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api}
  requiredAuthenticationRefs:
  - {kind: ServiceAccount, name: a}
  - {kind: ServiceAccount, name: b}
)");
  std::vector<ld::Problem> networks = ld::refuseNetworks(
      *f.a.store.find("policy.linkerd.io", "NetworkAuthentication", "shop", "n"));
  REQUIRE(networks.size() == 2);
  CHECK(networks[0].message.find("covers the whole network") != std::string::npos);
  CHECK(networks[1].message.find("not inside") != std::string::npos);
  std::vector<ld::Problem> policy = ld::refuseAuthorizationPolicy(
      *f.a.store.find("policy.linkerd.io", "AuthorizationPolicy", "shop", "p"));
  REQUIRE(policy.size() == 1);
  CHECK(policy[0].at.start().line == 16);  // the second ServiceAccount
  CHECK(policy[0].message.find("only one ServiceAccount") != std::string::npos);
}
