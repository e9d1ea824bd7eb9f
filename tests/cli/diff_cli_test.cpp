// `policygraph diff` as a user runs it: folders, git revisions, the working tree, every
// format, --fail-on-new, the size cap of the pull-request comment, usage errors.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "tests/cli/run.h"
#include "tests/unit/test_folder.h"

namespace {

using pg::testing::git;
using pg::testing::run;
using pg::testing::Run;
using pg::testing::TestFolder;
namespace fs = std::filesystem;

// The example repository in `dir/rel`.
void copyExamples(const TestFolder& dir, const std::string& rel) {
  fs::create_directories(dir.path() / rel);
  fs::copy(fs::path(PG_SOURCE_DIR) / "testdata" / "examples", dir.path() / rel,
           fs::copy_options::recursive);
}

void replaceIn(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = pg::testing::readAll(file);
  std::size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
  std::ofstream(file, std::ios::binary) << text;
}

// The head's change: the public Gateway's default rate limit goes from 300 to 120 a minute,
// and the storefront route names a listener that does not exist.
void change(const fs::path& repo) {
  replaceIn(repo / "policies/kuadrant/ratelimit-gateway.yaml", "limit: 300", "limit: 120");
  replaceIn(repo / "apps/shop/routes.yaml", "sectionName: https", "sectionName: web");
}

}  // namespace

TEST_CASE("diff of two folders: attachments, effective fields, findings, exit status") {
  TestFolder dir;
  copyExamples(dir, "base");
  copyExamples(dir, "head");
  change(dir.path() / "head");

  Run text = run(dir.path(), "diff base head");
  CHECK(text.status == 0);  // --fail-on-new defaults to none
  CHECK(text.out.find("policygraph diff base -> head") != std::string::npos);
  CHECK(text.out.find("changed  RateLimitPolicy/infra/public-gateway-limits  "
                      "policies/kuadrant/ratelimit-gateway.yaml:") != std::string::npos);
  CHECK(text.out.find("detached  HTTPRoute/shop/storefront -x Gateway/infra/public#https: "
                      "NoMatchingParent: Gateway has no listener named web") != std::string::npos);
  CHECK(text.out.find("limits.per-client.rates: [{limit: 300, window: 1m}] -> [{limit: 120, "
                      "window: 1m}]  [RateLimitPolicy/infra/public-gateway-limits changed]") !=
        std::string::npos);
  CHECK(text.out.find("apps/shop/routes.yaml:30:7: error:") != std::string::npos);
  CHECK(text.out.find("[GW201]") != std::string::npos);
  CHECK(text.out.find("findings: 1 new (1 error, 0 warnings, 0 notes), 0 fixed") !=
        std::string::npos);

  CHECK(run(dir.path(), "diff base head --fail-on-new error").status == 1);
  CHECK(run(dir.path(), "diff base head --fail-on-new warning").status == 1);
  // Going back fixes the finding: nothing new.
  Run back = run(dir.path(), "diff head base --fail-on-new note");
  CHECK(back.status == 0);
  CHECK(back.out.find("findings: 0 new (0 errors, 0 warnings, 0 notes), 1 fixed") !=
        std::string::npos);
  CHECK(back.out.find("attached  HTTPRoute/shop/storefront -> Gateway/infra/public#https") !=
        std::string::npos);

  Run same = run(dir.path(), "diff base base --fail-on-new note");
  CHECK(same.status == 0);
  CHECK(same.out.find("no change to policies, route attachments, effective policy or findings") !=
        std::string::npos);

  // PATHs narrow both sides: under apps/ and infra/ there is no policy, so none changed.
  Run narrowed = run(dir.path(), "diff base head apps infra");
  CHECK(narrowed.status == 0);
  CHECK(narrowed.out.find("RateLimitPolicy") == std::string::npos);
  CHECK(narrowed.out.find("detached  HTTPRoute/shop/storefront") != std::string::npos);
}

TEST_CASE("diff formats: JSON for machines, Markdown for a pull request, in one run") {
  TestFolder dir;
  copyExamples(dir, "base");
  copyExamples(dir, "head");
  change(dir.path() / "head");
  Run r = run(dir.path(),
              "diff base head --format json --output d.json --format markdown --output d.md -q");
  CHECK(r.status == 0);
  CHECK(r.out.empty());

  nlohmann::json doc = nlohmann::json::parse(pg::testing::readAll(dir.path() / "d.json"));
  CHECK(doc["base"] == "base");
  CHECK(doc["summary"]["routesDetached"] == 1);
  CHECK(doc["summary"]["policiesChanged"] == 1);
  CHECK(doc["summary"]["newErrors"] == 1);
  CHECK(doc["attachments"][0]["reason"] == "NoMatchingParent");
  CHECK(doc["attachments"][0]["location"]["path"] == "apps/shop/routes.yaml");
  CHECK(doc["findings"]["new"][0]["ruleId"] == "GW201");
  bool sawField = false;
  for (const auto& e : doc["effective"])
    for (const auto& f : e["fields"])
      if (e["target"] == "HTTPRoute/shop/checkout" && f["field"] == "limits.per-client.rates") {
        sawField = true;
        CHECK(f["before"] == "[{limit: 300, window: 1m}]");
        CHECK(f["after"] == "[{limit: 120, window: 1m}]");
        CHECK(f["cause"] == "RateLimitPolicy/infra/public-gateway-limits changed");
      }
  CHECK(sawField);

  std::string md = pg::testing::readAll(dir.path() / "d.md");
  CHECK(md.rfind("<!-- policygraph-diff -->\n", 0) == 0);
  // The summary table first, then the folded details, the picture last.
  std::size_t table = md.find("| Route attachments | 0 attached, 1 detached |");
  std::size_t details = md.find("<details>");
  std::size_t mermaid = md.find("```mermaid");
  REQUIRE(table != std::string::npos);
  REQUIRE(details != std::string::npos);
  REQUIRE(mermaid != std::string::npos);
  CHECK(table < details);
  CHECK(details < mermaid);
  CHECK(md.find("| **1 error, 0 warnings, 0 notes** |") != std::string::npos);
  CHECK(md.find("| `HTTPRoute/shop/storefront` | `Gateway/infra/public#https` | **detached** | "
                "NoMatchingParent: Gateway has no listener named web |") != std::string::npos);
  // What changed is outlined in the picture.
  CHECK(std::regex_search(
      md, std::regex("class [a-z0-9_,]*httproute_shop_storefront[a-z0-9_,]* changed")));
  CHECK(md.find("more not shown") == std::string::npos);

  // A size cap: the comment stays under it, and says what it left out.
  Run small = run(dir.path(), "diff base head --format markdown --max-comment-bytes 2000");
  CHECK(small.status == 0);
  CHECK(small.out.size() <= 2000);
  CHECK(small.out.find("| Policies | 1 changed |") != std::string::npos);
  CHECK(small.out.find("more not shown") != std::string::npos);
  CHECK(small.out.find("```mermaid") == std::string::npos);
}

TEST_CASE("diff of git revisions and the working tree, read without a checkout") {
  TestFolder dir;
  copyExamples(dir, "repo");
  fs::path repo = dir.path() / "repo";
  git(repo, "init -q");
  git(repo, "add -A");
  git(repo, "commit -q -m base");
  change(repo);

  // HEAD against the working tree, from a subfolder: paths stay relative to the top.
  Run worktree = run(repo / "apps", "diff HEAD -- ..");
  CHECK(worktree.status == 0);
  CHECK(worktree.out.find("policygraph diff HEAD (") != std::string::npos);
  CHECK(worktree.out.find(") -> working tree") != std::string::npos);
  CHECK(worktree.out.find("apps/shop/routes.yaml:30:7: error:") != std::string::npos);
  CHECK(worktree.out.find("detached  HTTPRoute/shop/storefront") != std::string::npos);

  git(repo, "commit -q -am head");
  // The working tree is clean now; the two commits still differ.
  Run clean = run(repo, "diff HEAD");
  CHECK(clean.out.find("no change to policies") != std::string::npos);
  Run commits = run(repo, "diff HEAD~1 HEAD --fail-on-new error");
  CHECK(commits.status == 1);
  CHECK(commits.out.find("detached  HTTPRoute/shop/storefront") != std::string::npos);
  CHECK(commits.out.find("RateLimitPolicy/infra/public-gateway-limits changed") !=
        std::string::npos);
  // `--` with nothing before it only ends the options.
  CHECK(run(repo, "diff --fail-on-new error -- HEAD~1 HEAD apps infra").status == 1);
  // PATHs after `--` compare the revision with the working tree under them.
  Run narrowed = run(repo, "diff HEAD~1 -- policies");
  CHECK(narrowed.out.find("detached  HTTPRoute") == std::string::npos);
  CHECK(narrowed.out.find("RateLimitPolicy/infra/public-gateway-limits") != std::string::npos);
  // Options after the PATHs keep the narrowing.
  Run narrowedJson = run(repo, "diff HEAD~1 -- policies --format json");
  CHECK(narrowedJson.status == 0);
  CHECK(narrowedJson.out.find("HTTPRoute/shop/storefront") == std::string::npos);
  CHECK(narrowedJson.out.find("public-gateway-limits") != std::string::npos);
  // The working tree still has the commit's files: nothing was checked out.
  CHECK(pg::testing::readAll(repo / "apps/shop/routes.yaml").find("sectionName: web") !=
        std::string::npos);
}

TEST_CASE("diff on an unchanged tree with an object defined twice reports nothing") {
  TestFolder dir;
  const std::string policy =
      "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata:\n"
      "  name: public-client-traffic\n  namespace: infra\nspec:\n  targetRefs:\n"
      "    - group: gateway.networking.k8s.io\n      kind: Gateway\n      name: public\n"
      "  timeout:\n    http:\n      requestReceivedTimeout: ";
  for (const char* side : {"base", "head"}) {
    dir.write(std::string(side) + "/a-old.yaml", policy + "5s\n");
    dir.write(std::string(side) + "/b-new.yaml", policy + "10s\n");
  }
  Run same = run(dir.path(), "diff base head --format json");
  INFO(same.out);
  nlohmann::json report = nlohmann::json::parse(same.out);
  CHECK(report["policies"].empty());
  CHECK(report["effective"].empty());
  CHECK(run(dir.path(), "diff base head").out.find("no change to policies") != std::string::npos);
  // The two files are alternatives (units): each side's units are paired by name, and editing
  // one is a change of that unit.
  dir.write("head/b-new.yaml", policy + "20s\n");
  Run edited = run(dir.path(), "diff base head");
  INFO(edited.out);
  CHECK(edited.out.find(
            "changed  [b-new.yaml] ClientTrafficPolicy/infra/public-client-traffic  b-new.yaml") !=
        std::string::npos);
  CHECK(edited.out.find("[a-old.yaml]") == std::string::npos);
}

TEST_CASE("diff usage errors exit 2 and say why") {
  TestFolder dir;
  copyExamples(dir, "base");
  CHECK(run(dir.path(), "diff").status == 2);
  Run nothing = run(dir.path(), "diff no-such-thing");
  CHECK(nothing.status == 2);
  CHECK(nothing.err.find("no-such-thing") != std::string::npos);
  CHECK(run(dir.path(), "diff base base --format sarif").status == 2);
  CHECK(run(dir.path(), "diff base base --fail-on-new sometimes").status == 2);
  CHECK(run(dir.path(), "diff base base nowhere").status == 2);
  CHECK(run(dir.path(), "diff base base c -- d").status == 2);
  Run outside = run(dir.path(), "diff base base --max-comment-bytes 10");
  CHECK(outside.status == 2);
}

namespace {

// A Linkerd and a Kuma Universal repository in `dir/rel`: the snapshot cases' manifests.
void copyMeshRepo(const TestFolder& dir, const std::string& rel) {
  const fs::path cases = fs::path(PG_SOURCE_DIR) / "testdata" / "cases" / "snapshot";
  fs::create_directories(dir.path() / rel);
  fs::copy_file(cases / "linkerd-inbound" / "manifests.yaml", dir.path() / rel / "linkerd.yaml");
  fs::copy_file(cases / "kuma-universal" / "manifests.yaml", dir.path() / rel / "kuma.yaml");
}

// The head opens port 8080 of shop/api to a second client and raises a MeshTimeout.
void changeMesh(const fs::path& repo) {
  replaceIn(repo / "kuma.yaml", "      idleTimeout: 1m\n", "      idleTimeout: 2m\n");
  std::ofstream(repo / "linkerd.yaml", std::ios::app)
      << "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: admin, namespace: shop}\n"
         "---\napiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\n"
         "metadata: {name: api-from-admin, namespace: shop}\nspec:\n"
         "  targetRef: {group: policy.linkerd.io, kind: Server, name: api-http}\n"
         "  requiredAuthenticationRefs: [{kind: ServiceAccount, name: admin}]\n";
}

}  // namespace

TEST_CASE("diff of two folders: a Linkerd port opened to a client, a Kuma timeout raised") {
  TestFolder dir;
  copyMeshRepo(dir, "base");
  copyMeshRepo(dir, "head");
  changeMesh(dir.path() / "head");

  Run text = run(dir.path(), "diff base head");
  CHECK(text.status == 0);
  CHECK(text.out.find("\nPolicies\n"
                      "  added  AuthorizationPolicy/shop/api-from-admin  linkerd.yaml:95:1\n"
                      "  changed  MeshTimeout/web-outbound in mesh default  kuma.yaml:40:1\n") !=
        std::string::npos);
  CHECK(text.out.find("\nKuma\n"
                      "  Dataplane/web-1 in mesh default: MeshTimeout resource Mesh/default\n"
                      "    idleTimeout: 1m0s -> 2m0s  [MeshTimeout/web-outbound in mesh default]  "
                      "kuma.yaml:52:20\n"
                      "  Dataplane/web-1 in mesh default: MeshTimeout to everything\n"
                      "    idleTimeout: 1m0s -> 2m0s  [MeshTimeout/web-outbound in mesh default]  "
                      "kuma.yaml:52:20\n") != std::string::npos);
  CHECK(text.out.find("\nLinkerd\n"
                      "  Deployment/shop/api port 8080: now admits ServiceAccount shop/admin from "
                      "any address (AuthorizationPolicy/api-from-admin)  linkerd.yaml:95:1\n") !=
        std::string::npos);
  CHECK(text.out.find("effective policy: 0 fields on 0 targets; kuma: 2 fields on 1 proxy; "
                      "linkerd: 1 change on 1 port; findings: 0 new") != std::string::npos);

  Run json = run(dir.path(), "diff base head --format json");
  REQUIRE(json.status == 0);
  nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc["summary"]["kumaFields"] == 2);
  CHECK(doc["summary"]["linkerdChanges"] == 1);
  REQUIRE(doc["linkerd"].size() == 1);
  CHECK(doc["linkerd"][0]["workload"] == "Deployment/shop/api");
  CHECK(doc["linkerd"][0]["port"] == 8080);
  CHECK(
      doc["linkerd"][0]["change"] ==
      "now admits ServiceAccount shop/admin from any address (AuthorizationPolicy/api-from-admin)");
  REQUIRE(doc["kuma"].size() == 2);
  CHECK(doc["kuma"][1]["proxy"] == "Dataplane/web-1 in mesh default");
  CHECK(doc["kuma"][1]["policyType"] == "MeshTimeout");
  CHECK(doc["kuma"][1]["section"] == "to everything");
  CHECK(doc["kuma"][1]["field"] == "idleTimeout");
  CHECK(doc["kuma"][1]["before"] == "1m0s");
  CHECK(doc["kuma"][1]["after"] == "2m0s");
  CHECK(doc["kuma"][1]["afterFrom"] == "MeshTimeout/web-outbound in mesh default");
  CHECK(doc["kuma"][1]["location"]["line"] == 52);

  Run markdown = run(dir.path(), "diff base head --format markdown");
  REQUIRE(markdown.status == 0);
  CHECK(markdown.out.find("| Linkerd | 1 change on 1 port |") != std::string::npos);
  CHECK(markdown.out.find("| `Deployment/shop/api` | 8080 | now admits ServiceAccount shop/admin "
                          "from any address (AuthorizationPolicy/api-from-admin) |") !=
        std::string::npos);
  CHECK(markdown.out.find("| `Dataplane/web-1 in mesh default` | MeshTimeout | to everything | "
                          "`idleTimeout` | `1m0s` | `2m0s` | MeshTimeout/web-outbound in mesh "
                          "default |") != std::string::npos);

  // Back again: the port closes to that client.
  Run back = run(dir.path(), "diff head base");
  CHECK(back.out.find("  Deployment/shop/api port 8080: no longer admits ServiceAccount "
                      "shop/admin from any address (AuthorizationPolicy/api-from-admin)") !=
        std::string::npos);
}
