// lib/diff/mesh.*: Kuma proxies' merged fields and Linkerd's inbound ports, compared.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "lib/analysis/analysis.h"
#include "lib/diff/diff.h"
#include "lib/diff/mesh.h"
#include "tests/unit/test_folder.h"

namespace pg {
namespace {

analysis::Analysis analyzeFolder(const std::filesystem::path& dir) {
  return analysis::analyze({}, {{dir.string()}, dir, 1, {}, {}, {}});
}

std::string kumaRepo(const std::string& idleTimeout, bool retries) {
  std::string out = R"(type: Mesh
name: default
---
type: Dataplane
name: web-1
mesh: default
networking:
  address: 10.0.0.1
  inbound:
  - port: 8080
    tags:
      kuma.io/service: web
---
type: MeshTimeout
name: web-outbound
mesh: default
spec:
  targetRef:
    kind: Mesh
  to:
  - targetRef:
      kind: Mesh
    default:
      idleTimeout: )" +
                    idleTimeout + "\n";
  if (retries)
    out += R"(---
type: MeshRetry
name: web-retries
mesh: default
spec:
  targetRef:
    kind: Mesh
  to:
  - targetRef:
      kind: Mesh
    default:
      http:
        numRetries: 3
)";
  return out;
}

// A Namespace Linkerd injects, a workload with one port, a Server, and the AuthorizationPolicies
// named in `clients` (one per ServiceAccount) on it.
std::string linkerdRepo(const std::vector<std::string>& clients, bool inject = true) {
  std::string out = R"(apiVersion: v1
kind: Namespace
metadata:
  name: shop
)";
  if (inject) out += "  annotations: {linkerd.io/inject: enabled}\n";
  out += R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - name: api
        image: example.com/api:1.0
        ports: [{name: http, containerPort: 8080}]
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api-http, namespace: shop}
spec:
  podSelector: {matchLabels: {app: api}}
  port: http
  proxyProtocol: HTTP/1
)";
  for (const std::string& c : clients)
    out += "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: " + c +
           ", namespace: shop}\n---\napiVersion: policy.linkerd.io/v1alpha1\n"
           "kind: AuthorizationPolicy\nmetadata: {name: from-" +
           c +
           ", namespace: shop}\nspec:\n"
           "  targetRef: {group: policy.linkerd.io, kind: Server, name: api-http}\n"
           "  requiredAuthenticationRefs: [{kind: ServiceAccount, name: " +
           c + "}]\n";
  return out;
}

struct Compared {
  testing::TestFolder dir;
  analysis::Analysis base, head;
  diff::Result result;
  Compared(const std::string& before, const std::string& after) {
    dir.write("a/all.yaml", before);
    dir.write("b/all.yaml", after);
    base = analyzeFolder(dir.path() / "a");
    head = analyzeFolder(dir.path() / "b");
    std::vector<model::Finding> none;
    result = diff::compare({base, none, "a"}, {head, none, "b"});
  }
};

std::vector<std::string> linkerdLines(const diff::Result& r) {
  std::vector<std::string> out;
  for (const diff::LinkerdChange& l : r.linkerd)
    out.push_back(l.workload + ":" + std::to_string(l.port) + " " + l.change);
  return out;
}

}  // namespace

TEST_CASE("diff kuma: a merged field changes, with the policy that sets it on both sides") {
  Compared c(kumaRepo("1m", false), kumaRepo("2m", false));
  REQUIRE_FALSE(c.result.kuma.empty());
  for (const diff::KumaChange& k : c.result.kuma) {
    CHECK(k.proxy == "Dataplane/web-1 in mesh default");
    CHECK(k.policyType == "MeshTimeout");
    CHECK(k.field == "idleTimeout");
    CHECK(k.before == "1m0s");
    CHECK(k.after == "2m0s");
    CHECK(k.beforeFrom == "MeshTimeout/web-outbound in mesh default");
    CHECK(k.afterFrom == "MeshTimeout/web-outbound in mesh default");
    CHECK(k.at.path == "all.yaml");
    CHECK(k.at.start.line == 24);
  }
  CHECK(std::any_of(c.result.kuma.begin(), c.result.kuma.end(),
                    [](const diff::KumaChange& k) { return k.section == "to everything"; }));
  // The changed MeshTimeout is in the list of policy objects.
  REQUIRE(c.result.policies.size() == 1);
  CHECK(c.result.policies[0].policy == "MeshTimeout/web-outbound in mesh default");
  CHECK(c.result.policies[0].change == diff::Change::Changed);
}

TEST_CASE("diff kuma: a policy type that starts to apply shows every field it sets") {
  Compared c(kumaRepo("1m", false), kumaRepo("1m", true));
  REQUIRE_FALSE(c.result.kuma.empty());
  for (const diff::KumaChange& k : c.result.kuma) {
    CHECK(k.policyType == "MeshRetry");
    CHECK(k.field == "http.numRetries");
    CHECK_FALSE(k.before);
    CHECK(k.after == "3");
    CHECK(k.beforeFrom.empty());
    CHECK(k.afterFrom == "MeshRetry/web-retries in mesh default");
  }
  REQUIRE(c.result.policies.size() == 1);
  CHECK(c.result.policies[0].change == diff::Change::Added);
  // Nothing changes: nothing to say.
  Compared same(kumaRepo("1m", true), kumaRepo("1m", true));
  CHECK(same.result.empty());
}

TEST_CASE("diff linkerd: a port opened to a new client, and closed to every client") {
  Compared opened(linkerdRepo({"frontend"}), linkerdRepo({"frontend", "admin"}));
  CHECK(linkerdLines(opened.result) ==
        std::vector<std::string>{"Deployment/shop/api:8080 now admits ServiceAccount shop/admin "
                                 "from any address (AuthorizationPolicy/from-admin)"});
  REQUIRE(opened.result.linkerd.size() == 1);
  CHECK(opened.result.linkerd[0].at.path == "all.yaml");
  // The policy objects added: the AuthorizationPolicy (a ServiceAccount is no policy).
  REQUIRE(opened.result.policies.size() == 1);
  CHECK(opened.result.policies[0].policy == "AuthorizationPolicy/shop/from-admin");

  Compared closed(linkerdRepo({"frontend"}), linkerdRepo({}));
  CHECK(linkerdLines(closed.result) ==
        std::vector<std::string>{
            "Deployment/shop/api:8080 no longer admits ServiceAccount shop/frontend from any "
            "address (AuthorizationPolicy/from-frontend)",
            "Deployment/shop/api:8080 no authorization admits any client any more: every request "
            "is denied"});
}

TEST_CASE("diff linkerd: the Server that serves a port, and injection") {
  std::string withoutServer = linkerdRepo({});
  withoutServer.erase(withoutServer.find("---\napiVersion: policy.linkerd.io/v1beta3"));
  Compared served(withoutServer, linkerdRepo({"web"}));
  std::vector<std::string> lines = linkerdLines(served.result);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] ==
        "Deployment/shop/api:8080 served by Server api-http instead of the default policy "
        "all-unauthenticated");
  CHECK(lines[1] == "Deployment/shop/api:8080 protocol HTTP/1 instead of Detect");
  CHECK(lines[2] ==
        "Deployment/shop/api:8080 no longer admits unauthenticated clients from any address "
        "(default policy all-unauthenticated)");
  CHECK(lines[3] ==
        "Deployment/shop/api:8080 now admits ServiceAccount shop/web from any address "
        "(AuthorizationPolicy/from-web)");

  // A workload Linkerd does not inject has no inbound policy to compare.
  Compared uninjected(linkerdRepo({"frontend"}, false), linkerdRepo({"frontend", "admin"}, false));
  CHECK(uninjected.result.linkerd.empty());
  Compared injected(linkerdRepo({"frontend"}, false), linkerdRepo({"frontend"}, true));
  CHECK(linkerdLines(injected.result) ==
        std::vector<std::string>{"Deployment/shop/api:8080 now served by Linkerd: Server "
                                 "api-http, HTTP/1",
                                 "Deployment/shop/api:8080 now admits ServiceAccount "
                                 "shop/frontend from any address "
                                 "(AuthorizationPolicy/from-frontend)"});
}

}  // namespace pg

namespace pg {

TEST_CASE("diff linkerd: an authorization that admits one more identity says which") {
  auto repo = [](const std::string& identityRefs) {
    return linkerdRepo({}) +
           "---\napiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\n"
           "metadata: {name: clients, namespace: shop}\nspec:\n  identityRefs: " +
           identityRefs +
           "\n---\napiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\n"
           "metadata: {name: from-clients, namespace: shop}\nspec:\n"
           "  targetRef: {group: policy.linkerd.io, kind: Server, name: api-http}\n"
           "  requiredAuthenticationRefs:\n"
           "  - {group: policy.linkerd.io, kind: MeshTLSAuthentication, name: clients}\n";
  };
  const std::string one = "[{kind: ServiceAccount, name: frontend}]";
  const std::string two =
      "[{kind: ServiceAccount, name: frontend}, {kind: ServiceAccount, name: admin}]";
  Compared c(repo(one), repo(two));
  CHECK(linkerdLines(c.result) ==
        std::vector<std::string>{"Deployment/shop/api:8080 now admits ServiceAccount shop/admin "
                                 "from any address (AuthorizationPolicy/from-clients)"});
  Compared back(repo(two), repo(one));
  CHECK(linkerdLines(back.result) ==
        std::vector<std::string>{"Deployment/shop/api:8080 no longer admits ServiceAccount "
                                 "shop/admin from any address (AuthorizationPolicy/from-clients)"});
}

}  // namespace pg
