#include "lib/units/patch.h"

#include <string_view>
#include <vector>

namespace pg::units {

namespace {

using yaml::EditNode;
using yaml::NodeRef;

// The merge key of a built-in list field, from Kubernetes' patchMergeKey tags; "" when the
// list is replaced whole.
std::string_view mergeKeyOf(std::string_view field, NodeRef items) {
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" ||
      field == "env" || field == "volumes" || field == "imagePullSecrets")
    return "name";
  if (field == "volumeMounts") return "mountPath";
  if (field == "volumeDevices") return "devicePath";
  if (field == "hostAliases") return "ip";
  if (field == "topologySpreadConstraints") return "topologyKey";
  if (field == "ports") {
    // A container's ports by containerPort, a Service's by port.
    for (NodeRef item : items.items())
      if (item.get("containerPort")) return "containerPort";
    return "port";
  }
  return {};
}

bool isDirective(NodeRef key) {
  return key.str().starts_with("$");
}

// A copy of a patch value with the directives dropped (they are instructions, not content).
EditNode clean(NodeRef value) {
  EditNode out = EditNode::copy(value);
  std::vector<EditNode*> stack{&out};
  while (!stack.empty()) {
    EditNode* n = stack.back();
    stack.pop_back();
    if (n->isMapping()) {
      for (std::size_t i = 0; i + 1 < n->children.size();) {
        if (n->children[i].isScalar() && n->children[i].text.starts_with("$")) {
          n->children.erase(n->children.begin() + static_cast<std::ptrdiff_t>(i),
                            n->children.begin() + static_cast<std::ptrdiff_t>(i) + 2);
          continue;
        }
        i += 2;
      }
    }
    for (EditNode& c : n->children) stack.push_back(&c);
  }
  return out;
}

std::string_view directiveOf(NodeRef map) {
  return map.isMapping() ? map.get("$patch").str() : std::string_view();
}

void merge(EditNode& target, NodeRef patch, std::string_view field, bool builtin, unsigned depth);

void mergeList(EditNode& target, NodeRef patch, std::string_view field, bool builtin,
               unsigned depth) {
  std::string_view key = builtin ? mergeKeyOf(field, patch) : std::string_view();
  bool replace = false;
  for (NodeRef item : patch.items())
    if (directiveOf(item) == "replace" && item.size() == 1) replace = true;
  if (key.empty() || replace || !target.isSequence()) {
    target = EditNode::sequence(patch);
    target.made = false;
    for (NodeRef item : patch.items())
      if (!(directiveOf(item) == "replace" && item.size() == 1))
        target.children.push_back(clean(item));
    return;
  }
  std::vector<EditNode> added;
  for (NodeRef item : patch.items()) {
    std::string_view id = item.get(key).str();
    EditNode* found = nullptr;
    std::size_t at = 0;
    for (std::size_t i = 0; i < target.children.size(); ++i) {
      const EditNode* k = target.children[i].get(key);
      if (k && k->isScalar() && !id.empty() && k->text == id) {
        found = &target.children[i];
        at = i;
        break;
      }
    }
    if (directiveOf(item) == "delete") {
      if (found) target.children.erase(target.children.begin() + static_cast<std::ptrdiff_t>(at));
      continue;
    }
    if (found)
      merge(*found, item, {}, builtin, depth + 1);
    else
      added.push_back(clean(item));
  }
  // kustomize prepends what the patch adds (merge2, ListIncreaseDirection: Prepend).
  target.children.insert(target.children.begin(), std::make_move_iterator(added.begin()),
                         std::make_move_iterator(added.end()));
}

void merge(EditNode& target, NodeRef patch, std::string_view field, bool builtin, unsigned depth) {
  if (depth > 200) return;  // deeper than any manifest: the parser's bound guards the rest
  if (patch.isSequence()) {
    mergeList(target, patch, field, builtin, depth);
    return;
  }
  if (!patch.isMapping()) {
    target = EditNode::copy(patch);
    return;
  }
  if (directiveOf(patch) == "replace" || !target.isMapping()) {
    target = clean(patch);
    return;
  }
  for (auto [k, v] : patch.entries()) {
    if (isDirective(k)) continue;
    std::string_view name = k.str();
    if (v.isNull() || directiveOf(v) == "delete") {
      target.erase(name);
      continue;
    }
    if (EditNode* existing = target.get(name)) {
      merge(*existing, v, name, builtin, depth + 1);
      continue;
    }
    EditNode value = clean(v);
    target.children.push_back(EditNode::copy(k));
    target.children.push_back(std::move(value));
  }
}

// RFC 6901: "/a/b~1c/0" → {"a", "b/c", "0"}.
std::vector<std::string> pointer(std::string_view path, bool& ok) {
  std::vector<std::string> out;
  ok = path.empty() || path.front() == '/';
  if (!ok || path.empty()) return out;
  path.remove_prefix(1);
  while (true) {
    std::size_t slash = path.find('/');
    std::string_view raw = path.substr(0, slash);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += raw[i];
      }
    }
    out.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// An array index of a JSON pointer token: digits only; `allowEnd` takes "-" and size().
bool indexOf(const std::string& token, std::size_t size, bool allowEnd, std::size_t& out) {
  if (token == "-" && allowEnd) {
    out = size;
    return true;
  }
  if (token.empty() || token.size() > 9 || (token.size() > 1 && token[0] == '0')) return false;
  out = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::size_t>(c - '0');
  }
  return allowEnd ? out <= size : out < size;
}

// The node a pointer names (all but its last token when `parent`); null when absent.
EditNode* resolve(EditNode& root, const std::vector<std::string>& tokens, bool parent) {
  EditNode* n = &root;
  const std::size_t end = parent ? tokens.size() - 1 : tokens.size();
  for (std::size_t i = 0; i < end; ++i) {
    if (n->isMapping()) {
      n = n->get(tokens[i]);
    } else if (n->isSequence()) {
      std::size_t at = 0;
      if (!indexOf(tokens[i], n->children.size(), false, at)) return nullptr;
      n = &n->children[at];
    } else {
      return nullptr;
    }
    if (!n) return nullptr;
  }
  return n;
}

std::string add(EditNode& root, const std::vector<std::string>& tokens, EditNode value,
                bool replace) {
  if (tokens.empty()) {
    root = std::move(value);
    return {};
  }
  EditNode* parent = resolve(root, tokens, true);
  if (!parent) return "its parent does not exist";
  const std::string& last = tokens.back();
  if (parent->isMapping()) {
    if (replace && !parent->get(last)) return "it does not exist";
    parent->set(last, std::move(value));
    return {};
  }
  if (parent->isSequence()) {
    std::size_t at = 0;
    if (!indexOf(last, parent->children.size(), !replace, at)) return "no such index";
    if (replace)
      parent->children[at] = std::move(value);
    else
      parent->children.insert(parent->children.begin() + static_cast<std::ptrdiff_t>(at),
                              std::move(value));
    return {};
  }
  return "its parent is not an object or a list";
}

std::string remove(EditNode& root, const std::vector<std::string>& tokens, EditNode* removed) {
  if (tokens.empty()) return "the whole object cannot be removed";
  EditNode* parent = resolve(root, tokens, true);
  if (!parent) return "its parent does not exist";
  const std::string& last = tokens.back();
  if (parent->isMapping()) {
    EditNode* value = parent->get(last);
    if (!value) return "it does not exist";
    if (removed) *removed = *value;
    parent->erase(last);
    return {};
  }
  if (parent->isSequence()) {
    std::size_t at = 0;
    if (!indexOf(last, parent->children.size(), false, at)) return "no such index";
    if (removed) *removed = parent->children[at];
    parent->children.erase(parent->children.begin() + static_cast<std::ptrdiff_t>(at));
    return {};
  }
  return "its parent is not an object or a list";
}

// Whether two edit nodes hold the same value (for `test`).
bool same(const EditNode& a, NodeRef b) {
  if (a.isScalar()) return b.isScalar() && a.text == b.str();
  if (a.isSequence()) {
    if (!b.isSequence() || b.size() != a.children.size()) return false;
    for (std::size_t i = 0; i < a.children.size(); ++i)
      if (!same(a.children[i], b.at(i))) return false;
    return true;
  }
  if (!b.isMapping() || b.size() != a.size()) return false;
  for (std::size_t i = 0; i + 1 < a.children.size(); i += 2)
    if (!same(a.children[i + 1], b.get(a.children[i].text))) return false;
  return true;
}

}  // namespace

void strategicMerge(EditNode& target, NodeRef patch, bool builtinKind) {
  merge(target, patch, {}, builtinKind, 0);
}

std::string jsonPatch(EditNode& target, NodeRef operations) {
  if (!operations.isSequence()) return "a JSON patch is a list of operations";
  std::size_t index = 0;
  for (NodeRef op : operations.items()) {
    const std::string where = "operation " + std::to_string(index++);
    std::string_view kind = op.get("op").str();
    bool ok = false;
    std::vector<std::string> path = pointer(op.get("path").str(), ok);
    if (!ok)
      return where + ": path " + std::string(op.get("path").str()) + " is not a JSON pointer";
    std::string failed;
    if (kind == "add" || kind == "replace") {
      if (!op.get("value")) return where + " (" + std::string(kind) + ") has no value";
      failed = add(target, path, EditNode::copy(op.get("value")), kind == "replace");
    } else if (kind == "remove") {
      failed = remove(target, path, nullptr);
    } else if (kind == "move" || kind == "copy") {
      std::vector<std::string> from = pointer(op.get("from").str(), ok);
      if (!ok) return where + ": from is not a JSON pointer";
      EditNode value;
      if (kind == "move") {
        failed = remove(target, from, &value);
      } else if (EditNode* source = resolve(target, from, false)) {
        value = *source;
      } else {
        failed = "from does not exist";
      }
      if (failed.empty()) failed = add(target, path, std::move(value), false);
    } else if (kind == "test") {
      EditNode* at = resolve(target, path, false);
      if (!at || !same(*at, op.get("value"))) failed = "the value differs";
    } else {
      return where + ": unknown op \"" + std::string(kind) + "\"";
    }
    if (!failed.empty())
      return where + " (" + std::string(kind) + " " + std::string(op.get("path").str()) +
             "): " + failed;
  }
  return {};
}

}  // namespace pg::units
