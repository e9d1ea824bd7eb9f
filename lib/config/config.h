// `.policygraph.yaml`: which files to read, input limits, rule severities and suppressions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/model/cidr.h"
#include "lib/model/file.h"
#include "lib/model/finding.h"
#include "lib/model/source.h"
#include "lib/yaml/tree.h"

namespace pg::config {

struct Limits {
  std::uint64_t maxFileBytes = 16u << 20;
  std::uint32_t maxDepth = 128;
  std::uint64_t maxAliasExpansion = 100000;
};

// The ceilings a config file cannot lift (a repository's own config must not switch the
// bounds off), and the size of the config file itself.
inline constexpr std::uint64_t kMaxFileBytesCeiling = std::uint64_t{1} << 30;  // 1 GiB
inline constexpr std::uint32_t kMaxDepthCeiling = 10000;
inline constexpr std::uint64_t kMaxAliasExpansionCeiling = 10'000'000;
inline constexpr std::uint64_t kMaxConfigBytes = 1u << 20;

struct RuleSetting {
  bool off = false;
  std::optional<model::Severity> severity;
  model::Location where;  // the entry in the config file
};

struct Suppression {
  std::string rule;     // a rule ID, or "*"
  std::string objects;  // glob over `Kind/namespace/name`; empty: any object
  std::string paths;    // glob over file paths; empty: any file
  std::string reason;
  model::Location where;
};

// A policy kind declared in the config file (`policies:`), for kinds whose CRD is not in
// the repository. lib/policy turns it into a profile.
struct PolicyKind {
  std::string group;
  std::string kind;
  std::string policyClass = "inherited";  // inherited | direct
  std::vector<std::string> targetKinds;   // empty: any kind of the hierarchy
  std::string strategy = "merge";         // merge | atomic | patch
  model::Location where;
};

// A GatewayClass the controller installs (`gatewayClasses:`): Gateways of the class are
// simulated as that controller's. The name may end in `*`.
struct GatewayClass {
  std::string name;
  std::string controllerName;
  model::Location where;
};

// An object the repository refers to but that something else produces (`external:`): a Secret
// sealed or issued in the cluster, say. `name` and `namespace` are globs; an empty group or
// namespace matches any.
struct ExternalObject {
  std::string group;
  std::string kind;
  std::string namespace_;
  std::string name;
  model::Location where;
  bool matches(std::string_view group, std::string_view kind, std::string_view namespace_,
               std::string_view name) const;
};

// The entry of `external` that declares the object, or null.
const ExternalObject* findExternal(const std::vector<ExternalObject>& external,
                                   std::string_view group, std::string_view kind,
                                   std::string_view namespace_, std::string_view name);

// Golden effective-policy files (lib/snapshot).
struct SnapshotSettings {
  std::string dir;        // relative to the repository root; empty: .policygraph/snapshots
  bool required = false;  // set by `snapshot --check`: compare even without a folder
  // `dir` comes from --dir: it may lie outside the root for reading (`--check`), as any
  // command-line path may; the config's own folder, or a symlink in its place, may not.
  bool fromCommandLine = false;
};

// One environment (`environments:`): folders analysed on their own, in the same run as the
// others, with the folders every environment shares (a common `base/`).
struct Environment {
  std::string name;
  std::vector<std::string> paths;   // relative to the repository root
  std::vector<std::string> shared;  // added to `paths`
  model::Location where;

  // `paths` then `shared` under `root`, absolute. Throws ConfigError for one that resolves
  // outside the root through a symlink (the config file refuses `..` and absolute paths).
  std::vector<std::string> folders(const std::filesystem::path& root) const;
};

// A file of CustomResourceDefinitions named under `schemas:` (directly or in a folder named
// there), read and checked when the config is loaded: every document is a CRD.
struct SchemaFile {
  std::string path;                        // as reported: relative to the config's folder
  std::shared_ptr<const yaml::Tree> tree;  // its documents, every one a CRD
  model::Location where;                   // the `schemas:` entry that names it
};

// Linkerd's policy controller flags (`linkerd:`); the defaults are a Helm install's.
struct LinkerdSettings {
  std::vector<model::Cidr> clusterNetworks;  // set by defaultLinkerdSettings()
  std::string defaultInboundPolicy = "all-unauthenticated";
  std::string controlPlaneNamespace = "linkerd";
  std::string identityDomain = "cluster.local";
  std::vector<model::Cidr> probeNetworks;
  // The config file has a `linkerd:` key (`linkerd: {}` for the defaults): the cluster runs
  // Linkerd, so every workload's inbound policy is computed even when nothing in the input
  // names Linkerd.
  bool declared = false;
};
LinkerdSettings defaultLinkerdSettings();
bool isLinkerdDefaultPolicy(std::string_view policy);

// Envoy Gateway's own configuration (`envoyGateway:`), as its EnvoyGateway resource sets it.
// Unset, a setting is read from the EnvoyGateway resource in the repository (the
// `envoy-gateway-config` ConfigMap), else it takes upstream's default.
struct EnvoyGatewaySettings {
  std::optional<bool> enableEnvoyPatchPolicy;  // extensionApis.enableEnvoyPatchPolicy
  std::optional<bool> rateLimit;               // whether `rateLimit` (global rate limiting) is set
};

// The Gateway API release channel the cluster's CRDs come from (`gatewayAPI: {channel: ...}`):
// which built-in schemas validate gateway.networking.k8s.io and gateway.networking.x-k8s.io.
enum class GatewayApiChannel : std::uint8_t { Standard, Experimental };

struct Config {
  std::string path;                  // as reported; empty when no file was read
  std::vector<std::string> include;  // globs over paths relative to the repository root
  std::vector<std::string> exclude;
  Limits limits;
  std::string defaultNamespace = "default";
  // Kuma's system namespace (`kuma: {systemNamespace: ...}`): its policies have the system
  // role and reach every namespace.
  std::string kumaSystemNamespace = "kuma-system";
  std::map<std::string, RuleSetting, std::less<>> rules;
  std::vector<Suppression> suppressions;
  std::vector<PolicyKind> policies;
  std::vector<GatewayClass> gatewayClasses;
  std::vector<ExternalObject> external;
  SnapshotSettings snapshots;
  LinkerdSettings linkerd = defaultLinkerdSettings();
  EnvoyGatewaySettings envoyGateway;
  // Experimental by default: it serves every version and field the standard channel does,
  // so a repository written for either gets no false error (README "Schema validation").
  GatewayApiChannel gatewayApiChannel = GatewayApiChannel::Experimental;
  std::vector<Environment> environments;
  // CRDs whose schemas add to or replace the built-in ones (`schemas:`), in the order named.
  std::vector<SchemaFile> schemas;
};

// A config file that cannot be used; the message starts with `path:line:column:`.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where the files a config names (`schemas:`) are read from: the config file's folder on disk,
// or a commit's tree for a revision's own config. Paths are relative to the config's folder,
// and nothing outside it is listed or read.
class ConfigFiles {
 public:
  virtual ~ConfigFiles() = default;
  // `path` itself when it is a file; the files with a manifest extension under it, sorted,
  // when a folder; nothing when it names nothing inside the config's folder.
  virtual std::optional<std::vector<std::string>> list(const std::string& path) const = 0;
  virtual model::ReadResult read(const std::string& path, std::uint64_t maxBytes) const = 0;

  // The files of `folder` on disk (empty: the current folder); a symlink that resolves
  // outside it names nothing.
  static std::unique_ptr<ConfigFiles> inFolder(const std::filesystem::path& folder);
};

// Parses a config file's text; `displayPath` names it in messages and locations. `folder` is
// the folder the config's relative paths (`schemas:`) start from; empty: the current one.
Config parseConfig(std::string text, const std::string& displayPath,
                   const std::filesystem::path& folder = {});
Config parseConfig(std::string text, const std::string& displayPath, const ConfigFiles& files);
Config loadConfig(const std::filesystem::path& file, const std::string& displayPath);
// `.policygraph.yaml` in `start` or the nearest folder above it.
std::optional<std::filesystem::path> findConfig(const std::filesystem::path& start);

}  // namespace pg::config
