#include "lib/load/loader.h"

#include <algorithm>
#include <optional>
#include <string>

#include "lib/load/encoding.h"
#include "lib/model/file.h"
#include "lib/model/parallel.h"
#include "lib/model/placeholder.h"
#include "lib/yaml/parser.h"

namespace pg::load {

namespace {

std::string fileProblemDiscriminator(const std::string& path, std::string_view what) {
  return path + "#" + std::string(what);
}

// The text of one line, trimmed: what tells a problem apart from its neighbours in a way that
// survives edits elsewhere in the file (unlike line numbers or document indexes). Line starts
// are indexed on first use, so that naming many problems or objects of one big file stays
// linear rather than scanning from the top of the file each time.
class LineText {
 public:
  explicit LineText(std::string_view text) : text_(text) {}

  std::string_view operator()(std::uint32_t line) {
    if (starts_.empty()) {
      starts_.push_back(0);
      for (std::size_t i = text_.find('\n'); i != std::string_view::npos;
           i = text_.find('\n', i + 1))
        starts_.push_back(i + 1);
    }
    if (line == 0 || line > starts_.size()) return {};
    std::size_t start = starts_[line - 1];
    std::size_t end = text_.find('\n', start);
    std::string_view out =
        text_.substr(start, end == std::string_view::npos ? text_.npos : end - start);
    while (!out.empty() && (out.front() == ' ' || out.front() == '\t')) out.remove_prefix(1);
    while (!out.empty() && (out.back() == ' ' || out.back() == '\r')) out.remove_suffix(1);
    return out.substr(0, 200);
  }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

ProblemKind problemKindOf(yaml::ProblemKind kind) {
  switch (kind) {
    case yaml::ProblemKind::Syntax:
      return ProblemKind::InvalidYaml;
    case yaml::ProblemKind::DuplicateKey:
      return ProblemKind::DuplicateKey;
    case yaml::ProblemKind::AliasExpansion:
      return ProblemKind::AliasExpansion;
    case yaml::ProblemKind::Depth:
      return ProblemKind::NestingTooDeep;
  }
  return ProblemKind::InvalidYaml;
}

std::string_view describe(yaml::NodeRef node) {
  if (node.isSequence()) return "a list";
  if (node.isNull()) return "null";
  return "a scalar";
}

// Splits a file's documents into objects; `kind: List` (and `FooList` with `items`) unpack.
class Splitter {
 public:
  Splitter(const model::SourceFile& file, FileResult& out)
      : file_(file), out_(out), lineText_(file.tree->text()) {}

  void run() {
    const yaml::Tree& tree = *file_.tree;
    for (std::uint32_t d = 0; d < tree.documents().size(); ++d) {
      document_ = d;
      yaml::NodeRef root = tree.root(d);
      if (root.isNull()) continue;  // an empty document (`---` at the end of a file)
      if (!root.isMapping()) {
        problem(ProblemKind::NotAnObject, root,
                "this document is " + std::string(describe(root)) + ", not a Kubernetes object",
                "document:" + std::string(lineText_(root.start().line)));
        // A whole document of prose, or a list of anything but objects, has neither apiVersion
        // nor kind: a sign that the file is something else's (notes, a playbook) when nothing
        // in it is an object. A list of objects (a JSON array of them) is a manifest mistake.
        bool objects = false;
        for (yaml::NodeRef item : root.items())
          objects = objects || item.get("apiVersion") || item.get("kind");
        out_.problems.back().notKubernetes = !objects;
        continue;
      }
      object(root);
    }
  }

 private:
  void problem(ProblemKind kind, yaml::NodeRef at, std::string message, std::string what) {
    out_.problems.push_back({kind,
                             {file_.path, at.start(), at.end()},
                             std::move(message),
                             fileProblemDiscriminator(file_.path, what),
                             {}});
  }

  void object(yaml::NodeRef node) {
    yaml::NodeRef apiVersion = node.get("apiVersion");
    yaml::NodeRef kind = node.get("kind");
    yaml::NodeRef items = node.get("items");
    if (kind.isString() && kind.str().ends_with("List") && items.isSequence() &&
        !node.get("metadata").get("name")) {
      std::uint32_t i = 0;
      for (yaml::NodeRef item : items.items()) {
        if (item.isMapping()) {
          object(item);
        } else {
          problem(ProblemKind::NotAnObject, item,
                  "item " + std::to_string(i) + " of this " + std::string(kind.str()) + " is " +
                      std::string(describe(item)) + ", not a Kubernetes object",
                  "item:" + std::string(lineText_(item.start().line)));
        }
        ++i;
      }
      return;
    }
    // Names the object as far as it can be named, for fingerprints.
    // Only a problem needs it, and most objects have none.
    auto where = [&] {
      return std::string(kind.str()) + "/" +
             std::string(node.get("metadata").get("namespace").str()) + "/" +
             std::string(node.get("metadata").get("name").str()) + ":" +
             std::string(lineText_(node.start().line));
    };
    if (!apiVersion && !kind && universal(node)) return;
    if (!apiVersion.isString() || apiVersion.str().empty()) {
      problem(
          ProblemKind::MissingField, apiVersion ? apiVersion : node,
          apiVersion ? "apiVersion must be a non-empty string" : "this object has no apiVersion",
          where() + ".apiVersion");
      // No kind, and no apiVersion or one that is not a string (Grafana's provisioning files
      // say `apiVersion: 1`): not a Kubernetes document.
      out_.problems.back().notKubernetes = !apiVersion.isString() && !kind;
      return;
    }
    if (!kind.isString() || kind.str().empty()) {
      problem(ProblemKind::MissingField, kind ? kind : node,
              kind ? "kind must be a non-empty string" : "this object has no kind",
              where() + ".kind");
      return;
    }
    yaml::NodeRef metadata = node.get("metadata");
    if (!metadata.isMapping()) {
      problem(ProblemKind::MissingField, metadata ? metadata : node,
              metadata ? "metadata must be a mapping" : "this object has no metadata",
              where() + ".metadata");
      return;
    }
    yaml::NodeRef name = metadata.get("name");
    if (!name) {
      // generateName objects (Jobs, one-off Pods) exist in repositories but nothing can
      // reference them by name: nothing to check, nothing to report.
      if (metadata.get("generateName").isScalar()) return;
      problem(ProblemKind::MissingField, node.keyNode("metadata"),
              "this " + std::string(kind.str()) + " has no metadata.name", where() + ".name");
      return;
    }
    if (!name.isString() || name.str().empty()) {
      problem(ProblemKind::MissingField, name, "metadata.name must be a non-empty string",
              where() + ".name");
      return;
    }
    model::Resource r;
    r.apiVersion = apiVersion.str();
    auto gv = model::splitApiVersion(r.apiVersion);
    r.group = gv.group;
    r.version = gv.version;
    r.kind = kind.str();
    r.name = name.str();
    yaml::NodeRef ns = metadata.get("namespace");
    r.namespaceWritten = ns.isScalar() && !ns.isNull();
    if (r.namespaceWritten) r.namespace_ = ns.str();
    r.node = node;
    r.file = &file_;
    r.document = document_;
    out_.resources.push_back(r);
  }

  // A Kuma Universal document: no apiVersion or kind, but a string `type` and `name`, and a
  // string `mesh` unless it is a Mesh. Made a kuma.io Resource of kind `type`; false when the
  // document is not one (it then gets the missing-apiVersion problem).
  bool universal(yaml::NodeRef node) {
    yaml::NodeRef type = node.get("type");
    yaml::NodeRef name = node.get("name");
    yaml::NodeRef mesh = node.get("mesh");
    auto nonEmpty = [](yaml::NodeRef n) { return n.isString() && !n.str().empty(); };
    if (!nonEmpty(type) || !nonEmpty(name)) return false;
    const bool isMesh = type.str() == "Mesh";
    if (!isMesh && !nonEmpty(mesh)) return false;
    model::Resource r;
    r.group = "kuma.io";
    r.kind = type.str();
    r.name = name.str();
    r.mesh = isMesh ? std::string_view() : mesh.str();
    r.universal = true;
    r.node = node;
    r.file = &file_;
    r.document = document_;
    out_.resources.push_back(r);
    return true;
  }

  const model::SourceFile& file_;
  FileResult& out_;
  std::uint32_t document_ = 0;
  LineText lineText_;
};

// Whether a document is the configuration of a tool, read from a file by the tool itself and
// never applied to a cluster although it looks like an object: kind's and k3d's cluster
// configs, skaffold, kpt, eksctl, the component configs of kubeadm, the kubelet, kube-proxy
// and the API server (audit policies among them), and Envoy Gateway's startup config.
bool toolConfiguration(std::string_view apiVersion, std::string_view kind) {
  static constexpr std::string_view kGroups[] = {"kind.x-k8s.io/",
                                                 "k3d.io/",
                                                 "ctlptl.dev/",
                                                 "skaffold/",
                                                 "kpt.dev/",
                                                 "eksctl.io/",
                                                 "kubeadm.k8s.io/",
                                                 "kubelet.config.k8s.io/",
                                                 "kubeproxy.config.k8s.io/",
                                                 "apiserver.config.k8s.io/",
                                                 "audit.k8s.io/",
                                                 "kubescheduler.config.k8s.io/"};
  for (std::string_view g : kGroups)
    if (apiVersion.starts_with(g)) return true;
  return apiVersion.starts_with("gateway.envoyproxy.io/") && kind == "EnvoyGateway";
}

// Files that parse but are no manifests, told by their content: every document a kustomize
// Kustomization or Component (whatever the file is called), or a tool's configuration, or a
// JSON Grafana dashboard (no apiVersion or kind; `panels`, at the top or under `dashboard`).
std::optional<SkipReason> notAManifest(const yaml::Tree& tree, bool json) {
  std::size_t kustomize = 0, tools = 0, documents = 0;
  for (std::uint32_t d = 0; d < tree.documents().size(); ++d) {
    yaml::NodeRef root = tree.root(d);
    if (root.isNull()) continue;
    ++documents;
    if (!root.isMapping()) continue;
    std::string_view kind = root.get("kind").str();
    std::string_view apiVersion = root.get("apiVersion").str();
    if (apiVersion.starts_with("kustomize.config.k8s.io/") &&
        (kind == "Kustomization" || kind == "Component"))
      ++kustomize;
    else if (toolConfiguration(apiVersion, kind))
      ++tools;
  }
  if (kustomize > 0 && kustomize == documents) return SkipReason::Kustomization;
  if (tools > 0 && kustomize + tools == documents) return SkipReason::ToolConfig;
  if (!json || tree.documents().empty()) return std::nullopt;
  yaml::NodeRef root = tree.root(0);
  if (!root.isMapping() || root.get("apiVersion") || root.get("kind")) return std::nullopt;
  if (root.get("panels") || root.get("dashboard").get("panels")) return SkipReason::Dashboard;
  return std::nullopt;
}

void parseInto(FileResult& result, std::string text, const config::Limits& limits) {
  model::SourceFile& file = *result.file;
  EncodingScan scan = scanEncoding(text);
  auto fileProblem = [&](ProblemKind kind, yaml::Mark at, std::string message, const char* what) {
    result.problems.push_back({kind,
                               {file.path, at, at},
                               std::move(message),
                               fileProblemDiscriminator(file.path, what),
                               {}});
  };
  switch (scan.verdict) {
    case EncodingScan::Verdict::Binary:
      fileProblem(ProblemKind::BinaryFile, markAt(text, scan.offset),
                  "this file contains a NUL byte, so it is binary, not YAML or JSON", "binary");
      return;
    case EncodingScan::Verdict::NotUtf8:
      fileProblem(
          ProblemKind::InvalidEncoding, markAt(text, scan.offset),
          "byte 0x" +
              [&] {
                char hex[3];
                std::snprintf(hex, sizeof hex, "%02X",
                              static_cast<unsigned char>(text[scan.offset]));
                return std::string(hex);
              }() +
              " is not valid UTF-8",
          "encoding");
      return;
    case EncodingScan::Verdict::Utf16:
      fileProblem(ProblemKind::InvalidEncoding, {1, 1},
                  "this file is UTF-16 (it starts with a UTF-16 byte order mark), not UTF-8",
                  "encoding");
      return;
    default:
      break;
  }
  yaml::ParseLimits parseLimits{limits.maxDepth, limits.maxAliasExpansion};
  const bool json =
      file.path.size() >= 5 && file.path.compare(file.path.size() - 5, 5, ".json") == 0;
  const bool ascii = scan.verdict == EncodingScan::Verdict::Ascii;
  yaml::ParseResult parsed = yaml::parse(std::move(text), parseLimits, ascii, json);
  // A brace placeholder where a value starts (`cidr: {IPv6}/128`) is a flow mapping to YAML,
  // and a syntax error: the document read with the placeholder as text instead, which is what
  // the harness applies, when that parses with fewer syntax errors.
  auto syntaxErrors = [](const yaml::ParseResult& r) {
    return std::count_if(r.problems.begin(), r.problems.end(), [](const yaml::ParseProblem& p) {
      return p.kind == yaml::ProblemKind::Syntax;
    });
  };
  if (!json && syntaxErrors(parsed) > 0)
    if (std::optional<std::string> unbraced = model::bracePlaceholdersAsText(parsed.tree->text())) {
      yaml::ParseResult retried = yaml::parse(std::move(*unbraced), parseLimits, ascii, json);
      if (syntaxErrors(retried) < syntaxErrors(parsed)) parsed = std::move(retried);
    }
  file.tree = std::move(parsed.tree);
  if (parsed.problems.empty()) {
    result.skipped = notAManifest(*file.tree, json);
    if (result.skipped) return;
  }
  LineText lineText(file.tree->text());
  for (yaml::ParseProblem& p : parsed.problems) {
    std::string discriminator =
        fileProblemDiscriminator(file.path, p.message + ":" + std::string(lineText(p.start.line)));
    result.problems.push_back({problemKindOf(p.kind),
                               {file.path, p.start, p.end},
                               std::move(p.message),
                               std::move(discriminator),
                               {}});
  }
  Splitter(file, result).run();
}

FileResult loadEntry(const SourceEntry& entry, const config::Limits& limits,
                     const LoadOptions& options) {
  FileResult result;
  result.file = std::make_unique<model::SourceFile>();
  result.file->path = entry.path;
  result.file->absolutePath = entry.absolutePath.string();
  std::string text;
  // `size` as the reader put it ("123 bytes", "more than 16777216 bytes"); empty when the
  // input was only read up to the limit.
  auto tooLarge = [&](const std::string& size) {
    const std::string limit = std::to_string(limits.maxFileBytes) + " bytes";
    result.problems.push_back(
        {ProblemKind::FileTooLarge,
         {entry.path, {1, 1}, {1, 1}},
         std::string(entry.isStdin ? "standard input" : "this file") +
             (size.empty() ? " is larger than the limit of " + limit
                           : " has " + size + ", more than the limit of " + limit),
         fileProblemDiscriminator(entry.path, "size"),
         {}});
    return std::move(result);
  };
  if (entry.oversize > 0) return tooLarge(std::to_string(entry.oversize) + " bytes");
  if (entry.isStdin && options.stdinTooLarge) return tooLarge({});
  if (const std::string* inMemory = entry.isStdin ? &options.stdinText : entry.content.get()) {
    if (inMemory->size() > limits.maxFileBytes)
      return tooLarge(std::to_string(inMemory->size()) + " bytes");
    text = *inMemory;
  } else {
    model::ReadResult read = model::readFile(entry.absolutePath, limits.maxFileBytes);
    if (read.status == model::ReadResult::Status::TooLarge)
      return tooLarge(read.error.starts_with("more than") ? std::string() : read.error);
    if (!read.ok()) {
      result.problems.push_back({ProblemKind::Unreadable,
                                 {entry.path, {1, 1}, {1, 1}},
                                 "cannot read this file: " + read.error,
                                 fileProblemDiscriminator(entry.path, "read"),
                                 {}});
      return result;
    }
    text = std::move(read.text);
  }
  parseInto(result, std::move(text), limits);
  return result;
}

}  // namespace

FileResult loadText(std::string path, std::string text, const config::Limits& limits) {
  FileResult result;
  result.file = std::make_unique<model::SourceFile>();
  result.file->path = std::move(path);
  if (text.size() > limits.maxFileBytes) {
    result.problems.push_back(
        {ProblemKind::FileTooLarge,
         {result.file->path, {1, 1}, {1, 1}},
         "more than the limit of " + std::to_string(limits.maxFileBytes) + " bytes",
         fileProblemDiscriminator(result.file->path, "size"),
         {}});
    return result;
  }
  parseInto(result, std::move(text), limits);
  return result;
}

LoadResult loadSources(const std::vector<SourceEntry>& sources, const config::Limits& limits,
                       const LoadOptions& options) {
  std::vector<FileResult> results(sources.size());
  model::parallelFor(
      model::workersFor(options.jobs, sources.size()), sources.size(),
      [&](std::size_t i, unsigned) { results[i] = loadEntry(sources[i], limits, options); });
  LoadResult out;
  out.files.reserve(results.size());
  std::size_t resources = 0;
  for (const FileResult& r : results) resources += r.resources.size();
  out.resources.reserve(resources);
  for (FileResult& r : results) {
    if (r.skipped) {
      out.skipped.push_back({r.file->path, *r.skipped});
      continue;
    }
    out.files.push_back(std::move(r.file));
    out.resources.insert(out.resources.end(), r.resources.begin(), r.resources.end());
    for (Problem& p : r.problems) out.problems.push_back(std::move(p));
  }
  return out;
}

}  // namespace pg::load
