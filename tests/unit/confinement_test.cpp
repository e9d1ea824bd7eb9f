// Hostile input: nothing read, written or deleted outside the repository, and every read
// bounded before it allocates. One test per way in (issue 34's confinement and bounds).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/config/config.h"
#include "lib/load/loader.h"
#include "lib/model/file.h"
#include "lib/model/placeholder.h"
#include "lib/schema/validate.h"
#include "lib/snapshot/snapshot.h"
#include "tests/unit/test_folder.h"

namespace pg {
namespace {

namespace fs = std::filesystem;

std::string configError(const std::string& text, const fs::path& folder = {}) {
  try {
    config::parseConfig(text, "c.yaml", folder);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("bounded reads: the size is checked before the buffer, FIFOs are never opened to wait") {
  testing::TestFolder dir;
  dir.write("small.yaml", "a: 1\n");
  dir.write("large.yaml", std::string(100, 'x'));
  model::ReadResult ok = model::readFile(dir.path() / "small.yaml", 5);
  CHECK(ok.ok());
  CHECK(ok.text == "a: 1\n");
  model::ReadResult large = model::readFile(dir.path() / "large.yaml", 99);
  CHECK(large.status == model::ReadResult::Status::TooLarge);
  CHECK(large.error == "100 bytes");
  CHECK(large.text.empty());
  CHECK(model::readFile(dir.path() / "missing.yaml", 10).status ==
        model::ReadResult::Status::Unreadable);
  CHECK(model::readFile(dir.path(), 10).status == model::ReadResult::Status::NotRegular);
  REQUIRE(::mkfifo((dir.path() / "fifo.yaml").c_str(), 0600) == 0);
  // Opening a FIFO for reading waits for a writer; the reader must not even try.
  model::ReadResult fifo = model::readFile(dir.path() / "fifo.yaml", 10);
  CHECK(fifo.status == model::ReadResult::Status::NotRegular);
  CHECK(fifo.error == "not a regular file (a FIFO, socket or device)");
}

TEST_CASE("bounded reads: a stream stops one byte past the limit") {
  int pipeEnds[2];
  REQUIRE(::pipe(pipeEnds) == 0);
  const std::string text(1000, 'y');
  REQUIRE(::write(pipeEnds[1], text.data(), text.size()) == 1000);
  ::close(pipeEnds[1]);
  model::ReadResult r = model::readStream(pipeEnds[0], 999);
  ::close(pipeEnds[0]);
  CHECK(r.status == model::ReadResult::Status::TooLarge);
  CHECK(r.error == "more than 999 bytes");

  REQUIRE(::pipe(pipeEnds) == 0);
  REQUIRE(::write(pipeEnds[1], text.data(), text.size()) == 1000);
  ::close(pipeEnds[1]);
  model::ReadResult whole = model::readStream(pipeEnds[0], 1000);
  ::close(pipeEnds[0]);
  CHECK(whole.ok());
  CHECK(whole.text == text);
}

TEST_CASE("resolvesInside follows symlinks: a link in the tree to outside is outside") {
  testing::TestFolder outside;
  testing::TestFolder repo;
  repo.write("a/b.yaml", "x: 1\n");
  fs::create_symlink(outside.path(), repo.path() / "escape");
  fs::create_symlink(repo.path() / "a", repo.path() / "inner");
  CHECK(model::resolvesInside(repo.path() / "a/b.yaml", repo.path()));
  CHECK(model::resolvesInside(repo.path() / "not-yet/there.yaml", repo.path()));
  CHECK(model::resolvesInside(repo.path() / "inner/b.yaml", repo.path()));
  CHECK_FALSE(model::resolvesInside(repo.path() / "escape/x.yaml", repo.path()));
  CHECK_FALSE(model::resolvesInside(repo.path() / "../x", repo.path()));
  CHECK_FALSE(model::resolvesInside("/etc/passwd", repo.path()));
  CHECK(model::resolvesInside(repo.path(), repo.path()));
}

TEST_CASE("placeholders: the forms tools substitute before apply") {
  for (const char* v :
       {"${GATEWAY_NAME}", "${VAR:=default}-svc", "{{ .Values.name }}", "{GATEWAY_CLASS_NAME}",
        "{IPv6}", "<your-domain>", "PLACEHOLDER_HOST", "__NAMESPACE__", "$NAMESPACE", "app-${ENV}",
        "clientID: [YOUR_GITLAB_CLIENT_ID]", "https://YOUR_DOMAIN/callback",
        "[THE_GROUP_YOUR_USER_BELONGS]", "${${${A}", "{{{{ x }}", "<<<TOKEN>", "a<b<c>"})
    CHECK_MESSAGE(model::holdsPlaceholder(v), v);
  for (const char* v : {"checkout", "shop.example.com", "/users/{id}", "$", "a<b", "{}",
                        "^/api/(v1|v2)$", "__x", "10.0.0.0/8", "drop: [NET_RAW]", "YOUR_",
                        "your_domain", "${${${", "{{{{ x }", "<<<a b>", "<a<b", "<>", "a < b > c"})
    CHECK_MESSAGE(!model::holdsPlaceholder(v), v);
}

TEST_CASE("names: what the API server and Kuma refuse is an invalid value, never a path") {
  auto messages = [](const std::string& text) {
    static std::vector<load::FileResult> keep;
    keep.push_back(load::loadText("n.yaml", text, {}));
    schema::Registry registry;
    schema::Result r = schema::validateAll(keep.back().resources, registry, 1);
    std::vector<std::string> out;
    for (const schema::Violation& v : r.violations) {
      CHECK(r.refused.at(v.object));
      out.push_back(v.message);
    }
    return out;
  };
  CHECK(messages("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ../../pwned\n") ==
        std::vector<std::string>{
            "metadata.name: Invalid value: \"../../pwned\": a lowercase RFC 1123 subdomain must "
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
            "with an alphanumeric character"});
  CHECK(messages("apiVersion: v1\nkind: Service\nmetadata:\n  name: 1st\n").size() == 1);
  CHECK(messages("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a.b\n").size() == 1);
  CHECK(messages("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a.b\n  namespace: A\n")
            .size() == 1);
  CHECK(messages("apiVersion: example.com/v1\nkind: ../X\nmetadata:\n  name: a\n").size() == 1);
  CHECK(messages("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + std::string(254, 'a') +
                 "\n") ==
        std::vector<std::string>{"metadata.name: Invalid value: \"" + std::string(254, 'a') +
                                 "\": must be no more than 253 characters"});
  // RBAC names are path segments: `system:` names and capitals are fine, `..` is not.
  CHECK(messages("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
                 "  name: system:Controller\n")
            .empty());
  CHECK(messages("apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n"
                 "  name: ..\n  namespace: a\n") ==
        std::vector<std::string>{"metadata.name: Invalid value: \"..\": may not be '..'"});
  // Kuma Universal: the name an RFC 1123 subdomain, the mesh Kuma's older pattern.
  CHECK(messages("type: MeshTimeout\nname: ../x\nmesh: default\nspec: {}\n").size() == 1);
  CHECK(messages("type: MeshTimeout\nname: t\nmesh: my_mesh\nspec: {}\n").empty());
  CHECK(messages("type: MeshTimeout\nname: t\nmesh: a/b\nspec: {}\n").size() == 1);
  // Unknown, not wrong: a placeholder is substituted before apply.
  CHECK(messages("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${APP}-config\n  "
                 "namespace: \"{NAMESPACE}\"\n")
            .empty());
  CHECK(messages("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n")
            .empty());
}

TEST_CASE("config: limits have ceilings the file cannot lift") {
  CHECK(configError("limits: {maxFileBytes: 2147483648}\n") ==
        "c.yaml:1:24: maxFileBytes must be at most 1073741824");
  CHECK(configError("limits: {maxAliasExpansion: 100000000}\n") ==
        "c.yaml:1:29: maxAliasExpansion must be at most 10000000");
  CHECK(configError("limits: {maxDepth: 20000}\n") ==
        "c.yaml:1:20: maxDepth must be at most 10000");
  CHECK(configError("limits: {maxFileBytes: 1073741824, maxAliasExpansion: 10000000}\n") ==
        "no error");
  CHECK(configError("defaultNamespace: ../x\n").find("defaultNamespace must be a namespace") !=
        std::string::npos);
}

TEST_CASE("config: schemas and environments name files of the repository only") {
  testing::TestFolder outside;
  testing::TestFolder repo;
  outside.write("secret.yaml", "password: hunter2\n");
  fs::create_symlink(outside.path(), repo.path() / "linked");
  fs::create_symlink(outside.path() / "secret.yaml", repo.path() / "crds.yaml");
  CHECK(configError("schemas: [/etc/passwd]\n", repo.path()) ==
        "c.yaml:1:11: schemas: /etc/passwd is not inside the config file's folder (schemas name "
        "files of the repository, relative to the config file)");
  CHECK(configError("schemas: [../secret.yaml]\n", repo.path()).find("is not inside") !=
        std::string::npos);
  // Through symlinks: named as if inside, resolving outside. Nothing of the file is echoed.
  for (const char* named : {"linked/secret.yaml", "crds.yaml", "linked"}) {
    std::string error = configError("schemas: [" + std::string(named) + "]\n", repo.path());
    CHECK_MESSAGE(error.find("does not exist inside the config file's folder") != std::string::npos,
                  error);
    CHECK(error.find("hunter2") == std::string::npos);
  }
  CHECK(configError("environments:\n  - name: a\n    paths: [/etc/ssl]\n")
            .find("/etc/ssl is not a folder of the repository") != std::string::npos);
  CHECK(configError("environments:\n  - name: a\n    paths: [ok]\n    shared: [../base]\n")
            .find("../base is not a folder of the repository") != std::string::npos);
  config::Config c =
      config::parseConfig("environments:\n  - name: a\n    paths: [linked, real]\n", "c.yaml");
  CHECK_THROWS_WITH_AS(c.environments.at(0).folders(repo.path()),
                       doctest::Contains("linked resolves outside the repository"),
                       config::ConfigError);
  c = config::parseConfig("environments:\n  - name: a\n    paths: [real]\n", "c.yaml");
  CHECK(c.environments.at(0).folders(repo.path()) ==
        std::vector<std::string>{(repo.path() / "real").string()});
  CHECK(configError("snapshots: {dir: ../elsewhere}\n").find("must be a folder inside") !=
        std::string::npos);
  CHECK(configError("snapshots: {dir: ./}\n").find("must be a folder inside") != std::string::npos);
  CHECK(configError("snapshots: {dir: /tmp/x}\n").find("must be a folder inside") !=
        std::string::npos);
}

TEST_CASE("config: the config file itself is read bounded") {
  testing::TestFolder repo;
  repo.write(".policygraph.yaml", "# " + std::string(config::kMaxConfigBytes, 'x') + "\n");
  CHECK_THROWS_WITH_AS(config::loadConfig(repo.path() / ".policygraph.yaml", ".policygraph.yaml"),
                       doctest::Contains("more than 1048576"), config::ConfigError);
}

namespace {

constexpr const char* kPolicy = R"(apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  timeout: {tcp: {connectTimeout: 10s}}
)";

analysis::Analysis analyzeRepo(const testing::TestFolder& repo) {
  return analysis::analyze({}, {{(repo.path() / "deploy").string()}, repo.path(), 1, {}, {}, {}});
}

std::string updateError(const analysis::Analysis& a, const fs::path& folder) {
  try {
    snapshot::update(a, folder);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("snapshots: written only below the root, into a folder of snapshots only") {
  testing::TestFolder outside;
  testing::TestFolder repo;
  repo.write("deploy/all.yaml", kPolicy);
  outside.write("keep.yaml", "apiVersion: v1\n");
  analysis::Analysis a = analyzeRepo(repo);
  REQUIRE(snapshot::render(a).size() == 1);

  CHECK(updateError(a, outside.path()).starts_with("refusing to write snapshots to "));
  CHECK(updateError(a, repo.path()).find("or is the root itself") != std::string::npos);
  // The repository's own manifests are not stale snapshots.
  CHECK(updateError(a, repo.path() / "deploy") ==
        "refusing to write snapshots to deploy: deploy/all.yaml is not a snapshot written by "
        "`policygraph snapshot --update` (snapshots own their folder: move other files out of it)");
  CHECK(fs::exists(repo.path() / "deploy/all.yaml"));
  // A committed symlink in place of the folder.
  fs::create_directories(repo.path() / ".policygraph");
  fs::create_symlink(outside.path(), repo.path() / ".policygraph/snapshots");
  CHECK(updateError(a, snapshot::folderOf(a)).find("resolves outside the repository root") !=
        std::string::npos);
  CHECK(fs::exists(outside.path() / "keep.yaml"));
  // Read neither: --check through the link finds every snapshot missing.
  std::vector<snapshot::Drift> drift = snapshot::compare(a, snapshot::folderOf(a));
  REQUIRE(drift.size() == 1);
  CHECK(drift[0].kind == snapshot::DriftKind::Missing);
  fs::remove(repo.path() / ".policygraph/snapshots");

  // Only its own files are deleted: a snapshot with the header goes, nothing else is touched.
  CHECK(snapshot::update(a, snapshot::folderOf(a)).written.size() == 1);
  const fs::path folder = snapshot::folderOf(a);
  fs::copy_file(folder / "Gateway/shop/gw.yaml", folder / "Gateway/shop/old.yaml");
  CHECK(snapshot::update(a, folder).deleted == std::vector<std::string>{"Gateway/shop/old.yaml"});
  std::ofstream(folder / "notes.yaml") << "apiVersion: v1\nkind: ConfigMap\n";
  CHECK(updateError(a, folder).find("notes.yaml is not a snapshot") != std::string::npos);
  CHECK(fs::exists(folder / "notes.yaml"));
}

TEST_CASE("snapshots: a name that is not one file name never becomes a path") {
  testing::TestFolder repo;
  // A placeholder name is unknown, so the object is kept; its name holds a `/` that a
  // substitution may fill, and the snapshot is not written rather than written elsewhere.
  std::string text = kPolicy;
  for (std::size_t at; (at = text.find("namespace: shop")) != std::string::npos;)
    text.replace(at, 15, "namespace: \"${NS}/../../..\"");
  repo.write("deploy/all.yaml", text);
  analysis::Analysis a = analyzeRepo(repo);
  REQUIRE(a.policies.effective.size() == 1);  // the policy does apply
  CHECK(snapshot::render(a).empty());
  model::Resource unsafe;
  unsafe.kind = "Gateway";
  unsafe.namespace_ = "..";
  unsafe.name = "gw";
  CHECK(snapshot::fileNameOf(unsafe).empty());
  unsafe.namespace_ = "shop";
  unsafe.name = "a\nb";
  CHECK(snapshot::fileNameOf(unsafe).empty());
  unsafe.name = "gw";
  CHECK(snapshot::fileNameOf(unsafe) == "Gateway/shop/gw.yaml");
}

}  // namespace pg
