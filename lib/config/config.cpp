#include "lib/config/config.h"

#include <algorithm>

#include "lib/config/glob.h"
#include "lib/model/file.h"
#include "lib/yaml/parser.h"

namespace pg::config {

namespace fs = std::filesystem;

namespace {

// A path the config names inside the repository: relative, and not climbing out with `..`.
// (Symlinks are resolved where the path is used: resolvesInside.)
bool inRepository(std::string_view path) {
  if (path.empty()) return false;
  fs::path p(path);
  if (p.is_absolute()) return false;
  fs::path normal = p.lexically_normal();
  return normal.empty() || *normal.begin() != "..";
}

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(yaml::NodeRef at, const std::string& message) const {
    yaml::Mark m = at.start();
    throw ConfigError(path_ + ":" + std::to_string(m.line) + ":" + std::to_string(m.column) + ": " +
                      message);
  }

  model::Location where(yaml::NodeRef key, yaml::NodeRef value) const {
    return {path_, key.start(), value ? value.end() : key.end()};
  }

  std::string string(yaml::NodeRef node, std::string_view what) const {
    if (!node.isScalar() || node.isNull()) fail(node, std::string(what) + " must be a string");
    return std::string(node.str());
  }

  std::vector<std::string> strings(yaml::NodeRef node, std::string_view what) const {
    std::vector<std::string> out;
    if (node.isScalar() && !node.isNull()) {
      out.push_back(std::string(node.str()));
      return out;
    }
    if (!node.isSequence()) fail(node, std::string(what) + " must be a list of strings");
    for (yaml::NodeRef item : node.items()) out.push_back(string(item, what));
    return out;
  }

  std::uint64_t count(yaml::NodeRef node, std::string_view what) const {
    auto v = node.asInt();
    if (!v || *v <= 0) fail(node, std::string(what) + " must be a positive whole number");
    return static_cast<std::uint64_t>(*v);
  }

 private:
  const std::string& path_;
};

void readLimits(const Reader& r, yaml::NodeRef node, Limits& limits) {
  if (!node.isMapping()) r.fail(node, "limits must be a mapping");
  for (auto [k, v] : node.entries()) {
    std::string_view key = k.str();
    // Each limit has a ceiling no config can lift: a repository's own config file must not
    // be able to switch the bounds off.
    if (key == "maxFileBytes") {
      limits.maxFileBytes = r.count(v, key);
      if (limits.maxFileBytes > kMaxFileBytesCeiling)
        r.fail(v, "maxFileBytes must be at most " + std::to_string(kMaxFileBytesCeiling));
    } else if (key == "maxDepth") {
      std::uint64_t depth = r.count(v, key);
      if (depth > kMaxDepthCeiling)
        r.fail(v, "maxDepth must be at most " + std::to_string(kMaxDepthCeiling));
      limits.maxDepth = static_cast<std::uint32_t>(depth);
    } else if (key == "maxAliasExpansion") {
      limits.maxAliasExpansion = r.count(v, key);
      if (limits.maxAliasExpansion > kMaxAliasExpansionCeiling)
        r.fail(v, "maxAliasExpansion must be at most " + std::to_string(kMaxAliasExpansionCeiling));
    } else {
      r.fail(k, "unknown limit \"" + std::string(key) +
                    "\" (known: maxFileBytes, maxDepth, maxAliasExpansion)");
    }
  }
}

void readRules(const Reader& r, yaml::NodeRef node, Config& config) {
  if (node.isNull()) return;  // `rules:` with nothing under it yet
  if (!node.isMapping()) r.fail(node, "rules must be a mapping of rule ID to severity");
  for (auto [k, v] : node.entries()) {
    RuleSetting setting;
    setting.where = r.where(k, v);
    yaml::NodeRef level = v.isMapping() ? v.get("severity") : v;
    std::string_view text = level.str();
    if (text == "off" || (level.asBool() && !*level.asBool())) {
      setting.off = true;
    } else if (auto severity = model::parseSeverity(text)) {
      setting.severity = severity;
    } else {
      r.fail(level ? level : v, "rule severity must be one of error, warning, note, off");
    }
    config.rules[std::string(k.str())] = setting;
  }
}

void readSuppressions(const Reader& r, yaml::NodeRef node, Config& config) {
  if (node.isNull()) return;
  if (!node.isSequence()) r.fail(node, "suppressions must be a list");
  for (yaml::NodeRef item : node.items()) {
    if (!item.isMapping()) r.fail(item, "a suppression must be a mapping");
    Suppression s;
    s.where = r.where(item, item);
    for (auto [k, v] : item.entries()) {
      std::string_view key = k.str();
      if (key == "rule")
        s.rule = r.string(v, key);
      else if (key == "objects")
        s.objects = r.string(v, key);
      else if (key == "paths")
        s.paths = r.string(v, key);
      else if (key == "reason")
        s.reason = r.string(v, key);
      else
        r.fail(k, "unknown suppression field \"" + std::string(key) +
                      "\" (known: rule, objects, paths, reason)");
    }
    if (s.rule.empty()) r.fail(item, "a suppression needs a rule (an ID, or \"*\")");
    if (s.reason.empty())
      r.fail(item, "a suppression needs a reason, so the next reader knows why it is there");
    config.suppressions.push_back(std::move(s));
  }
}

void readPolicies(const Reader& r, yaml::NodeRef node, Config& config) {
  if (node.isNull()) return;
  if (!node.isSequence()) r.fail(node, "policies must be a list of policy kinds");
  for (yaml::NodeRef item : node.items()) {
    if (!item.isMapping()) r.fail(item, "a policy kind must be a mapping");
    PolicyKind p;
    p.where = r.where(item, item);
    for (auto [k, v] : item.entries()) {
      std::string_view key = k.str();
      if (key == "group") {
        p.group = r.string(v, key);
      } else if (key == "kind") {
        p.kind = r.string(v, key);
      } else if (key == "class") {
        p.policyClass = r.string(v, key);
        if (p.policyClass != "inherited" && p.policyClass != "direct")
          r.fail(v, "class must be inherited or direct");
      } else if (key == "targetKinds") {
        p.targetKinds = r.strings(v, key);
      } else if (key == "strategy") {
        p.strategy = r.string(v, key);
        if (p.strategy != "merge" && p.strategy != "atomic" && p.strategy != "patch")
          r.fail(v, "strategy must be merge, atomic or patch");
      } else {
        r.fail(k, "unknown policy kind field \"" + std::string(key) +
                      "\" (known: group, kind, class, targetKinds, strategy)");
      }
    }
    if (p.kind.empty()) r.fail(item, "a policy kind needs a kind");
    if (p.group.empty()) r.fail(item, "a policy kind needs a group");
    config.policies.push_back(std::move(p));
  }
}

void readGatewayClasses(const Reader& r, yaml::NodeRef node, Config& config) {
  if (node.isNull()) return;
  if (!node.isSequence()) r.fail(node, "gatewayClasses must be a list of {name, controllerName}");
  for (yaml::NodeRef item : node.items()) {
    if (!item.isMapping()) r.fail(item, "a gateway class must be a mapping {name, controllerName}");
    GatewayClass c;
    c.where = r.where(item, item);
    for (auto [k, v] : item.entries()) {
      std::string_view key = k.str();
      if (key == "name")
        c.name = r.string(v, key);
      else if (key == "controllerName")
        c.controllerName = r.string(v, key);
      else
        r.fail(k, "unknown gateway class field \"" + std::string(key) +
                      "\" (known: name, controllerName)");
    }
    if (c.name.empty()) r.fail(item, "a gateway class needs a name");
    if (c.controllerName.empty())
      r.fail(item, "a gateway class needs a controllerName (e.g. istio.io/gateway-controller)");
    config.gatewayClasses.push_back(std::move(c));
  }
}

void readExternal(const Reader& r, yaml::NodeRef node, Config& config) {
  if (node.isNull()) return;
  if (!node.isSequence()) r.fail(node, "external must be a list of {kind, name, namespace}");
  for (yaml::NodeRef item : node.items()) {
    if (!item.isMapping()) r.fail(item, "an external object must be a mapping {kind, name}");
    ExternalObject e;
    e.where = r.where(item, item);
    for (auto [k, v] : item.entries()) {
      std::string_view key = k.str();
      if (key == "group")
        e.group = r.string(v, key);
      else if (key == "kind")
        e.kind = r.string(v, key);
      else if (key == "name")
        e.name = r.string(v, key);
      else if (key == "namespace")
        e.namespace_ = r.string(v, key);
      else
        r.fail(k, "unknown external object field \"" + std::string(key) +
                      "\" (known: group, kind, name, namespace)");
    }
    if (e.kind.empty()) r.fail(item, "an external object needs a kind (e.g. Secret)");
    if (e.name.empty()) r.fail(item, "an external object needs a name (a glob: \"*-tls\")");
    config.external.push_back(std::move(e));
  }
}

void readSnapshots(const Reader& r, yaml::NodeRef node, SnapshotSettings& snapshots) {
  if (!node.isMapping()) r.fail(node, "snapshots must be a mapping (dir: FOLDER)");
  for (auto [k, v] : node.entries()) {
    if (k.str() != "dir")
      r.fail(k, "unknown snapshots setting \"" + std::string(k.str()) + "\" (known: dir)");
    snapshots.dir = r.string(v, "snapshots.dir");
    // The folder `snapshot --update` writes into and deletes stale files from: never the
    // root itself (its manifests would be stale snapshots) nor anything outside it.
    if (!inRepository(snapshots.dir) || fs::path(snapshots.dir).lexically_normal() == ".")
      r.fail(v, "snapshots.dir " + snapshots.dir +
                    " must be a folder inside the repository, below its root (relative, "
                    "without ..)");
  }
}

void readEnvironments(const Reader& r, yaml::NodeRef node, Config& config) {
  if (!node.isSequence()) r.fail(node, "environments must be a list of {name, paths, shared}");
  for (yaml::NodeRef item : node.items()) {
    if (!item.isMapping()) r.fail(item, "an environment must be a mapping {name, paths, shared}");
    Environment e;
    e.where = r.where(item, item);
    for (auto [k, v] : item.entries()) {
      std::string_view key = k.str();
      if (key == "name")
        e.name = r.string(v, "environments.name");
      else if (key == "paths")
        e.paths = r.strings(v, "environments.paths");
      else if (key == "shared")
        e.shared = r.strings(v, "environments.shared");
      else
        r.fail(k, "unknown environment field \"" + std::string(key) +
                      "\" (known: name, paths, shared)");
    }
    if (e.name.empty()) r.fail(item, "an environment needs a name");
    if (e.name.find_first_of("/\\") != std::string::npos || e.name == "." || e.name == "..")
      r.fail(item.get("name"), "an environment's name names its snapshot folder: no / or \\");
    if (e.paths.empty()) r.fail(item, "environment " + e.name + " needs paths (its folders)");
    for (const std::vector<std::string>* list : {&e.paths, &e.shared})
      for (const std::string& path : *list)
        if (!inRepository(path))
          r.fail(item.get(list == &e.paths ? "paths" : "shared"),
                 "environment " + e.name + ": " + path +
                     " is not a folder of the repository (paths are relative to its root and "
                     "stay inside it)");
    for (const Environment& other : config.environments)
      if (other.name == e.name)
        r.fail(item.get("name"), "environment " + e.name + " is declared twice");
    config.environments.push_back(std::move(e));
  }
}

std::vector<model::Cidr> readNetworks(const Reader& r, yaml::NodeRef node, std::string_view what) {
  std::vector<model::Cidr> out;
  auto add = [&](yaml::NodeRef at, std::string_view text) {
    std::optional<model::Cidr> cidr = model::Cidr::parse(text);
    if (!cidr)
      r.fail(at, std::string(what) + ": \"" + std::string(text) +
                     "\" is not a CIDR (write addr/len, e.g. 10.0.0.0/8)");
    out.push_back(*cidr);
  };
  if (node.isScalar() && !node.isNull()) {  // the controller flag's form: comma-separated
    std::string_view text = node.str();
    while (!text.empty()) {
      std::size_t comma = text.find(',');
      std::string_view part = text.substr(0, comma);
      if (part.find_first_not_of(' ') != std::string_view::npos) add(node, part);
      if (comma == std::string_view::npos) break;
      text.remove_prefix(comma + 1);
    }
    return out;
  }
  if (!node.isSequence()) r.fail(node, std::string(what) + " must be a list of CIDRs");
  for (yaml::NodeRef item : node.items()) add(item, r.string(item, what));
  return out;
}

void readLinkerd(const Reader& r, yaml::NodeRef node, LinkerdSettings& linkerd) {
  linkerd.declared = true;
  if (node.isNull()) return;
  if (!node.isMapping()) r.fail(node, "linkerd must be a mapping");
  for (auto [k, v] : node.entries()) {
    std::string_view key = k.str();
    if (key == "clusterNetworks") {
      linkerd.clusterNetworks = readNetworks(r, v, "linkerd.clusterNetworks");
    } else if (key == "probeNetworks") {
      linkerd.probeNetworks = readNetworks(r, v, "linkerd.probeNetworks");
    } else if (key == "defaultInboundPolicy") {
      linkerd.defaultInboundPolicy = r.string(v, "linkerd.defaultInboundPolicy");
      if (!isLinkerdDefaultPolicy(linkerd.defaultInboundPolicy))
        r.fail(v,
               "linkerd.defaultInboundPolicy must be one of all-unauthenticated, "
               "all-authenticated, cluster-unauthenticated, cluster-authenticated, deny, audit");
    } else if (key == "controlPlaneNamespace") {
      linkerd.controlPlaneNamespace = r.string(v, "linkerd.controlPlaneNamespace");
      if (linkerd.controlPlaneNamespace.empty())
        r.fail(v, "linkerd.controlPlaneNamespace must not be empty");
    } else if (key == "identityDomain") {
      linkerd.identityDomain = r.string(v, "linkerd.identityDomain");
      if (linkerd.identityDomain.empty()) r.fail(v, "linkerd.identityDomain must not be empty");
    } else {
      r.fail(k, "unknown linkerd setting \"" + std::string(key) +
                    "\" (known: clusterNetworks, defaultInboundPolicy, controlPlaneNamespace, "
                    "identityDomain, probeNetworks)");
    }
  }
}

// kuma: {systemNamespace: NAME}
void readKuma(const Reader& r, yaml::NodeRef node, Config& config) {
  if (!node.isMapping()) r.fail(node, "kuma must be a mapping (systemNamespace: NAME)");
  for (auto [k, v] : node.entries()) {
    if (k.str() != "systemNamespace")
      r.fail(k, "unknown kuma setting \"" + std::string(k.str()) + "\" (known: systemNamespace)");
    config.kumaSystemNamespace = r.string(v, "kuma.systemNamespace");
  }
}

// envoyGateway: {enableEnvoyPatchPolicy: BOOL, rateLimit: BOOL}
void readEnvoyGateway(const Reader& r, yaml::NodeRef node, EnvoyGatewaySettings& settings) {
  if (node.isNull()) return;
  if (!node.isMapping()) r.fail(node, "envoyGateway must be a mapping");
  for (auto [k, v] : node.entries()) {
    std::optional<bool>* setting = k.str() == "enableEnvoyPatchPolicy"
                                       ? &settings.enableEnvoyPatchPolicy
                                   : k.str() == "rateLimit" ? &settings.rateLimit
                                                            : nullptr;
    if (!setting)
      r.fail(k, "unknown envoyGateway setting \"" + std::string(k.str()) +
                    "\" (known: enableEnvoyPatchPolicy, rateLimit)");
    std::optional<bool> on = v.asBool();
    if (!on) r.fail(v, "envoyGateway." + std::string(k.str()) + " must be true or false");
    *setting = *on;
  }
}

// gatewayAPI: {channel: standard | experimental}
void readGatewayApi(const Reader& r, yaml::NodeRef node, Config& config) {
  if (!node.isMapping()) r.fail(node, "gatewayAPI must be a mapping (channel: standard or experimental)");
  for (auto [k, v] : node.entries()) {
    if (k.str() != "channel")
      r.fail(k, "unknown gatewayAPI setting \"" + std::string(k.str()) + "\" (known: channel)");
    std::string channel = r.string(v, "gatewayAPI.channel");
    if (channel == "standard")
      config.gatewayApiChannel = GatewayApiChannel::Standard;
    else if (channel == "experimental")
      config.gatewayApiChannel = GatewayApiChannel::Experimental;
    else
      r.fail(v, "gatewayAPI.channel must be standard or experimental, not \"" + channel + "\"");
  }
}

}  // namespace

bool ExternalObject::matches(std::string_view objectGroup, std::string_view objectKind,
                             std::string_view objectNamespace, std::string_view objectName) const {
  return (group.empty() || group == objectGroup) && kind == objectKind &&
         (namespace_.empty() || globMatch(namespace_, objectNamespace)) &&
         globMatch(name, objectName);
}

const ExternalObject* findExternal(const std::vector<ExternalObject>& external,
                                   std::string_view group, std::string_view kind,
                                   std::string_view namespace_, std::string_view name) {
  for (const ExternalObject& e : external)
    if (e.matches(group, kind, namespace_, name)) return &e;
  return nullptr;
}

bool isLinkerdDefaultPolicy(std::string_view policy) {
  return policy == "all-unauthenticated" || policy == "all-authenticated" ||
         policy == "cluster-unauthenticated" || policy == "cluster-authenticated" ||
         policy == "deny" || policy == "audit";
}

LinkerdSettings defaultLinkerdSettings() {
  LinkerdSettings s;
  for (std::string_view net :
       {"10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12", "192.168.0.0/16", "fd00::/8"})
    s.clusterNetworks.push_back(*model::Cidr::parse(net));
  for (std::string_view net : {"0.0.0.0/0", "::/0"})
    s.probeNetworks.push_back(*model::Cidr::parse(net));
  return s;
}

namespace {

// Reads one schema file and checks that every document in it is a CRD.
void readSchemaFile(const Reader& r, yaml::NodeRef entry, const ConfigFiles& files,
                    const std::string& path, const std::string& display, Config& config) {
  model::ReadResult read = files.read(path, config.limits.maxFileBytes);
  if (read.status == model::ReadResult::Status::TooLarge)
    r.fail(entry, "schemas: " + display + " has " + read.error + ", more than maxFileBytes (" +
                      std::to_string(config.limits.maxFileBytes) + ")");
  if (!read.ok()) r.fail(entry, "schemas: cannot read " + display + ": " + read.error);
  yaml::ParseResult parsed = yaml::parse(
      std::move(read.text), {config.limits.maxDepth, config.limits.maxAliasExpansion}, false);
  for (const yaml::ParseProblem& p : parsed.problems)
    r.fail(entry, "schemas: " + display + ":" + std::to_string(p.start.line) + ":" +
                      std::to_string(p.start.column) + ": " + p.message);
  const yaml::Tree& tree = *parsed.tree;
  std::size_t crds = 0;
  for (std::size_t d = 0; d < tree.documents().size(); ++d) {
    yaml::NodeRef doc = tree.root(d);
    if (doc.isNull()) continue;  // an empty document, as between two `---`
    yaml::Mark m = doc.start();
    std::string at = display + ":" + std::to_string(m.line) + ":" + std::to_string(m.column);
    if (doc.get("kind").str() != "CustomResourceDefinition" ||
        doc.get("apiVersion").str().substr(0, 20) != "apiextensions.k8s.io")
      r.fail(entry,
             "schemas: " + at + ": " +
                 (doc.get("kind").str().empty() ? std::string("this document")
                                                : "this " + std::string(doc.get("kind").str())) +
                 " is not a CustomResourceDefinition (apiextensions.k8s.io/v1); name "
                 "only files of CRDs under schemas");
    yaml::NodeRef spec = doc.get("spec");
    if (spec.get("group").str().empty() || spec.get("names").get("kind").str().empty() ||
        !spec.get("versions").isSequence() || spec.get("versions").size() == 0)
      r.fail(entry, "schemas: " + at +
                        ": the CustomResourceDefinition needs spec.group, spec.names.kind and "
                        "spec.versions");
    ++crds;
  }
  if (crds == 0) r.fail(entry, "schemas: " + display + " holds no CustomResourceDefinition");
  config.schemas.push_back(
      {display, std::shared_ptr<const yaml::Tree>(std::move(parsed.tree)), r.where(entry, entry)});
}

// schemas: [FILE or FOLDER, ...], relative to the config's folder and inside it. A folder's
// files with a manifest extension are read in name order, sub-folders included, hidden
// entries skipped.
void readSchemas(const Reader& r, yaml::NodeRef node, const ConfigFiles& files,
                 const std::string& displayFolder, Config& config) {
  if (!node.isSequence())
    r.fail(node, "schemas must be a list of files or folders of CustomResourceDefinitions");
  for (yaml::NodeRef entry : node.items()) {
    std::string written = r.string(entry, "a schemas entry");
    if (!inRepository(written))
      r.fail(entry, "schemas: " + written +
                        " is not inside the config file's folder (schemas name files of the "
                        "repository, relative to the config file)");
    const std::string path = fs::path(written).lexically_normal().generic_string();
    std::string display = (fs::path(displayFolder) / written).lexically_normal().generic_string();
    std::optional<std::vector<std::string>> found = files.list(path);
    if (!found)
      r.fail(entry, "schemas: " + display +
                        " does not exist inside the config file's folder (paths are relative to "
                        "it; symlinks that leave it are not followed)");
    if (found->empty())
      r.fail(entry, "schemas: folder " + display + " holds no .yaml, .yml or .json file");
    for (const std::string& f : *found)
      readSchemaFile(
          r, entry, files, f,
          f == path ? display
                    : (fs::path(display) / fs::path(f).lexically_relative(path)).generic_string(),
          config);
  }
}

bool manifestExtension(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// The files of a folder on disk, none reached through a symlink that leaves it.
class DiskFiles : public ConfigFiles {
 public:
  explicit DiskFiles(fs::path folder) : folder_(std::move(folder)) {}

  std::optional<std::vector<std::string>> list(const std::string& path) const override {
    const fs::path full = folder_ / path;
    std::error_code ec;
    if (!model::resolvesInside(full, folder_)) return std::nullopt;
    if (fs::is_regular_file(full, ec)) return std::vector<std::string>{path};
    if (!fs::is_directory(full, ec)) return std::nullopt;
    std::vector<std::string> out;
    fs::recursive_directory_iterator it(full, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (!name.empty() && name[0] == '.') {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec) && manifestExtension(it->path()) &&
          model::resolvesInside(it->path(), folder_))
        out.push_back(it->path().lexically_relative(folder_).generic_string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  model::ReadResult read(const std::string& path, std::uint64_t maxBytes) const override {
    if (!model::resolvesInside(folder_ / path, folder_)) {
      model::ReadResult r;
      r.status = model::ReadResult::Status::Unreadable;
      r.error = "it resolves outside the config file's folder";
      return r;
    }
    return model::readFile(folder_ / path, maxBytes);
  }

 private:
  fs::path folder_;
};

}  // namespace

std::vector<std::string> Environment::folders(const std::filesystem::path& root) const {
  std::vector<std::string> out;
  for (const std::vector<std::string>* list : {&paths, &shared})
    for (const std::string& p : *list) {
      fs::path full = (root / p).lexically_normal();
      if (!model::resolvesInside(full, root))
        throw ConfigError(where.path + ":" + std::to_string(where.start.line) + ":" +
                          std::to_string(where.start.column) + ": environment " + name + ": " + p +
                          " resolves outside the repository (through a symlink): not read");
      out.push_back(full.string());
    }
  return out;
}

std::unique_ptr<ConfigFiles> ConfigFiles::inFolder(const std::filesystem::path& folder) {
  return std::make_unique<DiskFiles>(folder.empty() ? fs::path(".") : folder);
}

Config parseConfig(std::string text, const std::string& displayPath,
                   const std::filesystem::path& folder) {
  return parseConfig(std::move(text), displayPath, *ConfigFiles::inFolder(folder));
}

Config parseConfig(std::string text, const std::string& displayPath, const ConfigFiles& files) {
  Config config;
  config.path = displayPath;
  yaml::ParseResult parsed = yaml::parse(std::move(text), {}, false);
  for (const yaml::ParseProblem& p : parsed.problems)
    throw ConfigError(displayPath + ":" + std::to_string(p.start.line) + ":" +
                      std::to_string(p.start.column) + ": " + p.message);
  if (parsed.tree->documents().empty()) return config;
  Reader r(config.path);
  yaml::NodeRef root = parsed.tree->root(0);
  if (root.isNull()) return config;
  if (!root.isMapping()) r.fail(root, "the config file must be a mapping");
  yaml::NodeRef schemasNode;
  for (auto [k, v] : root.entries()) {
    std::string_view key = k.str();
    if (key == "include")
      config.include = r.strings(v, key);
    else if (key == "exclude")
      config.exclude = r.strings(v, key);
    else if (key == "defaultNamespace") {
      config.defaultNamespace = r.string(v, key);
      const std::string& ns = config.defaultNamespace;
      auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
      if (ns.empty() || ns.size() > 63 || !alnum(ns.front()) || !alnum(ns.back()) ||
          !std::all_of(ns.begin(), ns.end(), [&](char c) { return alnum(c) || c == '-'; }))
        r.fail(v,
               "defaultNamespace must be a namespace name (a lowercase RFC 1123 label: "
               "a-z, 0-9 and '-', at most 63 characters)");
    } else if (key == "limits")
      readLimits(r, v, config.limits);
    else if (key == "rules")
      readRules(r, v, config);
    else if (key == "suppressions")
      readSuppressions(r, v, config);
    else if (key == "policies")
      readPolicies(r, v, config);
    else if (key == "gatewayClasses")
      readGatewayClasses(r, v, config);
    else if (key == "external")
      readExternal(r, v, config);
    else if (key == "snapshots")
      readSnapshots(r, v, config.snapshots);
    else if (key == "linkerd")
      readLinkerd(r, v, config.linkerd);
    else if (key == "kuma")
      readKuma(r, v, config);
    else if (key == "envoyGateway")
      readEnvoyGateway(r, v, config.envoyGateway);
    else if (key == "gatewayAPI")
      readGatewayApi(r, v, config);
    else if (key == "environments")
      readEnvironments(r, v, config);
    else if (key == "schemas")
      schemasNode = v;
    else
      r.fail(k, "unknown setting \"" + std::string(key) +
                    "\" (known: include, exclude, defaultNamespace, limits, rules, suppressions, "
                    "policies, gatewayClasses, external, snapshots, linkerd, kuma, envoyGateway, "
                    "gatewayAPI, environments, schemas)");
  }
  // After the rest: the schema files are parsed with the config's limits.
  if (schemasNode)
    readSchemas(r, schemasNode, files, fs::path(displayPath).parent_path().generic_string(),
                config);
  return config;
}

Config loadConfig(const std::filesystem::path& file, const std::string& displayPath) {
  model::ReadResult read = model::readFile(file, kMaxConfigBytes);
  if (read.status == model::ReadResult::Status::TooLarge)
    throw ConfigError(displayPath + ": the config file has " + read.error + ", more than " +
                      std::to_string(kMaxConfigBytes));
  if (!read.ok()) throw ConfigError(displayPath + ": cannot read the config file: " + read.error);
  return parseConfig(std::move(read.text), displayPath, file.parent_path());
}

std::optional<std::filesystem::path> findConfig(const std::filesystem::path& start) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(start, ec);
  if (ec) return std::nullopt;
  if (!std::filesystem::is_directory(dir, ec)) dir = dir.parent_path();
  while (true) {
    std::filesystem::path candidate = dir / ".policygraph.yaml";
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

}  // namespace pg::config
