#include "lib/diff/diff.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "lib/diff/mesh.h"
#include "lib/model/quote.h"
#include "lib/policy/value.h"

namespace pg::diff {

namespace {

// Values longer than this are cut in reports: a diff line says what changed, the file says
// the rest.
constexpr std::size_t kMaxValueText = 160;

bool needsQuotes(std::string_view text) {
  if (!yaml::plainIsString(text)) return true;
  if (text.front() == ' ' || text.back() == ' ') return true;
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(text.front()) != std::string_view::npos)
    return true;
  return text.find(": ") != std::string_view::npos || text.find(" #") != std::string_view::npos ||
         text.find_first_of(",[]{}\n\t\"\\") != std::string_view::npos;
}

void appendFlow(std::string& out, yaml::NodeRef node, bool sortKeys) {
  if (node.isMapping()) {
    std::vector<std::pair<std::string_view, yaml::NodeRef>> entries;
    for (auto [key, value] : node.entries()) entries.emplace_back(key.str(), value);
    if (sortKeys)
      std::stable_sort(entries.begin(), entries.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
    out += '{';
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i) out += ", ";
      if (needsQuotes(entries[i].first))
        model::appendQuoted(out, entries[i].first);
      else
        out += entries[i].first;
      out += ": ";
      appendFlow(out, entries[i].second, sortKeys);
    }
    out += '}';
  } else if (node.isSequence()) {
    out += '[';
    bool first = true;
    for (yaml::NodeRef item : node.items()) {
      if (!first) out += ", ";
      first = false;
      appendFlow(out, item, sortKeys);
    }
    out += ']';
  } else if (node.isNull()) {
    out += "null";
  } else if (node.isString() && needsQuotes(node.str())) {
    model::appendQuoted(out, node.str());
  } else {
    out += node.str();
  }
}

std::string shortened(std::string text) {
  if (text.size() <= kMaxValueText) return text;
  std::size_t cut = kMaxValueText;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  text.resize(cut);
  return text + "…";
}

// What identifies an object's content: the object without its status and the metadata a
// server writes.
std::size_t contentHash(const model::Resource& r) {
  std::string text;
  for (auto [key, value] : r.node.entries()) {
    if (key.str() == "status") continue;
    text += key.str();
    text += '=';
    if (key.str() == "metadata") {
      text += '{';
      for (auto [k, v] : value.entries()) {
        std::string_view name = k.str();
        if (name == "resourceVersion" || name == "uid" || name == "generation" ||
            name == "managedFields" || name == "selfLink")
          continue;
        text += name;
        text += ':';
        appendFlow(text, v, true);
        text += ',';
      }
      text += '}';
    } else {
      appendFlow(text, value, true);
    }
    text += ';';
  }
  return std::hash<std::string>{}(text);
}

std::string originText(const policy::Origin& o) {
  return o.policy->display() + " (" + std::string(policy::roleName(o.role)) + ", " +
         std::string(policy::levelName(o.level)) + ")";
}

// One side's effective fields, flattened to leaves: a mapping taken whole from one policy is
// descended like a merged one, so that both sides compare field by field whatever the merge
// did.
struct Leaf {
  yaml::NodeRef node;
  policy::Origin origin;
};
using Leaves = std::vector<std::pair<std::string, Leaf>>;

void flattenNode(Leaves& out, const std::string& field, yaml::NodeRef node,
                 const policy::Origin& origin) {
  if (node.isMapping() && node.size() > 0) {
    for (auto [key, value] : node.entries())
      flattenNode(out, policy::joinField(field, key.str()), value, origin);
    return;
  }
  out.push_back({field, {node, origin}});
}

Leaves leavesOf(const policy::Value& value) {
  Leaves out;
  for (const policy::Provenance& p : policy::provenanceOf(value))
    flattenNode(out, p.field, p.node, p.origin);
  return out;
}

struct Entry {
  const model::Resource* target = nullptr;
  const policy::Effective* effective = nullptr;
  std::vector<std::string> path;
};

// target, kind, path steps: the identity of an effective entry on either side.
using EntryKey = std::tuple<std::string, std::string, std::vector<std::string>>;

std::map<EntryKey, Entry> entriesOf(const analysis::Analysis& a) {
  std::map<EntryKey, Entry> out;
  for (const policy::ObjectEffective& object : a.policies.effective) {
    for (const policy::Effective& e : object.effective) {
      std::vector<std::string> path;
      for (const policy::Step& step : e.path) path.push_back(step.display());
      EntryKey key{object.object->display(), e.profile->kind, path};
      out.emplace(std::move(key), Entry{object.object, &e, std::move(path)});
    }
  }
  return out;
}

struct Sides {
  const analysis::Analysis& base;
  const analysis::Analysis& head;
  std::map<std::string, Change> changedPolicies;
  std::set<std::string> changedObjects;  // any kind, policies included
  std::set<std::string> headObjects;
};

std::map<std::string, const model::Resource*> objectsByRef(const analysis::Analysis& a) {
  std::map<std::string, const model::Resource*> out;
  for (const model::Resource* r : a.store.objects()) out.emplace(r->display(), r);
  return out;
}

void comparePolicies(Sides& s, Result& result) {
  auto policiesOf = [](const analysis::Analysis& a) {
    std::map<std::string, const model::Resource*> out;
    for (const policy::Policy& p : a.policies.policies) out.emplace(p.display(), p.resource);
    for (const model::Resource* r : meshPolicies(a)) out.emplace(r->display(), r);
    return out;
  };
  std::map<std::string, const model::Resource*> base = policiesOf(s.base);
  std::map<std::string, const model::Resource*> head = policiesOf(s.head);
  for (const auto& [ref, resource] : head) {
    auto it = base.find(ref);
    if (it == base.end()) {
      result.policies.push_back({ref, Change::Added, resource->locate({})});
    } else if (s.changedObjects.count(ref)) {
      result.policies.push_back({ref, Change::Changed, resource->locate({})});
    }
  }
  for (const auto& [ref, resource] : base)
    if (!head.count(ref)) result.policies.push_back({ref, Change::Removed, resource->locate({})});
  std::sort(result.policies.begin(), result.policies.end(),
            [](const PolicyChange& a, const PolicyChange& b) { return a.policy < b.policy; });
  for (const PolicyChange& p : result.policies) s.changedPolicies[p.policy] = p.change;
}

void compareObjects(Sides& s) {
  std::map<std::string, const model::Resource*> base = objectsByRef(s.base);
  for (const model::Resource* object : s.head.store.objects()) {
    const model::Resource& r = *object;
    std::string ref = r.display();
    auto it = base.find(ref);
    if (it == base.end() || contentHash(*it->second) != contentHash(r))
      s.changedObjects.insert(ref);
  }
  for (const model::Resource* r : s.head.store.objects()) s.headObjects.insert(r->display());
  for (const auto& [ref, resource] : base)
    if (!s.headObjects.count(ref)) s.changedObjects.insert(ref);
}

// --- attachments -----------------------------------------------------------------------

struct Attachment {
  const graph::Route* route = nullptr;
  const graph::RouteParent* parent = nullptr;
};

std::string gatewayRef(const graph::Gateway& g) {
  return g.resource->display();
}

std::map<std::pair<std::string, std::string>, Attachment> attachmentsOf(
    const analysis::Analysis& a) {
  std::map<std::pair<std::string, std::string>, Attachment> out;
  for (const graph::Route& route : a.topology.routes) {
    std::string routeRef = route.resource->display();
    for (const graph::RouteParent& parent : route.parents) {
      if (parent.service && parent.accepted()) {
        out.emplace(std::pair{routeRef, parent.service->display()}, Attachment{&route, &parent});
        continue;
      }
      for (const graph::Listener* l : parent.listeners)
        out.emplace(std::pair{routeRef, gatewayRef(*l->gateway) + "#" + std::string(l->name)},
                    Attachment{&route, &parent});
    }
  }
  return out;
}

// Why the head side does not attach a route to `parentRef` (Gateway/ns/name#listener or
// Service/ns/name) any more.
void explainDetached(const Sides& s,
                     const std::unordered_map<std::string, const graph::Route*>& headRoutes,
                     const std::string& parentRef, const Attachment& before,
                     AttachmentChange& change) {
  auto found = headRoutes.find(change.route);
  if (found == headRoutes.end()) {
    change.message = "the route is gone";
    change.at = before.route->resource->locate({});
    return;
  }
  const graph::Route& route = *found->second;
  std::string object = parentRef.substr(0, parentRef.find('#'));
  for (const graph::RouteParent& p : route.parents) {
    const model::Resource* named = p.gateway ? p.gateway->resource : p.service;
    if (!named || named->display() != object) continue;
    change.at = route.resource->locate(p.ref.node);
    for (const graph::Condition& c : p.conditions) {
      if (c.type == "Accepted" && c.status != "True") {
        change.reason = c.reason;
        change.message = c.message;
        return;
      }
    }
    std::string names;
    for (const graph::Listener* l : p.listeners)
      names += (names.empty() ? "" : ", ") + std::string(l->name);
    change.message =
        names.empty() ? "not attached to " + object : "attached to listener " + names + " instead";
    return;
  }
  change.at = route.resource->locate(route.resource->spec().get("parentRefs"));
  change.message = s.headObjects.count(object) ? "no parentRef names " + object + " any more"
                                               : object + " is gone";
}

void compareAttachments(const Sides& s, Result& result) {
  auto base = attachmentsOf(s.base);
  auto head = attachmentsOf(s.head);
  std::unordered_map<std::string, const graph::Route*> headRoutes;
  for (const graph::Route& r : s.head.topology.routes)
    headRoutes.emplace(r.resource->display(), &r);
  for (const auto& [key, attachment] : head) {
    if (base.count(key)) continue;
    AttachmentChange c;
    c.route = key.first;
    c.parent = key.second;
    c.attached = true;
    c.at = attachment.route->resource->locate(attachment.parent->ref.node);
    result.attachments.push_back(std::move(c));
  }
  for (const auto& [key, attachment] : base) {
    if (head.count(key)) continue;
    AttachmentChange c;
    c.route = key.first;
    c.parent = key.second;
    c.attached = false;
    explainDetached(s, headRoutes, key.second, attachment, c);
    result.attachments.push_back(std::move(c));
  }
  std::sort(result.attachments.begin(), result.attachments.end(),
            [](const AttachmentChange& a, const AttachmentChange& b) {
              return std::tie(a.route, a.parent, a.attached) <
                     std::tie(b.route, b.parent, b.attached);
            });
}

// --- effective policies ----------------------------------------------------------------

// `pathChanged`: the kind reaches the target through this path on one side only, which the
// hierarchy decides (a route moved to another Gateway, a section was renamed) before any
// policy does; else a policy that sets the field comes first.
std::string causeOf(const Sides& s, const Leaf* before, const Leaf* after,
                    const std::vector<std::string>& path, bool pathChanged) {
  auto byPolicy = [&]() -> std::string {
    for (const Leaf* leaf : {after, before}) {
      if (!leaf) continue;
      std::string ref = leaf->origin.policy->display();
      auto it = s.changedPolicies.find(ref);
      if (it != s.changedPolicies.end()) return ref + " " + std::string(changeName(it->second));
    }
    return {};
  };
  auto byPath = [&]() -> std::string {
    for (auto it = path.rbegin(); it != path.rend(); ++it) {  // the most specific first
      std::string object = it->substr(0, it->find('#'));
      if (s.changedObjects.count(object))
        return object + " " + (s.headObjects.count(object) ? "changed" : "removed");
    }
    return {};
  };
  std::string first = pathChanged ? byPath() : byPolicy();
  return first.empty() ? (pathChanged ? byPolicy() : byPath()) : first;
}

void compareEntry(const Sides& s, const Entry* base, const Entry* head, EffectiveChange& change) {
  Leaves before = base ? leavesOf(base->effective->value) : Leaves{};
  Leaves after = head ? leavesOf(head->effective->value) : Leaves{};
  const std::vector<std::string>& path = head ? head->path : base->path;
  std::unordered_map<std::string, const Leaf*> beforeByField;
  for (const auto& [field, leaf] : before) beforeByField.emplace(field, &leaf);
  std::set<std::string> seen;
  auto add = [&](const std::string& field, const Leaf* b, const Leaf* a) {
    FieldChange f;
    f.field = field;
    if (b) {
      f.before = shortened(flowText(b->node));
      f.beforeFrom = originText(b->origin);
    }
    if (a) {
      f.after = shortened(flowText(a->node));
      f.afterFrom = originText(a->origin);
    }
    f.cause = causeOf(s, b, a, path, change.change != Change::Changed);
    const Leaf* at = a ? a : b;
    f.at = at->origin.policy->resource->locate(at->node);
    change.fields.push_back(std::move(f));
  };
  for (const auto& [field, leaf] : after) {
    if (!seen.insert(field).second) continue;
    auto it = beforeByField.find(field);
    const Leaf* b = it == beforeByField.end() ? nullptr : it->second;
    if (b && policy::sameValue(b->node, leaf.node) &&
        b->origin.policy->display() == leaf.origin.policy->display() &&
        b->origin.role == leaf.origin.role)
      continue;
    add(field, b, &leaf);
  }
  for (const auto& [field, leaf] : before)
    if (seen.insert(field).second) add(field, &leaf, nullptr);
}

void compareEffective(const Sides& s, Result& result) {
  std::map<EntryKey, Entry> base = entriesOf(s.base);
  std::map<EntryKey, Entry> head = entriesOf(s.head);
  std::set<EntryKey> keys;
  for (const auto& [key, entry] : base) keys.insert(key);
  for (const auto& [key, entry] : head) keys.insert(key);
  for (const EntryKey& key : keys) {
    auto b = base.find(key);
    auto h = head.find(key);
    const Entry* before = b == base.end() ? nullptr : &b->second;
    const Entry* after = h == head.end() ? nullptr : &h->second;
    EffectiveChange change;
    std::tie(change.target, change.kind, change.path) = key;
    change.change = !before ? Change::Added : !after ? Change::Removed : Change::Changed;
    compareEntry(s, before, after, change);
    if (change.change != Change::Changed || !change.fields.empty())
      result.effective.push_back(std::move(change));
  }
}

// --- findings --------------------------------------------------------------------------

std::vector<model::Finding> onlyIn(const std::vector<model::Finding>& side,
                                   const std::vector<model::Finding>& other) {
  std::unordered_map<std::string, std::size_t> count;
  for (const model::Finding& f : other) ++count[f.fingerprint];
  std::vector<model::Finding> out;
  for (const model::Finding& f : side) {
    auto it = count.find(f.fingerprint);
    if (it != count.end() && it->second > 0) {
      --it->second;
      continue;
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace

std::string_view changeName(Change change) {
  switch (change) {
    case Change::Added:
      return "added";
    case Change::Removed:
      return "removed";
    case Change::Changed:
      return "changed";
  }
  return "changed";
}

std::string flowText(yaml::NodeRef node) {
  std::string out;
  appendFlow(out, node, false);
  return out;
}

Result compare(const Side& base, const Side& head) {
  Result result;
  result.base = base.label;
  result.head = head.label;
  Sides s{base.analysis, head.analysis, {}, {}, {}};
  compareObjects(s);
  comparePolicies(s, result);
  compareAttachments(s, result);
  compareEffective(s, result);
  result.kuma = compareKuma(base.analysis, head.analysis);
  result.linkerd = compareLinkerd(base.analysis, head.analysis);
  result.newFindings = onlyIn(head.findings, base.findings);
  result.fixedFindings = onlyIn(base.findings, head.findings);
  return result;
}

}  // namespace pg::diff
