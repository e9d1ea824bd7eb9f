#include "lib/config/config.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "lib/config/glob.h"
#include "lib/yaml/parser.h"

namespace pg::config {

namespace {

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
    if (key == "maxFileBytes") {
      limits.maxFileBytes = r.count(v, key);
    } else if (key == "maxDepth") {
      std::uint64_t depth = r.count(v, key);
      if (depth > 10000) r.fail(v, "maxDepth must be at most 10000");
      limits.maxDepth = static_cast<std::uint32_t>(depth);
    } else if (key == "maxAliasExpansion") {
      limits.maxAliasExpansion = r.count(v, key);
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

namespace fs = std::filesystem;

bool manifestExtension(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// Reads one schema file and checks that every document in it is a CRD.
void readSchemaFile(const Reader& r, yaml::NodeRef entry, const fs::path& file,
                    const std::string& display, Config& config) {
  std::ifstream in(file, std::ios::binary);
  if (!in) r.fail(entry, "schemas: cannot read " + display);
  std::ostringstream text;
  text << in.rdbuf();
  yaml::ParseResult parsed =
      yaml::parse(text.str(), {config.limits.maxDepth, config.limits.maxAliasExpansion}, false);
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

// schemas: [FILE or FOLDER, ...], relative to the config's folder. A folder's files with a
// manifest extension are read in name order, sub-folders included, hidden entries skipped.
void readSchemas(const Reader& r, yaml::NodeRef node, const fs::path& folder,
                 const std::string& displayFolder, Config& config) {
  if (!node.isSequence())
    r.fail(node, "schemas must be a list of files or folders of CustomResourceDefinitions");
  for (yaml::NodeRef entry : node.items()) {
    std::string written = r.string(entry, "a schemas entry");
    fs::path full = fs::path(written).is_absolute() ? fs::path(written) : folder / written;
    std::string display =
        fs::path(written).is_absolute()
            ? written
            : (fs::path(displayFolder) / written).lexically_normal().generic_string();
    std::error_code ec;
    if (fs::is_regular_file(full, ec)) {
      readSchemaFile(r, entry, full, display, config);
      continue;
    }
    if (!fs::is_directory(full, ec))
      r.fail(entry, "schemas: " + display +
                        " does not exist (paths are relative to the "
                        "config file's folder)");
    std::vector<fs::path> files;
    fs::recursive_directory_iterator it(full, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (!name.empty() && name[0] == '.') {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec) && manifestExtension(it->path())) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty())
      r.fail(entry, "schemas: folder " + display + " holds no .yaml, .yml or .json file");
    for (const fs::path& f : files)
      readSchemaFile(r, entry, f, (fs::path(display) / f.lexically_relative(full)).generic_string(),
                     config);
  }
}

}  // namespace

Config parseConfig(std::string text, const std::string& displayPath,
                   const std::filesystem::path& folder) {
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
    else if (key == "defaultNamespace")
      config.defaultNamespace = r.string(v, key);
    else if (key == "limits")
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
    else if (key == "environments")
      readEnvironments(r, v, config);
    else if (key == "schemas")
      schemasNode = v;
    else
      r.fail(k, "unknown setting \"" + std::string(key) +
                    "\" (known: include, exclude, defaultNamespace, limits, rules, suppressions, "
                    "policies, gatewayClasses, external, snapshots, linkerd, kuma, envoyGateway, "
                    "environments, "
                    "schemas)");
  }
  // After the rest: the schema files are parsed with the config's limits.
  if (schemasNode)
    readSchemas(r, schemasNode, folder.empty() ? fs::path(".") : folder,
                fs::path(displayPath).parent_path().generic_string(), config);
  return config;
}

Config loadConfig(const std::filesystem::path& file, const std::string& displayPath) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(displayPath + ": cannot read the config file");
  std::ostringstream text;
  text << in.rdbuf();
  return parseConfig(text.str(), displayPath, file.parent_path());
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
