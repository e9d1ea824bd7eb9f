#include "lib/load/rendered.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <variant>

#include "lib/load/loader.h"
#include "lib/load/sources.h"
#include "lib/model/file.h"

namespace pg::load {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOriginAnnotation = "config.kubernetes.io/origin";
constexpr std::string_view kHelmSource = "# Source: ";
// Original files are looked for among this many files under the root, at most.
constexpr std::size_t kMaxWalkedFiles = 100000;

bool before(yaml::Mark a, yaml::Mark b) {
  return a.line < b.line || (a.line == b.line && a.column < b.column);
}
bool within(yaml::Mark at, yaml::Mark start, yaml::Mark end) {
  return !before(at, start) && before(at, end);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::string_view unquote(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  return s;
}

// The lines of a text, without their line breaks; line N is lines[N - 1].
std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> out;
  while (true) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// kustomize writes the origin as a small YAML mapping in the annotation's value:
// `path: ../base/route.yaml`, and for remote bases `repo:` and `ref:`; a generated object
// has `configuredIn:` (its kustomization) instead of `path:`.
std::optional<RenderedOrigin> kustomizeOrigin(std::string_view value) {
  RenderedOrigin origin;
  std::string configuredIn;
  for (std::string_view line : linesOf(value)) {
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || line.empty() || line.front() == ' ') continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string val(unquote(line.substr(colon + 1)));
    if (key == "path")
      origin.path = val;
    else if (key == "repo")
      origin.repo = val;
    else if (key == "ref")
      origin.ref = val;
    else if (key == "configuredIn")
      configuredIn = val;
  }
  if (origin.path.empty()) origin.path = configuredIn;
  if (origin.path.empty()) return std::nullopt;
  return origin;
}

// One step of a field path: a mapping key, or a list item (by index, and by its `name` when
// it has one, since patches may insert items).
struct Step {
  std::string key;
  std::size_t index = 0;
  std::string itemName;
  bool isIndex = false;
};

struct FieldPath {
  std::vector<Step> steps;
  bool entry = false;  // the location spans the last key and its value, not a node alone
};

yaml::Mark entryEnd(yaml::NodeRef key, yaml::NodeRef value) {
  return value ? value.end() : key.end();
}

// The path from `node` to the field whose span is exactly `at`; nothing when no field has it.
std::optional<FieldPath> pathTo(yaml::NodeRef node, const model::Location& at) {
  FieldPath path;
  while (true) {
    if (node.start() == at.start && node.end() == at.end && !node.isMapping()) return path;
    bool descended = false;
    if (node.isMapping()) {
      for (auto [key, value] : node.entries()) {
        if (key.start() == at.start && entryEnd(key, value) == at.end) {
          path.steps.push_back({std::string(key.str()), 0, {}, false});
          path.entry = true;
          return path;
        }
        if (value && within(at.start, value.start(), value.end())) {
          path.steps.push_back({std::string(key.str()), 0, {}, false});
          node = value;
          descended = true;
          break;
        }
      }
    } else if (node.isSequence()) {
      for (std::size_t i = 0; i < node.size(); ++i) {
        yaml::NodeRef item = node.at(i);
        if (!within(at.start, item.start(), item.end()) &&
            !(item.start() == at.start && item.end() == at.end))
          continue;
        path.steps.push_back({{}, i, std::string(item.get("name").str()), true});
        node = item;
        descended = true;
        break;
      }
    }
    if (descended) continue;
    // A mapping spanned whole (its first key starts where it does).
    if (node.start() == at.start && node.end() == at.end) return path;
    return std::nullopt;
  }
}

// Follows `path` from `node`: the node at its end and, for an entry, its key.
struct Found {
  yaml::NodeRef key;
  yaml::NodeRef node;
};
std::optional<Found> follow(yaml::NodeRef node, const FieldPath& path) {
  Found found{{}, node};
  for (const Step& step : path.steps) {
    if (!step.isIndex) {
      if (!found.node.isMapping()) return std::nullopt;
      found.key = found.node.keyNode(step.key);
      if (!found.key) return std::nullopt;
      found.node = found.node.get(step.key);
      continue;
    }
    if (!found.node.isSequence()) return std::nullopt;
    yaml::NodeRef item;
    if (!step.itemName.empty()) {
      for (yaml::NodeRef candidate : found.node.items())
        if (candidate.get("name").str() == step.itemName) item = candidate;
    } else if (step.index < found.node.size()) {
      item = found.node.at(step.index);
    }
    if (!item) return std::nullopt;
    found.key = {};
    found.node = item;
  }
  return found;
}

// The document of `file` defining kind/name; else the only one of that kind (a name prefix
// or suffix of the overlay renamed it).
yaml::NodeRef documentFor(const model::SourceFile& file, std::string_view kind,
                          std::string_view name) {
  if (!file.tree) return {};
  yaml::NodeRef byKind;
  std::size_t ofKind = 0;
  for (std::size_t d = 0; d < file.tree->documents().size(); ++d) {
    yaml::NodeRef root = file.tree->root(d);
    if (root.get("kind").str() != kind) continue;
    if (root.get("metadata").get("name").str() == name) return root;
    byKind = root;
    ++ofKind;
  }
  return ofKind == 1 ? byKind : yaml::NodeRef();
}

bool isUnder(const fs::path& path, const fs::path& root) {
  fs::path rel = path.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

// Files under the root, relative to it, '/'-separated, hidden folders skipped; read once.
class RootFiles {
 public:
  explicit RootFiles(fs::path root) : root_(std::move(root)) {}

  // The kustomization files (kustomization.yaml, .yml, Kustomization).
  std::vector<std::string> kustomizations() {
    if (!walked_) walk();
    std::vector<std::string> out;
    for (const std::string& f : files_) {
      std::string_view name = std::string_view(f).substr(f.rfind('/') + 1);
      if (name == "kustomization.yaml" || name == "kustomization.yml") out.push_back(f);
    }
    return out;
  }

  // Files whose path is `suffix` or ends with `/suffix`.
  std::vector<std::string> endingWith(const std::string& suffix) {
    if (!walked_) walk();
    std::vector<std::string> out;
    for (const std::string& f : files_)
      if (f == suffix || (f.size() > suffix.size() && f.ends_with(suffix) &&
                          f[f.size() - suffix.size() - 1] == '/'))
        out.push_back(f);
    return out;
  }

 private:
  void walk() {
    walked_ = true;
    std::error_code ec;
    fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!name.empty() && name.front() == '.') {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(ec) || !isManifestPath(name)) continue;
      files_.push_back(it->path().lexically_relative(root_).generic_string());
      if (files_.size() >= kMaxWalkedFiles) break;
    }
    std::sort(files_.begin(), files_.end());
  }

  fs::path root_;
  bool walked_ = false;
  std::vector<std::string> files_;
};

}  // namespace

RenderedSources::~RenderedSources() = default;

RenderedSources RenderedSources::read(const std::vector<std::unique_ptr<model::SourceFile>>& files,
                                      const fs::path& root, const config::Limits& limits) {
  RenderedSources out;
  RootFiles rootFiles(root);
  // Parses an original file once; null when it cannot be read.
  auto original = [&](const std::string& rel) -> const model::SourceFile* {
    auto it = out.originals_.find(rel);
    if (it != out.originals_.end()) return it->second.get();
    std::unique_ptr<model::SourceFile>& slot = out.originals_[rel];
    // Through a symlink that leaves the root, a rendered document's comment would have the
    // tool read, and name, a file outside the repository: the folder walker refuses those
    // links (IN112), and so does this.
    if (!model::resolvesInside(root / rel, root)) return nullptr;
    model::ReadResult read = model::readFile(root / rel, limits.maxFileBytes);
    if (!read.ok()) return nullptr;
    slot = std::move(loadText(rel, std::move(read.text), limits).file);
    return slot->tree ? slot.get() : nullptr;
  };
  for (const std::unique_ptr<model::SourceFile>& file : files) {
    if (file->path != kStdinPath || !file->tree) continue;
    const yaml::Tree& tree = *file->tree;
    std::vector<std::string_view> lines = linesOf(tree.text());
    std::vector<Document>& docs = out.origins_[file->path];
    std::uint32_t previousStart = 0;
    for (std::size_t d = 0; d < tree.documents().size(); ++d) {
      yaml::NodeRef object = tree.root(d);
      if (!object.isMapping()) continue;
      std::optional<RenderedOrigin> origin;
      yaml::NodeRef annotation = object.get("metadata").get("annotations").get(kOriginAnnotation);
      if (annotation.isString()) origin = kustomizeOrigin(annotation.str());
      if (!origin) {
        // Helm writes `# Source: chart/templates/x.yaml` before each document.
        for (std::uint32_t l = object.start().line; l > previousStart + 1 && l > 1; --l) {
          std::string_view line = trim(lines[l - 2]);
          if (!line.starts_with(kHelmSource)) continue;
          origin = RenderedOrigin{RenderedOrigin::Tool::Helm,
                                  std::string(trim(line.substr(kHelmSource.size()))),
                                  {},
                                  {},
                                  {}};
          break;
        }
      }
      previousStart = object.end().line;
      if (origin) docs.push_back({object.start(), object.end(), object, std::move(*origin)});
    }
    if (docs.empty()) {
      out.origins_.erase(file->path);
      continue;
    }
    // The object's file under the root, when it holds the object.
    auto holds = [&](const fs::path& candidate, const Document& doc) {
      fs::path normal = candidate.lexically_normal();
      std::error_code ec;
      if (!isUnder(normal, root) || !fs::is_regular_file(normal, ec)) return std::string();
      std::string rel = normal.lexically_relative(root).generic_string();
      const model::SourceFile* f = original(rel);
      if (!f ||
          !documentFor(*f, doc.root.get("kind").str(), doc.root.get("metadata").get("name").str()))
        return std::string();
      return rel;
    };
    // kustomize's paths are relative to the kustomization built, which standard input does
    // not name: of the folders holding a kustomization, the one that resolves the most
    // documents to files holding them (when one does).
    std::optional<fs::path> built;
    std::size_t bestScore = 0;
    bool tie = false;
    for (const std::string& k : rootFiles.kustomizations()) {
      fs::path dir = (root / k).parent_path();
      std::size_t score = 0;
      for (const Document& doc : docs)
        if (doc.origin.tool == RenderedOrigin::Tool::Kustomize && doc.origin.repo.empty() &&
            !holds(dir / doc.origin.path, doc).empty())
          ++score;
      if (score > bestScore) {
        bestScore = score;
        built = dir;
        tie = false;
      } else if (score == bestScore && score > 0) {
        tie = true;
      }
    }
    if (tie) built.reset();
    for (Document& doc : docs) {
      RenderedOrigin& origin = doc.origin;
      if (!origin.repo.empty()) continue;
      if (origin.tool == RenderedOrigin::Tool::Kustomize && built)
        origin.file = holds(*built / origin.path, doc);
      if (origin.file.empty()) origin.file = holds(root / origin.path, doc);
      if (!origin.file.empty()) continue;
      // Else the one file whose path ends with the origin's, less its leading `../` (for
      // Helm: the chart's folder, wherever it is).
      std::string_view suffix = origin.path;
      while (suffix.starts_with("../") || suffix.starts_with("./"))
        suffix.remove_prefix(suffix.starts_with("./") ? 2 : 3);
      std::vector<std::string> candidates = rootFiles.endingWith(std::string(suffix));
      if (origin.tool == RenderedOrigin::Tool::Kustomize)
        std::erase_if(candidates,
                      [&](const std::string& c) { return holds(root / c, doc).empty(); });
      if (candidates.size() == 1) {
        origin.file = candidates.front();
        original(origin.file);
      }
    }
  }
  return out;
}

const RenderedSources::Document* RenderedSources::documentAt(const model::Location& at) const {
  auto it = origins_.find(at.path);
  if (it == origins_.end()) return nullptr;
  for (const Document& doc : it->second)
    if (within(at.start, doc.start, doc.end) || doc.start == at.start) return &doc;
  return nullptr;
}

const RenderedOrigin* RenderedSources::originOf(const model::Location& at) const {
  const Document* doc = documentAt(at);
  return doc ? &doc->origin : nullptr;
}

std::optional<model::Location> RenderedSources::map(const model::Location& at, const Document& doc,
                                                    bool* changed) const {
  if (doc.origin.file.empty()) return std::nullopt;
  auto it = originals_.find(doc.origin.file);
  if (it == originals_.end() || !it->second || !it->second->tree) return std::nullopt;
  const model::SourceFile& file = *it->second;
  if (doc.origin.tool == RenderedOrigin::Tool::Helm) {
    // A template is not YAML until rendered: the line at fault maps only to the one line of
    // the template with the same text (a literal line, not one filled in by the template).
    std::vector<std::string_view> rendered = linesOf(doc.root.tree()->text());
    if (at.start.line == 0 || at.start.line > rendered.size()) return std::nullopt;
    std::string_view line = rendered[at.start.line - 1];
    std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') return std::nullopt;
    std::vector<std::string_view> template_ = linesOf(file.tree->text());
    std::optional<std::uint32_t> match;
    for (std::uint32_t l = 0; l < template_.size(); ++l) {
      if (trim(template_[l]) != text) continue;
      if (match) return std::nullopt;  // two candidates: no honest answer
      match = l;
    }
    if (!match) return std::nullopt;
    const std::uint32_t renderedIndent = static_cast<std::uint32_t>(line.find_first_not_of(" \t"));
    const std::uint32_t templateIndent =
        static_cast<std::uint32_t>(template_[*match].find_first_not_of(" \t"));
    if (at.start.column <= renderedIndent) return std::nullopt;
    const std::uint32_t offset = at.start.column - 1 - renderedIndent;
    model::Location out{file.path, {*match + 1, templateIndent + 1 + offset}, {}};
    out.end =
        at.end.line == at.start.line && at.end.column > at.start.column
            ? yaml::Mark{*match + 1, out.start.column + (at.end.column - at.start.column)}
            : yaml::Mark{*match + 1, templateIndent + 1 + static_cast<std::uint32_t>(text.size())};
    return out;
  }
  std::optional<FieldPath> path = pathTo(doc.root, at);
  if (!path) return std::nullopt;
  yaml::NodeRef target =
      documentFor(file, doc.root.get("kind").str(), doc.root.get("metadata").get("name").str());
  if (!target) return std::nullopt;
  std::optional<Found> found = follow(target, *path);
  if (!found) return std::nullopt;
  // A scalar the build changed (a patch, a transformer) is not what the original says.
  std::optional<Found> renderedField = follow(doc.root, *path);
  if (renderedField && renderedField->node.isScalar() &&
      (!found->node.isScalar() || found->node.str() != renderedField->node.str())) {
    if (changed) *changed = true;
    return std::nullopt;
  }
  if (path->entry && found->key)
    return model::Location{file.path, found->key.start(), entryEnd(found->key, found->node)};
  if (!found->node) return std::nullopt;
  return model::Location{file.path, found->node.start(), found->node.end()};
}

void RenderedSources::relocate(model::Finding& finding) const {
  if (origins_.empty()) return;
  if (const Document* doc = documentAt(finding.location)) {
    bool changed = false;
    if (std::optional<model::Location> mapped = map(finding.location, *doc, &changed)) {
      finding.location = std::move(*mapped);
    } else {
      const RenderedOrigin& o = doc->origin;
      std::string from = o.file.empty() ? o.path : o.file;
      if (!o.repo.empty()) from += " in " + o.repo + (o.ref.empty() ? "" : "@" + o.ref);
      finding.message += " (rendered from " + from +
                         (changed ? ", where this field has another value: the build changed it "
                                    "(a patch or a transformer)"
                                  : "") +
                         ")";
    }
  }
  for (model::RelatedLocation& related : finding.related) {
    const Document* doc = documentAt(related.location);
    if (!doc) continue;
    if (std::optional<model::Location> mapped = map(related.location, *doc))
      related.location = std::move(*mapped);
  }
}

}  // namespace pg::load
