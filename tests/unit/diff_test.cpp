#include "lib/diff/diff.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "lib/analysis/analysis.h"
#include "lib/diff/sides.h"
#include "lib/load/git.h"
#include "lib/load/loader.h"
#include "lib/policy/value.h"
#include "lib/yaml/parser.h"
#include "tests/unit/test_folder.h"

namespace pg {
namespace {

constexpr const char* kClass = R"(apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: acme
spec:
  controllerName: acme.example/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: public
  namespace: infra
spec:
  gatewayClassName: acme
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    hostname: "*.example.com"
    allowedRoutes:
      namespaces:
        from: All
)";

std::string route(const std::string& hostname) {
  return R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: checkout
  namespace: shop
spec:
  parentRefs:
  - name: public
    namespace: infra
  hostnames:
  - )" + hostname +
         R"(
  rules:
  - backendRefs:
    - name: checkout
      port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: checkout
  namespace: shop
spec:
  ports:
  - port: 80
)";
}

std::string limits(int perMinute) {
  return R"(apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: gateway-limits
  namespace: infra
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: public
  defaults:
    limits:
      per-client:
        rates:
        - limit: )" +
         std::to_string(perMinute) + R"(
          window: 1m
)";
}

analysis::Analysis analyzeFolder(const std::filesystem::path& dir) {
  return analysis::analyze({}, {{dir.string()}, dir, 1, {}, {}, {}});
}

// A finding per side, standing in for the rule engine's output.
model::Finding finding(const std::string& fingerprint, model::Severity severity) {
  model::Finding f;
  f.ruleId = "GW201";
  f.severity = severity;
  f.fingerprint = fingerprint;
  f.message = fingerprint;
  return f;
}

const diff::EffectiveChange* findEffective(const diff::Result& r, std::string_view target) {
  for (const diff::EffectiveChange& e : r.effective)
    if (e.target == target) return &e;
  return nullptr;
}

// Runs git in `dir` with a fixed identity, so the test needs no git configuration.
void git(const std::filesystem::path& dir, const std::string& args) {
  std::string command = "cd '" + dir.string() +
                        "' && git -c user.name=policygraph -c user.email=test@example.com "
                        "-c init.defaultBranch=main -c core.symlinks=true " +
                        args + " >/dev/null 2>&1";
  REQUIRE_MESSAGE(std::system(command.c_str()) == 0, command);
}

}  // namespace

TEST_CASE("diff: identical sides have nothing to say") {
  testing::TestFolder dir;
  dir.write("a/all.yaml",
            std::string(kClass) + "---\n" + route("shop.example.com") + "---\n" + limits(100));
  dir.write("b/all.yaml",
            std::string(kClass) + "---\n" + route("shop.example.com") + "---\n" + limits(100));
  analysis::Analysis a = analyzeFolder(dir.path() / "a");
  analysis::Analysis b = analyzeFolder(dir.path() / "b");
  std::vector<model::Finding> none;
  diff::Result r = diff::compare({a, none, "a"}, {b, none, "b"});
  CHECK(r.empty());
}

TEST_CASE("diff: a policy change shows field by field, with the policy that caused it") {
  testing::TestFolder dir;
  dir.write("a/gw.yaml", kClass);
  dir.write("a/route.yaml", route("shop.example.com"));
  dir.write("a/limits.yaml", limits(100));
  dir.write("b/gw.yaml", kClass);
  dir.write("b/route.yaml", route("shop.example.com"));
  dir.write("b/limits.yaml", limits(300));
  analysis::Analysis a = analyzeFolder(dir.path() / "a");
  analysis::Analysis b = analyzeFolder(dir.path() / "b");
  std::vector<model::Finding> none;
  diff::Result r = diff::compare({a, none, "a"}, {b, none, "b"});

  REQUIRE(r.policies.size() == 1);
  CHECK(r.policies[0].policy == "RateLimitPolicy/infra/gateway-limits");
  CHECK(r.policies[0].change == diff::Change::Changed);
  CHECK(r.attachments.empty());
  const diff::EffectiveChange* onRoute = findEffective(r, "HTTPRoute/shop/checkout");
  REQUIRE(onRoute);
  CHECK(onRoute->kind == "RateLimitPolicy");
  CHECK(onRoute->path ==
        std::vector<std::string>{"Gateway/infra/public", "HTTPRoute/shop/checkout"});
  REQUIRE(onRoute->fields.size() == 1);
  const diff::FieldChange& f = onRoute->fields[0];
  CHECK(f.field == "limits.per-client.rates");
  CHECK(f.before == "[{limit: 100, window: 1m}]");
  CHECK(f.after == "[{limit: 300, window: 1m}]");
  CHECK(f.cause == "RateLimitPolicy/infra/gateway-limits changed");
  CHECK(f.afterFrom == "RateLimitPolicy/infra/gateway-limits (default, Gateway)");
  // The value in the head's file.
  CHECK(f.at.path == "limits.yaml");
  CHECK(f.at.start.line == 15);  // the list under `rates:`
}

TEST_CASE("diff: a route that stops attaching, why, and what it loses") {
  testing::TestFolder dir;
  dir.write("a/gw.yaml", kClass);
  dir.write("a/route.yaml", route("shop.example.com"));
  dir.write("a/limits.yaml", limits(100));
  dir.write("b/gw.yaml", kClass);
  dir.write("b/route.yaml", route("shop.example.org"));
  dir.write("b/limits.yaml", limits(100));
  analysis::Analysis a = analyzeFolder(dir.path() / "a");
  analysis::Analysis b = analyzeFolder(dir.path() / "b");
  std::vector<model::Finding> base = {finding("fixed-one", model::Severity::Warning),
                                      finding("kept", model::Severity::Error)};
  std::vector<model::Finding> head = {finding("kept", model::Severity::Error),
                                      finding("new-one", model::Severity::Error)};
  diff::Result r = diff::compare({a, base, "a"}, {b, head, "b"});

  CHECK(r.policies.empty());
  REQUIRE(r.attachments.size() == 1);
  const diff::AttachmentChange& detached = r.attachments[0];
  CHECK(detached.route == "HTTPRoute/shop/checkout");
  CHECK(detached.parent == "Gateway/infra/public#http");
  CHECK_FALSE(detached.attached);
  CHECK(detached.reason == "NoMatchingListenerHostname");
  CHECK(detached.at.path == "route.yaml");
  CHECK(detached.at.start.line == 8);  // the parentRef entry

  // The route's rate limit is gone with its path; the route change caused it, not the
  // (unchanged) policy.
  const diff::EffectiveChange* onRoute = findEffective(r, "HTTPRoute/shop/checkout");
  REQUIRE(onRoute);
  CHECK(onRoute->change == diff::Change::Removed);
  REQUIRE(onRoute->fields.size() == 1);
  CHECK(onRoute->fields[0].before);
  CHECK_FALSE(onRoute->fields[0].after);
  CHECK(onRoute->fields[0].cause == "HTTPRoute/shop/checkout changed");
  CHECK_FALSE(findEffective(r, "Gateway/infra/public"));

  REQUIRE(r.newFindings.size() == 1);
  CHECK(r.newFindings[0].fingerprint == "new-one");
  REQUIRE(r.fixedFindings.size() == 1);
  CHECK(r.fixedFindings[0].fingerprint == "fixed-one");

  // And back: the route attaches.
  diff::Result back = diff::compare({b, head, "b"}, {a, base, "a"});
  REQUIRE(back.attachments.size() == 1);
  CHECK(back.attachments[0].attached);
  CHECK(back.attachments[0].at.start.line == 8);
  CHECK(findEffective(back, "HTTPRoute/shop/checkout")->change == diff::Change::Added);
}

TEST_CASE("diff: a policy added and one removed") {
  testing::TestFolder dir;
  dir.write("a/gw.yaml", std::string(kClass) + "---\n" + route("shop.example.com"));
  dir.write("b/gw.yaml", std::string(kClass) + "---\n" + route("shop.example.com"));
  dir.write("b/limits.yaml", limits(100));
  analysis::Analysis a = analyzeFolder(dir.path() / "a");
  analysis::Analysis b = analyzeFolder(dir.path() / "b");
  std::vector<model::Finding> none;
  diff::Result added = diff::compare({a, none, "a"}, {b, none, "b"});
  REQUIRE(added.policies.size() == 1);
  CHECK(added.policies[0].change == diff::Change::Added);
  const diff::EffectiveChange* e = findEffective(added, "Gateway/infra/public");
  REQUIRE(e);
  CHECK(e->change == diff::Change::Added);
  CHECK(e->fields.at(0).cause == "RateLimitPolicy/infra/gateway-limits added");
  diff::Result removed = diff::compare({b, none, "b"}, {a, none, "a"});
  REQUIRE(removed.policies.size() == 1);
  CHECK(removed.policies[0].change == diff::Change::Removed);
  CHECK(findEffective(removed, "Gateway/infra/public")->fields.at(0).cause ==
        "RateLimitPolicy/infra/gateway-limits removed");
}

TEST_CASE("diff: flowText writes one line of YAML that reads back the same") {
  auto flow = [](const std::string& text) {
    yaml::ParseResult parsed = yaml::parse(text, {}, false);
    return diff::flowText(parsed.tree->root(0));
  };
  CHECK(flow("a: 1\nb: [x, 'y z']\n") == "{a: 1, b: [x, y z]}");
  CHECK(flow("v: '1.2'\n") == "{v: \"1.2\"}");
  CHECK(flow("v: 'true'\n") == "{v: \"true\"}");
  CHECK(flow("v: ''\n") == "{v: \"\"}");
  CHECK(flow("v: 'a: b'\n") == "{v: \"a: b\"}");
  CHECK(flow("v: \"say \\\"hi\\\"\"\n") == "{v: \"say \\\"hi\\\"\"}");
  CHECK(flow("v: ~\n") == "{v: null}");
  CHECK(flow("v: 5m\n") == "{v: 5m}");
}

TEST_CASE("git revisions: files read from the object database, not the disk") {
  testing::TestFolder repo;
  repo.write("deploy/gw.yaml", kClass);
  repo.write("deploy/route.yaml", route("shop.example.com"));
  repo.write("deploy/notes.txt", "not a manifest");
  repo.write("deploy/.hidden/x.yaml", "kind: Secret\n");
  repo.write("other/svc.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n");
  std::filesystem::create_symlink("../other/svc.yaml", repo.path() / "deploy" / "link.yaml");
  std::filesystem::create_symlink("/etc/passwd.yaml", repo.path() / "deploy" / "out.yaml");
  git(repo.path(), "init -q");
  git(repo.path(), "add -A");
  git(repo.path(), "commit -q -m one");
  // The working tree moves on; the revision does not.
  repo.write("deploy/route.yaml", route("shop.example.org"));
  repo.write("deploy/added.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: y\n");

  CHECK(load::GitRevision::resolves(repo.path() / "deploy", "HEAD"));
  CHECK_FALSE(load::GitRevision::resolves(repo.path(), "no-such-branch"));
  CHECK_THROWS_AS(load::GitRevision(repo.path(), "no-such-branch"), load::InputError);
  testing::TestFolder elsewhere;
  CHECK_THROWS_AS(load::GitRevision(elsewhere.path(), "HEAD"), load::InputError);

  load::GitRevision head(repo.path() / "deploy", "HEAD");
  CHECK(head.commitId().size() == 40);
  CHECK(head.workdir() == std::filesystem::canonical(repo.path()));
  CHECK(head.readFile("deploy/route.yaml", 1u << 20)->find("shop.example.com") !=
        std::string::npos);
  CHECK(head.readFile("./deploy/../deploy/gw.yaml", 1u << 20));
  CHECK_FALSE(head.readFile("deploy/added.yaml", 1u << 20));
  CHECK_FALSE(head.readFile("deploy", 1u << 20));

  std::vector<load::Problem> problems;
  config::Config config;
  std::vector<load::SourceEntry> files = head.collect({"deploy"}, "", config, problems);
  std::vector<std::string> names;
  for (const load::SourceEntry& f : files) names.push_back(f.path);
  CHECK(names ==
        std::vector<std::string>{"deploy/gw.yaml", "deploy/link.yaml", "deploy/route.yaml"});
  CHECK(files[1].content->find("name: x") != std::string::npos);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].kind == load::ProblemKind::SymlinkOutside);
  CHECK(problems[0].location.path == "deploy/out.yaml");

  // Names relative to a root folder, the config's globs, an input that names nothing.
  problems.clear();
  config.exclude = {"route.yaml"};
  files = head.collect({"deploy/gw.yaml", "deploy/route.yaml"}, "deploy", config, problems);
  REQUIRE(files.size() == 2);  // files named explicitly are always read
  CHECK(files[0].path == "gw.yaml");
  files = head.collect({"deploy"}, "deploy", config, problems);
  CHECK(std::none_of(files.begin(), files.end(),
                     [](const load::SourceEntry& f) { return f.path == "route.yaml"; }));
  CHECK_THROWS_AS(head.collect({"nowhere"}, "", config, problems), load::InputError);
  CHECK_THROWS_AS(head.collect({"../x"}, "", config, problems), load::InputError);
}

TEST_CASE("git revisions: a symlink loop is a problem, not a hang") {
  testing::TestFolder repo;
  repo.write("deploy/a.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n");
  std::filesystem::create_directories(repo.path() / "deploy" / "sub");
  std::filesystem::create_directory_symlink("..", repo.path() / "deploy" / "sub" / "up");
  git(repo.path(), "init -q");
  git(repo.path(), "add -A");
  git(repo.path(), "commit -q -m one");
  load::GitRevision head(repo.path(), "HEAD");
  std::vector<load::Problem> problems;
  std::vector<load::SourceEntry> files = head.collect({""}, "", {}, problems);
  REQUIRE(files.size() == 1);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].kind == load::ProblemKind::SymlinkLoop);
  CHECK(problems[0].location.path == "deploy/sub/up");
}

TEST_CASE("diff sides: a revision, a folder, the working tree, each with its own config") {
  testing::TestFolder repo;
  repo.write("gw.yaml", kClass);
  repo.write("route.yaml", route("shop.example.com"));
  repo.write(".policygraph.yaml", "exclude: [\"ignored/**\"]\n");
  repo.write("ignored/bad.yaml", "kind: [\n");
  git(repo.path(), "init -q");
  git(repo.path(), "add -A");
  git(repo.path(), "commit -q -m one");
  repo.write("route.yaml", route("shop.example.org"));

  std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(repo.path());
  diff::SideOptions options;
  diff::SideSpec base = diff::resolveSide("HEAD");
  CHECK(base.kind == diff::SideSpec::Kind::Revision);
  CHECK(base.label.rfind("HEAD (", 0) == 0);
  analysis::Analysis before = std::move(diff::analyzeSide(base, options).units.front());
  analysis::Analysis after =
      std::move(diff::analyzeSide(diff::workingTree(), options).units.front());
  CHECK_THROWS_AS(diff::resolveSide("no-such-thing"), load::InputError);
  std::filesystem::create_directory(repo.path() / "main");
  CHECK_THROWS_AS(diff::resolveSide("main"), load::InputError);  // a folder and a branch
  CHECK(diff::resolveSide("./main").kind == diff::SideSpec::Kind::Folder);
  // The top each side stands for: the commit's working tree, the working tree's git top, the
  // folder itself, though a repository lies around it.
  analysis::Analysis folder =
      std::move(diff::analyzeSide(diff::resolveSide("./main"), options).units.front());
  std::filesystem::current_path(cwd);
  CHECK(before.repositoryRoot == after.repositoryRoot);
  CHECK(after.repositoryRoot == std::filesystem::canonical(repo.path()));
  CHECK(folder.repositoryRoot == std::filesystem::canonical(repo.path()) / "main");

  // The config's exclude applied on both sides; file names alike.
  CHECK(before.problems.empty());
  CHECK(after.problems.empty());
  REQUIRE(before.files.size() == 2);
  CHECK(before.files[1]->path == "route.yaml");
  CHECK(after.files[1]->path == "route.yaml");
  std::vector<model::Finding> none;
  diff::Result r = diff::compare({before, none, "HEAD"}, {after, none, "working tree"});
  REQUIRE(r.attachments.size() == 1);
  CHECK_FALSE(r.attachments[0].attached);
}

}  // namespace pg

namespace pg {

TEST_CASE("sameValue: a repeated key counts once, the first, on both sides") {
  yaml::ParseResult a = yaml::parse("{limit: 5, window: 10s, window: 1m}", {}, false);
  yaml::ParseResult b = yaml::parse("{limit: 5, window: 10s, window: 1m}", {}, false);
  yaml::ParseResult c = yaml::parse("{limit: 5, window: 1m, window: 10s}", {}, false);
  CHECK(policy::sameValue(a.tree->root(0), b.tree->root(0)));
  CHECK_FALSE(policy::sameValue(a.tree->root(0), c.tree->root(0)));
}

}  // namespace pg

namespace pg {

TEST_CASE("git revisions: blobs over the limit are not inflated; deep trees are not walked") {
  testing::TestFolder repo;
  repo.write("deploy/big.yaml", "# " + std::string(2000, 'x') + "\n");
  repo.write("deploy/small.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n");
  std::filesystem::path deep = repo.path() / "deep";
  for (std::size_t i = 0; i <= load::kMaxFolderDepth; ++i) deep /= "d";
  std::filesystem::create_directories(deep);
  std::ofstream(deep / "x.yaml") << "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: y\n";
  git(repo.path(), "init -q");
  git(repo.path(), "add -A");
  git(repo.path(), "commit -q -m one");
  load::GitRevision head(repo.path(), "HEAD");
  CHECK_THROWS_WITH_AS(head.readFile("deploy/big.yaml", 1000),
                       doctest::Contains("has more than 1000 bytes"), load::InputError);
  CHECK(head.readFile("deploy/small.yaml", 1000));
  CHECK(head.isFile("deploy/small.yaml"));
  CHECK_FALSE(head.isFile("deploy"));

  config::Config config;
  config.limits.maxFileBytes = 1000;
  std::vector<load::Problem> problems;
  std::vector<load::SourceEntry> files = head.collect({""}, "", config, problems);
  REQUIRE(files.size() == 2);
  CHECK(files[0].path == "deploy/big.yaml");
  CHECK(files[0].content == nullptr);
  CHECK(files[0].oversize == 2003);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message == "folders nested more than 256 deep are not read");
  load::LoadResult loaded = load::loadSources(files, config.limits, {});
  REQUIRE(loaded.problems.size() == 1);
  CHECK(loaded.problems[0].kind == load::ProblemKind::FileTooLarge);
  CHECK(loaded.problems[0].message ==
        "this file has 2003 bytes, more than the limit of 1000 bytes");
}

TEST_CASE("diff sides: a revision's own config reads its schemas from the revision") {
  testing::TestFolder repo;
  const std::string crd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: integer}}}
)";
  repo.write("crds/widget.yaml", crd);
  repo.write(".policygraph.yaml", "schemas: [crds]\n");
  repo.write(
      "deploy/w.yaml",
      "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {colour: red}\n");
  git(repo.path(), "init -q");
  git(repo.path(), "add -A");
  git(repo.path(), "commit -q -m one");
  // The working tree's copy no longer holds it: only the commit's can say IN120.
  std::filesystem::remove_all(repo.path() / "crds");
  repo.write(".policygraph.yaml", "");

  std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(repo.path());
  diff::SideOptions options;
  options.paths = {"deploy"};
  analysis::Analysis base =
      std::move(diff::analyzeSide(diff::resolveSide("HEAD"), options).units.front());
  std::filesystem::current_path(cwd);
  REQUIRE(base.config.schemas.size() == 1);
  CHECK(base.config.schemas[0].path == "crds/widget.yaml");
  REQUIRE(base.schema.violations.size() == 1);
  CHECK(base.schema.violations[0].code == schema::Code::UnknownField);
}

}  // namespace pg
