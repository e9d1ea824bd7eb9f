// `policygraph access` as a user runs it: LINKERD.md's §5 example (a route for GET /books that
// only ServiceAccount frontend may use, a Server-wide policy for one network), exit statuses,
// text and JSON.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run.h"
#include "tests/unit/test_folder.h"

namespace {

using pg::testing::run;
using pg::testing::Run;

const char* const kApi = R"(apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: Pod
metadata:
  name: api
  namespace: shop
  labels: {app: api}
  annotations: {linkerd.io/inject: enabled}
spec:
  containers:
  - name: api
    image: example.com/api:1.0
    ports:
    - {name: http, containerPort: 8080}
    - {name: admin, containerPort: 9990}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata:
  name: api
  namespace: shop
spec:
  podSelector:
    matchLabels: {app: api}
  port: http
  proxyProtocol: HTTP/1
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: books
  namespace: shop
spec:
  parentRefs:
  - {group: policy.linkerd.io, kind: Server, name: api}
  rules:
  - matches:
    - path: {type: PathPrefix, value: /books}
      method: GET
)";

const char* const kPolicy = R"(apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata:
  name: readers
  namespace: shop
spec:
  identityRefs:
  - {kind: ServiceAccount, name: frontend}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata:
  name: books-readers
  namespace: shop
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: books}
  requiredAuthenticationRefs:
  - {group: policy.linkerd.io, kind: MeshTLSAuthentication, name: readers}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: NetworkAuthentication
metadata:
  name: ops
  namespace: shop
spec:
  networks:
  - cidr: 10.1.0.0/16
    except: [10.1.255.0/24]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata:
  name: ops
  namespace: shop
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api}
  requiredAuthenticationRefs:
  - {group: policy.linkerd.io, kind: NetworkAuthentication, name: ops}
)";

const char* const kClients = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
  namespace: shop
spec:
  selector: {matchLabels: {app: frontend}}
  template:
    metadata:
      labels: {app: frontend}
      annotations: {linkerd.io/inject: enabled}
    spec:
      serviceAccountName: frontend
      containers: [{name: web, image: web}]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: frontend
  namespace: shop
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: reporting
  namespace: shop
)";

struct Repo {
  pg::testing::TestFolder dir;
  Repo() {
    dir.write("api.yaml", kApi);
    dir.write("policy.yaml", kPolicy);
    dir.write("clients.yaml", kClients);
  }
  Run access(const std::string& args) const { return run(dir.path(), "access " + args + " ."); }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("access: frontend may GET /books through the route's AuthorizationPolicy") {
  Repo repo;
  Run r = repo.access(
      "--from Deployment/shop/frontend --to Pod/shop/api:8080 "
      "--request 'GET /books/12'");
  CHECK(r.status == 0);
  CHECK(has(r.out,
            "allowed: Deployment/shop/frontend may GET /books/12 on Pod/shop/api port "
            "8080 (200)\n"));
  CHECK(has(r.out, "meshed, identity frontend.shop.serviceaccount.identity.linkerd.cluster.local"));
  CHECK(has(r.out, "served by: Server/api, protocol HTTP/1  api.yaml:"));
  CHECK(has(r.out, "route: HTTPRoute/books rules[0].matches[0]: GET prefix /books  api.yaml:"));
  CHECK(has(r.out, "authorized by: AuthorizationPolicy/books-readers (route, tlsAuthenticated)"));
  CHECK(has(r.out, "from MeshTLSAuthentication/shop/readers  policy.yaml:4:3"));
  // The port by its container port name, the same answer.
  CHECK(repo.access("--from Deployment/shop/frontend --to Pod/shop/api:http "
                    "--request 'GET /books'")
            .status == 0);
  // A header takes one value: the path after it is the input, not a second header.
  Run h = repo.access(
      "--from Deployment/shop/frontend --to Pod/shop/api:8080 --request 'GET /books' "
      "--header 'x-trace: 1'");
  CHECK(h.status == 0);
  CHECK(has(h.out, "allowed: Deployment/shop/frontend may GET /books on Pod/shop/api"));
}

TEST_CASE("access: another ServiceAccount gets 403, allowed only from the ops network") {
  Repo repo;
  Run r = repo.access(
      "--from ServiceAccount/shop/reporting --to Pod/shop/api:8080 "
      "--request 'GET /books'");
  CHECK(r.status == 1);
  CHECK(has(r.out, "403 unauthorized: ServiceAccount/shop/reporting may not GET /books"));
  CHECK(has(r.out,
            "route AuthorizationPolicy/books-readers (tlsAuthenticated): no, the identity "
            "reporting.shop.serviceaccount.identity.linkerd.cluster.local matches none of "
            "frontend.shop.serviceaccount.identity.linkerd.cluster.local"));
  CHECK(has(r.out, "server AuthorizationPolicy/ops (unauthenticated): depends"));
  CHECK(has(r.out,
            "  allowed only if the client's address is in 10.1.0.0/16 except "
            "10.1.255.0/24 (AuthorizationPolicy/ops)\n"));
  CHECK(has(r.out, "to do: give the client's address with --from-ip"));

  Run json = repo.access(
      "--from ServiceAccount/shop/reporting --to Pod/shop/api:8080 "
      "--request 'GET /books' --format json");
  CHECK(json.status == 1);
  nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc["decision"] == "unauthorized");
  CHECK(doc["status"] == 403);
  CHECK(doc["protocol"] == "HTTP/1");
  CHECK(doc["server"]["kind"] == "Server");
  CHECK(doc["server"]["name"] == "api");
  CHECK(doc["route"]["ref"]["name"] == "books");
  CHECK(doc["route"]["rule"] == 0);
  CHECK(doc["authorization"].is_null());
  REQUIRE(doc["considered"].size() == 2);
  CHECK(doc["considered"][0]["ref"]["name"] == "books-readers");
  CHECK(doc["considered"][0]["admits"] == "no");
  CHECK(doc["considered"][1]["ref"]["name"] == "ops");
  CHECK(doc["considered"][1]["admits"] == "depends");
  CHECK(doc["client"]["identity"] ==
        "reporting.shop.serviceaccount.identity.linkerd.cluster.local");
  CHECK(doc["client"]["address"].is_null());
  CHECK(doc["destination"] == nlohmann::json{{"workload", "Pod/shop/api"}, {"port", 8080}});

  // From an address in the ops network it is allowed by the Server's policy; from its
  // exception it is not.
  Run ops = repo.access(
      "--from ServiceAccount/shop/reporting --from-ip 10.1.2.3 "
      "--to Pod/shop/api:8080 --request 'GET /books'");
  CHECK(ops.status == 0);
  CHECK(has(ops.out, "authorized by: AuthorizationPolicy/ops (server, unauthenticated)"));
  Run except = repo.access("--from ip:10.1.255.9 --to Pod/shop/api:8080 --request 'GET /books'");
  CHECK(except.status == 1);
  CHECK(has(except.out, "the address 10.1.255.9/32 is in the exception 10.1.255.0/24"));
  CHECK(has(except.out, "not meshed"));
}

TEST_CASE("access: GET /other matches no route (the route replaced the default): 404") {
  Repo repo;
  Run r = repo.access(
      "--from Deployment/shop/frontend --to Pod/shop/api:8080 "
      "--request 'GET /other' --format json");
  CHECK(r.status == 1);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc["decision"] == "no route");
  CHECK(doc["status"] == 404);
  CHECK(doc["route"].is_null());
  CHECK(doc["considered"].empty());
  CHECK(has(doc["advice"][0].get<std::string>(), "routes: HTTPRoute/books"));
  Run post = repo.access(
      "--from Deployment/shop/frontend --to Pod/shop/api:8080 "
      "--request 'POST /books'");
  CHECK(post.status == 1);
  CHECK(has(post.out, "404 no route: nothing on Pod/shop/api port 8080 serves POST /books"));
}

TEST_CASE("access: the default policy's port admits anyone; usage errors exit 2") {
  Repo repo;
  Run admin = repo.access("--from ip:192.168.7.7 --to Pod/shop/api:9990 --request 'GET /x'");
  CHECK(admin.status == 0);
  CHECK(has(admin.out, "served by: default policy all-unauthenticated, protocol Detect"));
  CHECK(has(admin.out, "route: default/default"));
  CHECK(repo.access("--from ip:192.168.7.7 --to Pod/shop/api:9990").status == 0);

  Run noPort = repo.access("--from Deployment/shop/frontend --to Pod/shop/api");
  CHECK(noPort.status == 2);
  CHECK(has(noPort.err, "has the inbound ports 8080, 9990"));
  Run badPort = repo.access("--from Deployment/shop/frontend --to Pod/shop/api:7");
  CHECK(badPort.status == 2);
  CHECK(has(badPort.err, "has no inbound port 7"));
  Run nothing = repo.access("--from Deployment/shop/nobody --to Pod/shop/api:8080");
  CHECK(nothing.status == 2);
  CHECK(has(nothing.err, "Deployment/shop/nobody names nothing"));
  CHECK(has(nothing.err, "Deployment/shop/frontend"));
  Run badRequest = repo.access(
      "--from Deployment/shop/frontend --to Pod/shop/api:8080 "
      "--request books");
  CHECK(badRequest.status == 2);
  CHECK(has(badRequest.err, "--request wants"));
  CHECK(repo.access("--from ip:nowhere --to Pod/shop/api:8080").status == 2);
  CHECK(repo.access("--from Namespace/shop --to Pod/shop/api:8080").status == 2);
  CHECK(repo.access("--to Pod/shop/api:8080").status == 2);
}

// Kuma: MeshTrafficPermission on a Kuma proxy, Universal (Dataplanes in a mesh) and Kubernetes
// (a workload Kuma injects).
namespace {

const char* const kKumaUniversal = R"(type: Mesh
name: m
mtls:
  enabledBackend: ca
  backends:
  - name: ca
    type: builtin
---
type: Dataplane
name: backend
mesh: m
networking:
  address: 10.0.0.2
  inbound:
  - port: 8080
    name: http
    tags:
      kuma.io/service: backend
      kuma.io/protocol: http
  - port: 9090
    tags:
      kuma.io/service: backend-admin
---
type: Dataplane
name: web-v1
mesh: m
networking:
  address: 10.0.0.3
  inbound:
  - port: 80
    tags:
      kuma.io/service: web
      version: v1
---
type: MeshTrafficPermission
name: backend-permissions
mesh: m
spec:
  targetRef:
    kind: Mesh
  from:
  - targetRef:
      kind: MeshSubset
      tags:
        kuma.io/service: web
    default:
      action: AllowWithShadowDeny
  - targetRef:
      kind: MeshServiceSubset
      name: web
      tags:
        version: v1
    default:
      action: Deny
)";

const char* const kKumaKubernetes = R"(apiVersion: v1
kind: Namespace
metadata:
  name: pay
  labels: {kuma.io/sidecar-injection: enabled}
---
apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata:
  name: default
spec:
  mtls:
    enabledBackend: ca
    backends:
    - {name: ca, type: builtin}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger
  namespace: pay
spec:
  selector:
    matchLabels: {app: ledger}
  template:
    metadata:
      labels: {app: ledger}
    spec:
      containers:
      - name: ledger
        image: ledger
        ports: [{name: http, containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata:
  name: ledger
  namespace: pay
spec:
  selector: {app: ledger}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: billing
  namespace: pay
spec:
  selector:
    matchLabels: {app: billing}
  template:
    metadata:
      labels: {app: billing}
    spec:
      containers: [{name: billing, image: billing}]
---
apiVersion: v1
kind: Namespace
metadata:
  name: outside
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: batch
  namespace: outside
spec:
  selector:
    matchLabels: {app: batch}
  template:
    metadata:
      labels: {app: batch}
    spec:
      containers: [{name: batch, image: batch}]
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: ledger-from-pay
  namespace: pay
  labels: {kuma.io/mesh: default}
spec:
  targetRef:
    kind: Dataplane
    labels: {app: ledger}
  from:
  - targetRef:
      kind: MeshSubset
      tags: {k8s.kuma.io/namespace: pay}
    default:
      action: Allow
)";

struct KumaRepo {
  pg::testing::TestFolder dir;
  KumaRepo() {
    dir.write("universal.yaml", kKumaUniversal);
    dir.write("kubernetes.yaml", kKumaKubernetes);
  }
  Run access(const std::string& args) const { return run(dir.path(), "access " + args + " ."); }
};

}  // namespace

TEST_CASE("access: Kuma denies web v1 by its MeshTrafficPermission, admits other web proxies") {
  KumaRepo repo;
  Run r = repo.access("--from Dataplane/web-v1 --to Dataplane/backend:8080 --mesh m");
  CHECK(r.status == 1);
  // An HTTP inbound: Envoy's HTTP RBAC filter answers 403.
  CHECK(has(r.out, "403 unauthorized: Dataplane/web-v1 may not connect to Dataplane/backend"));
  CHECK(has(r.out,
            "client: Dataplane/web-v1: meshed, tags kuma.io/service=web, version=v1, "
            "identity spiffe://m/web"));
  CHECK(has(r.out,
            "served by: Dataplane backend inbound http port 8080 (kuma.io/protocol=http, "
            "kuma.io/service=backend), protocol http  universal.yaml:"));
  CHECK(has(r.out, "mutual TLS: STRICT\n"));
  CHECK(has(r.out,
            "decided by: Deny for kuma.io/service=web, version=v1 <- "
            "MeshTrafficPermission/backend-permissions in mesh m from[1]  universal.yaml:54:15\n"));
  CHECK(has(r.out, "client's tags that matched: kuma.io/service=web, version=v1\n"));
  CHECK(has(r.out, "to do: to let the client in"));

  // A web proxy known only by its tags: the AllowWithShadowDeny item, with its note.
  Run v2 = repo.access(
      "--from tags:kuma.io/service=web,version=v2 --to Dataplane/backend:http "
      "--mesh m --format json");
  CHECK(v2.status == 0);
  nlohmann::json doc = nlohmann::json::parse(v2.out);
  CHECK(doc["family"] == "kuma");
  CHECK(doc["decision"] == "allowed");
  CHECK(doc["mtls"] == "STRICT");
  CHECK(doc["inbound"]["port"] == 8080);
  CHECK(doc["inbound"]["name"] == "http");
  CHECK(doc["decidedBy"]["action"] == "AllowWithShadowDeny");
  CHECK(doc["decidedBy"]["from"] == 0);
  CHECK(doc["decidedBy"]["policy"] == "MeshTrafficPermission/backend-permissions in mesh m");
  CHECK(doc["decidedBy"]["at"] == "universal.yaml:47:15");
  CHECK(doc["decidedBy"]["coversClient"] == true);
  CHECK(doc["client"]["tags"].size() == 2);
  CHECK(doc["matchedTags"] ==
        nlohmann::json::array({{{"key", "kuma.io/service"}, {"value", "web"}}}));
  CHECK(doc["rules"].size() >= 2);
  bool shadow = false;
  for (const auto& n : doc["notes"]) shadow = shadow || has(n.get<std::string>(), "shadow");
  CHECK(shadow);

  // Another service: no rule covers it; Kuma denies, and the control plane's default policy is
  // assumed absent.
  Run other = repo.access("--from service:reports --to Dataplane/backend:8080 --mesh m");
  CHECK(other.status == 1);
  CHECK(has(other.out, "no MeshTrafficPermission `from` rule covers the client"));
  CHECK(has(other.out, "assumed absent"));
}

TEST_CASE("access: Kuma on Kubernetes: injected workloads by namespace, unmeshed refused at TLS") {
  KumaRepo repo;
  Run r = repo.access("--from Deployment/pay/billing --to Deployment/pay/ledger:8080");
  CHECK(r.status == 0);
  CHECK(
      has(r.out, "allowed: Deployment/pay/billing may connect to Deployment/pay/ledger port 8080"));
  CHECK(has(r.out,
            "decided by: Allow for k8s.kuma.io/namespace=pay <- "
            "MeshTrafficPermission/pay/ledger-from-pay from[0]  kubernetes.yaml:"));
  // The port by its service port, the same inbound; a request does not change the answer.
  Run byService =
      repo.access("--from Deployment/pay/billing --to Deployment/pay/ledger:80 --request 'GET /'");
  CHECK(byService.status == 0);
  CHECK(has(byService.out, "per connection"));

  Run batch = repo.access("--from Deployment/outside/batch --to Deployment/pay/ledger:8080");
  CHECK(batch.status == 1);
  CHECK(has(batch.out, "client: Deployment/outside/batch: no Kuma proxy"));
  CHECK(has(batch.out, "fails the TLS handshake"));
  CHECK(has(batch.out, "not reached, the TLS handshake fails first"));
  Run ip = repo.access("--from ip:10.2.3.4 --to Deployment/pay/ledger:8080 --format json");
  CHECK(ip.status == 1);
  nlohmann::json doc = nlohmann::json::parse(ip.out);
  CHECK(doc["decision"] == "refused");
  CHECK(doc["decidedBy"].is_null());
}

TEST_CASE("access: Kuma usage errors exit 2") {
  KumaRepo repo;
  Run noMesh = repo.access("--from Dataplane/web-v1 --to Dataplane/backend:8080");
  CHECK(noMesh.status == 2);
  CHECK(has(noMesh.err, "--mesh"));
  Run noPort = repo.access("--from Dataplane/web-v1 --to Dataplane/backend --mesh m");
  CHECK(noPort.status == 2);
  CHECK(has(noPort.err, "8080 (http), 9090"));
  Run badPort = repo.access("--from Dataplane/web-v1 --to Dataplane/backend:7 --mesh m");
  CHECK(badPort.status == 2);
  Run nobody = repo.access("--from Dataplane/nobody --to Dataplane/backend:8080 --mesh m");
  CHECK(nobody.status == 2);
  CHECK(has(nobody.err, "names no Kuma proxy in mesh m"));
  CHECK(repo.access("--from tags:kuma.io/service --to Dataplane/backend:8080 --mesh m").status ==
        2);
  CHECK(repo.access("--from ServiceAccount/pay/default --to Deployment/pay/ledger:8080").status ==
        2);
  CHECK(repo.access("--from service:web --to Deployment/outside/batch").status == 2);
}
