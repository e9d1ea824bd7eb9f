#include "lib/units/kustomize.h"

#include <re2/re2.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

#include "lib/units/generators.h"
#include "lib/units/patch.h"
#include "lib/yaml/edit.h"
#include "lib/yaml/parser.h"

namespace pg::units {

namespace {

using yaml::EditNode;
using yaml::NodeRef;

constexpr unsigned kMaxNesting = 64;  // kustomizations within kustomizations

constexpr std::string_view kKustomizationNames[] = {"kustomization.yaml", "kustomization.yml",
                                                    "Kustomization"};

// The kustomization fields applied here; anything else is named in a note.
constexpr std::string_view kApplied[] = {
    "apiVersion",
    "kind",
    "metadata",
    "resources",
    "bases",
    "components",
    "namespace",
    "namePrefix",
    "nameSuffix",
    "commonLabels",
    "labels",
    "commonAnnotations",
    "patches",
    "patchesStrategicMerge",
    "patchesJson6902",
    "configMapGenerator",
    "secretGenerator",
    "generatorOptions",
    "replicas",
    "images",
    "sortOptions",
    "buildMetadata",
    "crds",
    "openapi",
};

bool applied(std::string_view key) {
  return std::find(std::begin(kApplied), std::end(kApplied), key) != std::end(kApplied);
}

bool isRemote(std::string_view entry) {
  return entry.find("://") != std::string_view::npos || entry.starts_with("git@") ||
         entry.starts_with("github.com/") || entry.starts_with("gitlab.com/") ||
         entry.starts_with("bitbucket.org/");
}

// Kubernetes' own groups: their lists merge by key in a strategic-merge patch.
bool builtinGroup(std::string_view group) {
  return group.empty() || group == "apps" || group == "batch" || group == "policy" ||
         group == "autoscaling" || group == "networking.k8s.io" ||
         group == "rbac.authorization.k8s.io" || group == "storage.k8s.io";
}

// A label selector in Kubernetes' string form (`app=web,tier in (a,b),!legacy`), as a patch
// target's labelSelector and annotationSelector are written.
class StringSelector {
 public:
  explicit StringSelector(std::string_view text) {
    std::size_t depth = 0, start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] == '(') ++depth;
      if (i < text.size() && text[i] == ')' && depth > 0) --depth;
      if (i == text.size() || (text[i] == ',' && depth == 0)) {
        add(trim(text.substr(start, i - start)));
        start = i + 1;
      }
    }
  }

  bool matches(const std::map<std::string, std::string, std::less<>>& labels) const {
    for (const Term& t : terms_) {
      auto it = labels.find(t.key);
      const bool has = it != labels.end();
      const bool in =
          has && std::find(t.values.begin(), t.values.end(), it->second) != t.values.end();
      switch (t.op) {
        case Op::Exists:
          if (!has) return false;
          break;
        case Op::Absent:
          if (has) return false;
          break;
        case Op::In:
          if (!in) return false;
          break;
        case Op::NotIn:
          if (in) return false;
          break;
      }
    }
    return true;
  }

 private:
  enum class Op { Exists, Absent, In, NotIn };
  struct Term {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  }
  void add(std::string_view term) {
    if (term.empty()) return;
    if (term.front() == '!') {
      terms_.push_back({std::string(trim(term.substr(1))), Op::Absent, {}});
      return;
    }
    for (std::string_view op : {"!=", "==", "="}) {
      if (std::size_t at = term.find(op); at != std::string_view::npos) {
        terms_.push_back({std::string(trim(term.substr(0, at))),
                          op == "!=" ? Op::NotIn : Op::In,
                          {std::string(trim(term.substr(at + op.size())))}});
        return;
      }
    }
    for (std::string_view word : {" notin ", " in "}) {
      if (std::size_t at = term.find(word); at != std::string_view::npos) {
        std::string_view list = trim(term.substr(at + word.size()));
        if (list.starts_with('(')) list.remove_prefix(1);
        if (list.ends_with(')')) list.remove_suffix(1);
        Term t{std::string(trim(term.substr(0, at))), word == " in " ? Op::In : Op::NotIn, {}};
        while (!list.empty()) {
          std::size_t comma = list.find(',');
          t.values.emplace_back(trim(list.substr(0, comma)));
          list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        }
        terms_.push_back(std::move(t));
        return;
      }
    }
    terms_.push_back({std::string(term), Op::Exists, {}});
  }
  std::vector<Term> terms_;
};

// One object on its way through a build.
struct Object {
  model::Resource r;
  std::optional<EditNode> edit;     // its content, once a transformation changed it
  std::vector<std::string> names;   // every name it had: the first is the original
  std::vector<std::string> spaces;  // every namespace it had ("" for none)
  bool generated = false;
  bool hashed = false;
  std::string behavior;  // a generated object's create | merge | replace

  const std::string& name() const { return names.back(); }
  const std::string& space() const { return spaces.back(); }
  EditNode& edited() {
    if (!edit) edit = EditNode::copy(r.node);
    return *edit;
  }
  // The node of a field, as the object is now (edited or as read).
  bool hasAny(std::string_view name) const {
    return std::find(names.begin(), names.end(), name) != names.end();
  }
};

using Objects = std::vector<Object>;

Object objectOf(const model::Resource& r) {
  Object o;
  o.r = r;
  o.names.emplace_back(r.name);
  o.spaces.emplace_back(r.namespaceWritten ? r.namespace_ : std::string_view());
  return o;
}

// `x` with an empty namespace reading as `default`, as kustomize compares ids.
std::string_view effective(std::string_view space) {
  return space.empty() ? "default" : space;
}

bool namespacedOrUnknown(const Object& o) {
  return !model::isBuiltinClusterScoped(o.r.group, o.r.kind);
}

// The pod spec of a workload (kustomize's fieldSpecs for name references), or null.
EditNode* podSpec(EditNode& obj, std::string_view kind) {
  if (kind == "Pod") return obj.get("spec");
  EditNode* spec = obj.get("spec");
  if (!spec) return nullptr;
  if (kind == "CronJob") {
    EditNode* job = spec->get("jobTemplate");
    spec = job ? job->get("spec") : nullptr;
    if (!spec) return nullptr;
  }
  if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
      kind == "ReplicaSet" || kind == "Job" || kind == "CronJob" ||
      kind == "ReplicationController") {
    EditNode* tmpl = spec->get("template");
    return tmpl ? tmpl->get("spec") : nullptr;
  }
  return nullptr;
}

bool isWorkload(std::string_view kind) {
  return kind == "Pod" || kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
         kind == "ReplicaSet" || kind == "Job" || kind == "CronJob" ||
         kind == "ReplicationController";
}

// Sets `key: value` in the mapping at `path` under `root`; `create` makes the missing
// mappings of the path (kustomize's fieldSpec `create`), else nothing happens without them.
void setAt(EditNode& root, std::initializer_list<std::string_view> path, std::string_view key,
           const EditNode& value, bool create, NodeRef at) {
  EditNode* n = &root;
  for (std::string_view step : path) {
    EditNode* next = n->get(step);
    if (!next || !next->isMapping()) {
      if (!create) return;
      next = &n->child(step, at);
    }
    n = next;
  }
  n->set(key, value);
}

}  // namespace

struct Kustomizer::State {
  Sources& sources;
  Build out;
  std::vector<std::string> chain;  // the kustomizations being built, outermost first
  // The file of every tree an object may draw pieces from, for Tree::originOf.
  std::unordered_map<const yaml::Tree*, std::string> treePaths;

  explicit State(Sources& s) : sources(s) {}

  const load::Repository& repo() const { return sources.repository(); }

  void problem(load::ProblemKind kind, model::Location at, std::string message) {
    out.problems.push_back(
        {kind, at, std::move(message), at.path + "#" + std::to_string(at.start.line), {}});
  }
  model::Location where(const model::SourceFile* file, NodeRef node) const {
    return {file ? file->path : std::string(), node.start(), node.end()};
  }
  void fail(const model::SourceFile* file, NodeRef node, std::string message) {
    problem(load::ProblemKind::UnitBuild, where(file, node), std::move(message));
  }

  std::optional<std::string> kustomizationIn(const std::string& folder) const {
    for (std::string_view name : kKustomizationNames) {
      std::string path = folder.empty() ? std::string(name) : folder + "/" + std::string(name);
      if (repo().isFile(path)) return path;
    }
    return std::nullopt;
  }

  const model::SourceFile* document(const std::string& path, std::string& error) {
    const model::SourceFile* f = sources.document(path, &error);
    if (f) {
      treePaths.emplace(f->tree.get(), f->path);
      out.read.insert(path);
    }
    return f;
  }

  // The objects of a manifest file, appended to `acc`.
  void addFile(const std::string& path, Objects& acc, const model::SourceFile* from, NodeRef at) {
    std::string error;
    const Sources::Manifest* m = sources.manifest(path, &error);
    if (!m) {
      fail(from, at, "kustomize cannot build this: " + path + " cannot be read (" + error + ")");
      return;
    }
    out.read.insert(path);
    if (m->file && m->file->tree) treePaths.emplace(m->file->tree.get(), m->file->path);
    if (std::find(out.files.begin(), out.files.end(), m->file) == out.files.end())
      out.files.push_back(m->file);
    for (const load::Problem& p : m->problems) out.problems.push_back(p);
    for (const model::Resource& r : m->objects) acc.push_back(objectOf(r));
  }

  // Every .yaml and .yml file under `folder` (a sub-folder with a kustomization as one
  // kustomization), as Flux's kustomize-controller generates a kustomization for a path
  // without one.
  void addGenerated(const std::string& folder, Objects& acc, const Overrides& overrides,
                    unsigned depth) {
    for (const std::string& name : repo().entries(folder)) {
      const std::string path = folder.empty() ? name : folder + "/" + name;
      if (repo().isFolder(path)) {
        if (kustomizationIn(path)) {
          Objects sub;
          accumulate(path, sub, depth + 1, false, overrides.file, overrides.at);
          for (Object& o : sub) acc.push_back(std::move(o));
        } else if (depth < kMaxNesting) {
          addGenerated(path, acc, overrides, depth + 1);
        }
        continue;
      }
      if (name.ends_with(".yaml") || name.ends_with(".yml"))
        addFile(path, acc, overrides.file, overrides.at);
    }
  }

  Object* findObject(Objects& acc, std::string_view group, std::string_view version,
                     std::string_view kind, std::string_view name, std::string_view space,
                     bool checkVersion, int* count) {
    Object* found = nullptr;
    *count = 0;
    for (Object& o : acc) {
      if (o.r.group != group || o.r.kind != kind) continue;
      if (checkVersion && !version.empty() && o.r.version != version) continue;
      if (!o.hasAny(name)) continue;
      const bool sameSpace =
          std::any_of(o.spaces.begin(), o.spaces.end(),
                      [&](const std::string& s) { return effective(s) == effective(space); });
      if (!sameSpace && namespacedOrUnknown(o)) continue;
      if (!found) found = &o;
      ++*count;
    }
    return found;
  }

  // Builds the kustomization of `folder` into `acc`: its own resources in their own
  // accumulator, components on the parent's (`component`), then its transformers.
  void accumulate(const std::string& folder, Objects& acc, unsigned depth, bool component,
                  const model::SourceFile* from, NodeRef at, const Overrides* overrides = nullptr) {
    std::optional<std::string> path = kustomizationIn(folder);
    if (!path) {
      if (overrides) {  // a Flux path without a kustomization: generated
        addGenerated(folder, acc, *overrides, depth);
        transform(acc, nullptr, NodeRef(), folder, overrides);
        return;
      }
      fail(from, at,
           "kustomize cannot build this: " + (folder.empty() ? std::string(".") : folder) +
               " has no kustomization.yaml, kustomization.yml or Kustomization");
      return;
    }
    if (depth > kMaxNesting || std::find(chain.begin(), chain.end(), *path) != chain.end()) {
      fail(from, at, "kustomize cannot build this: " + *path + " includes itself");
      return;
    }
    std::string error;
    const model::SourceFile* file = document(*path, error);
    if (!file) {
      fail(from, at, "kustomize cannot build this: " + *path + " cannot be read (" + error + ")");
      return;
    }
    NodeRef k = file->tree->documents().empty() ? NodeRef() : file->tree->root(0);
    if (!k.isMapping()) {
      problem(load::ProblemKind::UnitBuild, {*path, {1, 1}, {1, 1}},
              "kustomize cannot build this kustomization: it is not a mapping of fields");
      return;
    }
    chain.push_back(*path);
    std::vector<std::string> unsupported;
    for (auto [key, value] : k.entries())
      if (!applied(key.str())) unsupported.push_back(std::string(key.str()));
    if (!unsupported.empty()) {
      std::string list;
      for (const std::string& u : unsupported) list += (list.empty() ? "" : ", ") + u;
      problem(load::ProblemKind::UnitUnsupported, where(file, k.keyNode(unsupported.front())),
              "kustomization fields not applied here: " + list);
      for (const std::string& u : unsupported) out.unsupported.push_back(*path + ": " + u);
    }
    const bool isComponent = k.get("kind").str() == "Component";
    if (component && !isComponent)
      fail(from, at, "kustomize cannot build this: " + *path + " is not a Component");
    if (!component && isComponent)
      fail(from, at,
           "kustomize cannot build this: " + *path + " is a Component, named as a resource");

    // Resources (bases are resources), depth first, each folder in its own accumulator.
    for (std::string_view key : {"resources", "bases"})
      for (NodeRef entry : k.get(key).items()) {
        std::string_view text = entry.str();
        if (isRemote(text)) {
          problem(load::ProblemKind::UnitUnsupported, where(file, entry),
                  "remote resource " + std::string(text) +
                      " is not read: its objects are taken to exist elsewhere");
          continue;
        }
        std::optional<std::string> target = load::joinPath(folder, text);
        if (!target) {
          fail(file, entry,
               "kustomize cannot build this: " + std::string(text) + " leaves the repository");
          continue;
        }
        if (repo().isFile(*target)) {
          addFile(*target, acc, file, entry);
        } else if (repo().isFolder(*target)) {
          Objects sub;
          accumulate(*target, sub, depth + 1, false, file, entry);
          for (Object& o : sub) acc.push_back(std::move(o));
        } else {
          fail(file, entry,
               "kustomize cannot build this: resource " + std::string(text) + " does not exist");
        }
      }
    generators(k, file, folder, acc);
    for (NodeRef entry : k.get("components").items()) {
      std::optional<std::string> target = load::joinPath(folder, entry.str());
      if (!target || !repo().isFolder(*target)) {
        fail(file, entry,
             "kustomize cannot build this: component " + std::string(entry.str()) +
                 " is not a folder of the repository");
        continue;
      }
      accumulate(*target, acc, depth + 1, true, file, entry);
    }
    transform(acc, file, k, folder, overrides);
    chain.pop_back();
  }

  void generators(NodeRef k, const model::SourceFile* file, const std::string& folder,
                  Objects& acc) {
    NodeRef options = k.get("generatorOptions");
    for (bool secret : {false, true})
      for (NodeRef entry : k.get(secret ? "secretGenerator" : "configMapGenerator").items()) {
        Generated g =
            generate(entry, secret, options, [&](const std::string& p, std::string& error) {
              std::optional<std::string> target = load::joinPath(folder, p);
              if (!target) {
                error = "it leaves the repository";
                return std::optional<std::string>();
              }
              std::optional<std::string> text = sources.text(*target, &error);
              if (text) out.read.insert(*target);
              return text;
            });
        if (!g.error.empty()) {
          fail(file, entry, "kustomize cannot build this generator: " + g.error);
          continue;
        }
        int count = 0;
        Object* existing = findObject(acc, "", "v1", secret ? "Secret" : "ConfigMap", g.name,
                                      g.namespace_, false, &count);
        if (g.behavior == "merge" || g.behavior == "replace") {
          if (!existing) {
            fail(file, entry,
                 "kustomize cannot build this generator: " + g.name + " does not exist to " +
                     g.behavior);
            continue;
          }
          EditNode& target = existing->edited();
          if (g.behavior == "replace") {
            for (std::string_view field : {"data", "binaryData"}) target.erase(field);
          }
          for (std::string_view field : {"data", "binaryData"})
            if (const EditNode* add = g.object.get(field))
              for (std::size_t i = 0; i + 1 < add->children.size(); i += 2)
                target.child(field, entry).set(add->children[i].text, add->children[i + 1]);
          existing->hashed = existing->hashed && g.hashed;
          continue;
        }
        if (existing) {
          fail(file, entry,
               "kustomize cannot build this generator: " + g.name +
                   " exists already; give it behavior: merge or replace");
          continue;
        }
        Object o;
        o.generated = true;
        o.hashed = g.hashed;
        o.behavior = g.behavior;
        o.r.apiVersion = "v1";
        o.r.version = "v1";
        o.r.kind = secret ? "Secret" : "ConfigMap";
        o.r.file = file;
        o.names.push_back(g.name);
        o.spaces.push_back(g.namespace_);
        o.edit = std::move(g.object);
        acc.push_back(std::move(o));
      }
  }

  // A patch file's documents (or an inline patch's), as parsed trees kept for positions.
  std::vector<NodeRef> patchDocuments(NodeRef spec, const std::string& folder,
                                      const model::SourceFile* file, bool inline_) {
    std::vector<NodeRef> docs;
    const yaml::Tree* tree = nullptr;
    if (inline_) {
      yaml::ParseResult parsed = yaml::parse(std::string(spec.str()), {}, false);
      if (!parsed.problems.empty()) {
        fail(file, spec,
             "kustomize cannot build this: the inline patch is not YAML (" +
                 parsed.problems.front().message + ")");
        return docs;
      }
      // A block scalar's text starts on the next line, indented.
      if (spec.style() == yaml::ScalarStyle::Block && spec.start().line > 0)
        parsed.tree->shiftMarks(spec.start().line, spec.start().column + 1);
      tree = parsed.tree.get();
      treePaths.emplace(tree, file ? file->path : std::string());
      sources.arena().trees.push_back(std::move(parsed.tree));
    } else {
      std::optional<std::string> target = load::joinPath(folder, spec.str());
      std::string error = "it leaves the repository";
      const model::SourceFile* patch = target ? document(*target, error) : nullptr;
      if (!patch) {
        fail(file, spec,
             "kustomize cannot build this: patch " + std::string(spec.str()) + " cannot be read (" +
                 error + ")");
        return docs;
      }
      tree = patch->tree.get();
    }
    for (std::size_t d = 0; d < tree->documents().size(); ++d)
      if (!tree->root(d).isNull()) docs.push_back(tree->root(d));
    return docs;
  }

  // The objects a patch's `target` selects (kustomize's Selector: anchored RE2 patterns).
  std::vector<Object*> select(Objects& acc, NodeRef target) {
    auto pattern = [&](std::string_view key) -> std::unique_ptr<RE2> {
      NodeRef v = target.get(key);
      if (!v.isScalar() || v.str().empty()) return nullptr;
      return std::make_unique<RE2>("^(?:" + std::string(v.str()) + ")$", RE2::Quiet);
    };
    auto group = pattern("group"), version = pattern("version"), kind = pattern("kind"),
         name = pattern("name"), space = pattern("namespace");
    std::optional<StringSelector> labels, annotations;
    if (NodeRef l = target.get("labelSelector"); l.isScalar()) labels.emplace(l.str());
    if (NodeRef a = target.get("annotationSelector"); a.isScalar()) annotations.emplace(a.str());
    auto matches = [](const std::unique_ptr<RE2>& re, std::string_view value) {
      return !re || RE2::FullMatch(value, *re);
    };
    std::vector<Object*> out;
    for (Object& o : acc) {
      if (!matches(group, o.r.group) || !matches(version, o.r.version) || !matches(kind, o.r.kind))
        continue;
      if (name && std::none_of(o.names.begin(), o.names.end(),
                               [&](const std::string& n) { return RE2::FullMatch(n, *name); }))
        continue;
      if (space && std::none_of(o.spaces.begin(), o.spaces.end(), [&](const std::string& s) {
            return RE2::FullMatch(namespacedOrUnknown(o) ? effective(s) : "_non_namespaceable_",
                                  *space);
          }))
        continue;
      NodeRef meta = o.edit ? NodeRef() : o.r.node.get("metadata");
      auto mapOf = [&](std::string_view field) {
        std::map<std::string, std::string, std::less<>> values;
        if (o.edit) {
          if (const EditNode* m = o.edit->get("metadata"))
            if (const EditNode* f = m->get(field))
              for (std::size_t i = 0; i + 1 < f->children.size(); i += 2)
                values[f->children[i].text] = f->children[i + 1].text;
        } else {
          for (auto [kk, vv] : meta.get(field).entries())
            values[std::string(kk.str())] = std::string(vv.str());
        }
        return values;
      };
      if (labels && !labels->matches(mapOf("labels"))) continue;
      if (annotations && !annotations->matches(mapOf("annotations"))) continue;
      out.push_back(&o);
    }
    return out;
  }

  void applySmp(Object& o, NodeRef patch) {
    strategicMerge(o.edited(), patch, builtinGroup(o.r.group));
  }

  // A strategic-merge patch document without a target: it names the one object it patches.
  void patchById(Objects& acc, NodeRef doc, const model::SourceFile* file, NodeRef at) {
    std::string_view apiVersion = doc.get("apiVersion").str();
    std::size_t slash = apiVersion.find('/');
    std::string_view group = slash == std::string_view::npos ? "" : apiVersion.substr(0, slash);
    std::string_view version =
        slash == std::string_view::npos ? apiVersion : apiVersion.substr(slash + 1);
    std::string_view kind = doc.get("kind").str();
    std::string_view name = doc.get("metadata").get("name").str();
    std::string_view space = doc.get("metadata").get("namespace").str();
    int count = 0;
    Object* target = findObject(acc, group, version, kind, name, space, true, &count);
    if (count != 1) {
      fail(file, at,
           "kustomize cannot build this: the patch for " + std::string(kind) + " " +
               std::string(name) +
               (count == 0 ? " matches no object of the build" : " matches several objects"));
      return;
    }
    applySmp(*target, doc);
  }

  void applyPatch(Objects& acc, NodeRef entry, const std::string& folder,
                  const model::SourceFile* file) {
    // `patches:` entries: {path | patch, target}; a string is a file (the legacy form).
    NodeRef spec = entry.isScalar() ? entry : entry.get("path");
    bool inline_ = false;
    if (!spec) {
      spec = entry.get("patch");
      inline_ = true;
    } else if (entry.isScalar() && spec.str().find('\n') != std::string_view::npos) {
      inline_ = true;
    }
    if (!spec.isScalar()) {
      fail(file, entry, "kustomize cannot build this: a patch needs a path or a patch");
      return;
    }
    std::vector<NodeRef> docs = patchDocuments(spec, folder, file, inline_);
    if (docs.empty()) return;
    NodeRef target = entry.get("target");
    if (docs.front().isSequence()) {  // a JSON 6902 patch
      if (!target) {
        fail(file, entry, "kustomize cannot build this: a JSON 6902 patch needs a target");
        return;
      }
      std::vector<Object*> selected = select(acc, target);
      for (Object* o : selected)
        if (std::string why = jsonPatch(o->edited(), docs.front()); !why.empty())
          fail(file, spec,
               "kustomize cannot build this: the JSON patch fails on " + std::string(o->r.kind) +
                   " " + o->name() + ": " + why);
      return;
    }
    for (NodeRef doc : docs) {
      if (target) {
        for (Object* o : select(acc, target)) applySmp(*o, doc);
      } else {
        patchById(acc, doc, file, spec);
      }
    }
  }

  void rename(Object& o, std::string name) {
    if (name != o.name()) o.names.push_back(std::move(name));
  }

  // The transformers of one kustomization, in kustomize's order (api/internal/target).
  void transform(Objects& acc, const model::SourceFile* file, NodeRef k, const std::string& folder,
                 const Overrides* overrides) {
    for (NodeRef entry : k.get("patchesStrategicMerge").items()) {
      const bool inline_ = entry.str().find('\n') != std::string_view::npos;
      for (NodeRef doc : patchDocuments(entry, folder, file, inline_))
        patchById(acc, doc, file, entry);
    }
    for (NodeRef entry : k.get("patches").items()) applyPatch(acc, entry, folder, file);
    if (overrides)
      for (NodeRef entry : overrides->patches) applyPatch(acc, entry, folder, overrides->file);

    std::string space(k.get("namespace").str());
    if (overrides && !overrides->namespace_.empty()) space = overrides->namespace_;
    if (!space.empty())
      for (Object& o : acc) {
        if (o.r.group.empty() && o.r.kind == "Namespace" && o.r.version == "v1")
          rename(o, space);  // a v1 Namespace is renamed to the namespace set
        else if (namespacedOrUnknown(o) && o.space() != space)
          o.spaces.push_back(space);
      }

    std::string prefix(k.get("namePrefix").str()), suffix(k.get("nameSuffix").str());
    if (overrides && !overrides->namePrefix.empty()) prefix = overrides->namePrefix;
    if (overrides && !overrides->nameSuffix.empty()) suffix = overrides->nameSuffix;
    if (!prefix.empty() || !suffix.empty())
      for (Object& o : acc) {
        if (o.r.kind == "CustomResourceDefinition" || o.r.kind == "Namespace" ||
            (o.r.kind == "APIService" && o.r.group == "apiregistration.k8s.io"))
          continue;
        rename(o, prefix + o.name() + suffix);
      }

    labels(acc, k);
    for (auto [key, value] : k.get("commonAnnotations").entries())
      for (Object& o : acc) {
        EditNode v = EditNode::copy(value);
        setAt(o.edited(), {"metadata", "annotations"}, key.str(), v, true, key);
        if (isWorkload(o.r.kind) && o.r.kind != "Pod" && o.r.kind != "CronJob")
          setAt(o.edited(), {"spec", "template", "metadata", "annotations"}, key.str(), v, true,
                key);
      }

    for (NodeRef entry : k.get("patchesJson6902").items()) {
      NodeRef spec = entry.get("path");
      bool inline_ = false;
      if (!spec) {
        spec = entry.get("patch");
        inline_ = true;
      }
      std::vector<NodeRef> docs =
          spec ? patchDocuments(spec, folder, file, inline_) : std::vector<NodeRef>{};
      if (docs.empty() || !docs.front().isSequence()) {
        fail(file, entry,
             "kustomize cannot build this: patchesJson6902 needs a list of operations");
        continue;
      }
      for (Object* o : select(acc, entry.get("target")))
        if (std::string why = jsonPatch(o->edited(), docs.front()); !why.empty())
          fail(file, spec,
               "kustomize cannot build this: the JSON patch fails on " + std::string(o->r.kind) +
                   " " + o->name() + ": " + why);
    }

    for (NodeRef entry : k.get("replicas").items()) {
      std::string_view name = entry.get("name").str();
      NodeRef count = entry.get("count");
      bool matched = false;
      for (Object& o : acc) {
        if (!(o.r.kind == "Deployment" || o.r.kind == "StatefulSet" || o.r.kind == "ReplicaSet" ||
              o.r.kind == "ReplicationController") ||
            !o.hasAny(name))
          continue;
        matched = true;
        setAt(o.edited(), {"spec"}, "replicas", EditNode::copy(count), true, entry);
      }
      if (!matched)
        fail(file, entry,
             "kustomize cannot build this: replicas names " + std::string(name) +
                 ", which is no Deployment, StatefulSet, ReplicaSet or "
                 "ReplicationController of the build");
    }

    for (NodeRef entry : k.get("images").items()) images(acc, entry);
  }

  // commonLabels (labels, selectors and pod templates) and labels entries
  // (includeSelectors, includeTemplates).
  void labels(Objects& acc, NodeRef k) {
    struct Label {
      NodeRef key, value;
      bool selectors, templates;
    };
    std::vector<Label> all;
    for (auto [key, value] : k.get("commonLabels").entries())
      all.push_back({key, value, true, true});
    for (NodeRef entry : k.get("labels").items()) {
      const bool selectors = entry.get("includeSelectors").asBool().value_or(false);
      const bool templates = selectors || entry.get("includeTemplates").asBool().value_or(false);
      for (auto [key, value] : entry.get("pairs").entries())
        all.push_back({key, value, selectors, templates});
    }
    for (const Label& l : all)
      for (Object& o : acc) {
        const EditNode v = EditNode::copy(l.value);
        const std::string_view key = l.key.str(), kind = o.r.kind;
        setAt(o.edited(), {"metadata", "labels"}, key, v, true, l.key);
        const bool templated = kind == "Deployment" || kind == "StatefulSet" ||
                               kind == "DaemonSet" || kind == "ReplicaSet" || kind == "Job" ||
                               kind == "ReplicationController";
        if (l.templates && templated)
          setAt(o.edited(), {"spec", "template", "metadata", "labels"}, key, v, true, l.key);
        if (l.templates && kind == "CronJob") {
          setAt(o.edited(), {"spec", "jobTemplate", "metadata", "labels"}, key, v, true, l.key);
          setAt(o.edited(), {"spec", "jobTemplate", "spec", "template", "metadata", "labels"}, key,
                v, true, l.key);
        }
        if (!l.selectors) continue;
        if ((kind == "Service" || kind == "ReplicationController") && o.r.group.empty())
          setAt(o.edited(), {"spec", "selector"}, key, v, true, l.key);
        else if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
                 kind == "ReplicaSet")
          setAt(o.edited(), {"spec", "selector", "matchLabels"}, key, v, true, l.key);
        else if (kind == "Job" || kind == "PodDisruptionBudget")
          setAt(o.edited(), {"spec", "selector", "matchLabels"}, key, v, false, l.key);
        else if (kind == "CronJob")
          setAt(o.edited(), {"spec", "jobTemplate", "spec", "selector", "matchLabels"}, key, v,
                false, l.key);
        else if (kind == "NetworkPolicy")
          setAt(o.edited(), {"spec", "podSelector", "matchLabels"}, key, v, false, l.key);
      }
  }

  // images: every `containers` and `initContainers` list of an object (kustomize's legacy
  // filter walks the whole object), an image whose name matches taking the new name, tag or
  // digest.
  void images(Objects& acc, NodeRef entry) {
    const std::string name(entry.get("name").str());
    if (name.empty()) return;
    std::function<void(EditNode&, unsigned)> walk = [&](EditNode& n, unsigned depth) {
      if (depth > 64) return;
      if (n.isMapping()) {
        for (std::size_t i = 0; i + 1 < n.children.size(); i += 2) {
          EditNode& v = n.children[i + 1];
          const std::string& key = n.children[i].text;
          if ((key == "containers" || key == "initContainers") && v.isSequence())
            for (EditNode& c : v.children) retag(c, entry, name);
          else
            walk(v, depth + 1);
        }
      } else if (n.isSequence()) {
        for (EditNode& c : n.children) walk(c, depth + 1);
      }
    };
    for (Object& o : acc) {
      if (o.r.kind == "CustomResourceDefinition") continue;
      // Only objects that name the image are copied.
      if (!o.edit && std::string_view(o.r.node.tree() ? o.r.node.tree()->text() : "").find(name) ==
                         std::string_view::npos)
        continue;
      walk(o.edited(), 0);
    }
  }

  void retag(EditNode& container, NodeRef entry, const std::string& name) {
    EditNode* image = container.get("image");
    if (!image || !image->isScalar()) return;
    std::string_view text = image->text;
    std::string_view repo = text, tag, digest;
    if (std::size_t at = repo.find('@'); at != std::string_view::npos) {
      digest = repo.substr(at + 1);
      repo = repo.substr(0, at);
    }
    if (std::size_t colon = repo.rfind(':');
        colon != std::string_view::npos && repo.find('/', colon) == std::string_view::npos) {
      tag = repo.substr(colon + 1);
      repo = repo.substr(0, colon);
    }
    if (repo != name) return;
    std::string out(entry.get("newName") ? entry.get("newName").str() : repo);
    std::string_view newTag = entry.get("newTag").str(), newDigest = entry.get("digest").str();
    if (!newTag.empty() || !newDigest.empty()) {
      if (!newTag.empty()) out += ":" + std::string(newTag);
      if (!newDigest.empty()) out += "@" + std::string(newDigest);
    } else {
      if (!tag.empty()) out += ":" + std::string(tag);
      if (!digest.empty()) out += "@" + std::string(digest);
    }
    *image = EditNode::scalar(out, entry);
  }

  // At the top of a build: the hash suffixes of generated objects, then the references to
  // renamed objects kustomize rewrites (its nameReference configuration, for the fields the
  // analysis reads: a pod template's ConfigMaps, Secrets, ServiceAccount and claims, a
  // StatefulSet's Service).
  void finishNames(Objects& acc) {
    for (Object& o : acc)
      if (o.generated && o.hashed && o.edit)
        rename(o, o.name() + "-" + contentHash(*o.edit, o.name()));
    struct Renamed {
      std::string kind, space, from, to;
    };
    std::vector<Renamed> renamed;
    for (const Object& o : acc)
      if (o.names.size() > 1)
        for (std::size_t i = 0; i + 1 < o.names.size(); ++i)
          renamed.push_back({std::string(o.r.kind), o.space(), o.names[i], o.name()});
    if (renamed.empty()) return;
    auto lookup = [&](std::string_view kind, std::string_view space,
                      std::string_view name) -> const std::string* {
      for (const Renamed& r : renamed)
        if (r.kind == kind && r.from == name && effective(r.space) == effective(space))
          return &r.to;
      return nullptr;
    };
    auto fix = [&](EditNode* field, std::string_view kind, std::string_view space) {
      if (!field || !field->isScalar()) return;
      if (const std::string* to = lookup(kind, space, field->text)) field->text = *to;
    };
    for (Object& o : acc) {
      if (!isWorkload(o.r.kind)) continue;
      // Copy only a workload that names something renamed.
      EditNode probe = o.edit ? *o.edit : EditNode::copy(o.r.node);
      EditNode* spec = podSpec(probe, o.r.kind);
      if (!spec) continue;
      const std::string space = o.space();
      fix(spec->get("serviceAccountName"), "ServiceAccount", space);
      if (EditNode* pulls = spec->get("imagePullSecrets"))
        for (EditNode& p : pulls->children) fix(p.get("name"), "Secret", space);
      if (EditNode* volumes = spec->get("volumes"))
        for (EditNode& v : volumes->children) {
          if (EditNode* cm = v.get("configMap")) fix(cm->get("name"), "ConfigMap", space);
          if (EditNode* s = v.get("secret")) fix(s->get("secretName"), "Secret", space);
          if (EditNode* c = v.get("persistentVolumeClaim"))
            fix(c->get("claimName"), "PersistentVolumeClaim", space);
          if (EditNode* projected = v.get("projected"))
            if (EditNode* sources = projected->get("sources"))
              for (EditNode& s : sources->children) {
                if (EditNode* cm = s.get("configMap")) fix(cm->get("name"), "ConfigMap", space);
                if (EditNode* sec = s.get("secret")) fix(sec->get("name"), "Secret", space);
              }
        }
      for (std::string_view list : {"containers", "initContainers"})
        if (EditNode* containers = spec->get(list))
          for (EditNode& c : containers->children) {
            if (EditNode* envFrom = c.get("envFrom"))
              for (EditNode& e : envFrom->children) {
                if (EditNode* cm = e.get("configMapRef")) fix(cm->get("name"), "ConfigMap", space);
                if (EditNode* s = e.get("secretRef")) fix(s->get("name"), "Secret", space);
              }
            if (EditNode* env = c.get("env"))
              for (EditNode& e : env->children)
                if (EditNode* from = e.get("valueFrom")) {
                  if (EditNode* cm = from->get("configMapKeyRef"))
                    fix(cm->get("name"), "ConfigMap", space);
                  if (EditNode* s = from->get("secretKeyRef")) fix(s->get("name"), "Secret", space);
                }
          }
      if (o.r.kind == "StatefulSet")
        if (EditNode* s = probe.get("spec")) fix(s->get("serviceName"), "Service", space);
      o.edit = std::move(probe);
    }
  }

  // The objects as Resources: names and namespaces kept in the arena, changed content built
  // into a tree of its own.
  void materialize(Objects& acc) {
    Arena& arena = sources.arena();
    for (Object& o : acc) {
      model::Resource r = o.r;
      if (o.edit) {
        const yaml::Tree* own = r.file && r.file->tree ? r.file->tree.get() : nullptr;
        auto pathOf = [&](const yaml::Tree* t) {
          if (t == own) return std::string();
          auto it = treePaths.find(t);
          return it == treePaths.end() ? std::string() : it->second;
        };
        arena.trees.push_back(yaml::build(*o.edit, pathOf));
        r.node = arena.trees.back()->root(0);
        r.document = 0;
        r.metadataNode = {};
        r.specNode = {};
        // A JSON 6902 patch may change the kind (kustomize's allowKindChange): the identity
        // is the object's as built.
        if (std::string_view kind = r.node.get("kind").str(); !kind.empty() && kind != r.kind)
          r.kind = arena.keep(std::string(kind));
        if (std::string_view api = r.node.get("apiVersion").str();
            !api.empty() && api != r.apiVersion) {
          r.apiVersion = arena.keep(std::string(api));
          const std::size_t slash = r.apiVersion.find('/');
          r.group =
              slash == std::string_view::npos ? std::string_view() : r.apiVersion.substr(0, slash);
          r.version =
              slash == std::string_view::npos ? r.apiVersion : r.apiVersion.substr(slash + 1);
        }
      }
      if (o.names.size() > 1 || o.generated) r.name = arena.keep(o.name());
      if (o.spaces.size() > 1 || o.generated) {
        r.namespace_ = arena.keep(o.space());
        r.namespaceWritten = !o.space().empty();
      }
      out.objects.push_back(r);
    }
  }
};

Kustomizer::Kustomizer(Sources& sources) : sources_(sources) {}

std::optional<std::string> Kustomizer::kustomizationIn(const std::string& folder) const {
  State state(sources_);
  return state.kustomizationIn(folder);
}

Build Kustomizer::build(const std::string& folder, const Overrides& overrides) {
  State state(sources_);
  Objects acc;
  state.accumulate(folder, acc, 0, false, overrides.file, overrides.at, &overrides);
  state.finishNames(acc);
  state.materialize(acc);
  return std::move(state.out);
}

std::vector<std::string> Kustomizer::includedFolders(const std::string& kustomization) {
  std::vector<std::string> out;
  const model::SourceFile* file = sources_.document(kustomization);
  if (!file || file->tree->documents().empty()) return out;
  NodeRef k = file->tree->root(0);
  const std::string folder = load::folderOf(kustomization);
  for (std::string_view key : {"resources", "bases", "components"})
    for (NodeRef entry : k.get(key).items())
      if (std::optional<std::string> target = load::joinPath(folder, entry.str());
          target && !isRemote(entry.str()) && sources_.repository().isFolder(*target))
        out.push_back(*target);
  return out;
}

std::vector<std::string> Kustomizer::consumedFiles(const std::string& kustomization) {
  std::vector<std::string> out;
  const model::SourceFile* file = sources_.document(kustomization);
  if (!file || file->tree->documents().empty()) return out;
  NodeRef k = file->tree->root(0);
  const std::string folder = load::folderOf(kustomization);
  auto add = [&](std::string_view p) {
    if (p.find('\n') != std::string_view::npos) return;
    if (std::optional<std::string> target = load::joinPath(folder, p)) out.push_back(*target);
  };
  for (NodeRef entry : k.get("patches").items())
    add(entry.isScalar() ? entry.str() : entry.get("path").str());
  for (NodeRef entry : k.get("patchesStrategicMerge").items()) add(entry.str());
  for (NodeRef entry : k.get("patchesJson6902").items()) add(entry.get("path").str());
  for (std::string_view generator : {"configMapGenerator", "secretGenerator"})
    for (NodeRef entry : k.get(generator).items()) {
      for (NodeRef f : entry.get("files").items()) {
        std::string_view spec = f.str();
        add(spec.substr(spec.find('=') == std::string_view::npos ? 0 : spec.find('=') + 1));
      }
      for (NodeRef e : entry.get("envs").items()) add(e.str());
      if (NodeRef e = entry.get("env"); e.isScalar()) add(e.str());
    }
  return out;
}

}  // namespace pg::units
