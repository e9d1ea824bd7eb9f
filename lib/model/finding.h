// What the tool reports: findings, their severities, and the catalogue entry of each rule.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/resource.h"
#include "lib/model/source.h"

namespace pg::model {

enum class Severity : unsigned char { Note = 0, Warning = 1, Error = 2 };

std::string_view toString(Severity severity);
std::optional<Severity> parseSeverity(std::string_view text);
inline std::ostream& operator<<(std::ostream& out, Severity s) {
  return out << toString(s);
}

// A rule's catalogue entry: everything reports and documentation say about it.
struct RuleInfo {
  std::string_view id;      // IN101
  std::string_view name;    // invalid-yaml
  std::string_view family;  // input, gateway, policy, kuadrant, kuma, linkerd, snapshot
  Severity severity = Severity::Error;
  std::string_view summary;   // one line
  std::string_view markdown;  // the rule's page
  std::string_view pagePath;  // rules/<family>/<ID>-<name>.md, relative to the repository
  // What the rule checks, for reports that list every check (JUnit): "file" for the files
  // read, "*" for every object, else comma-separated object kinds.
  std::string_view subjects;
};

// An object a finding says is not in the input, for the rule engine to weigh against the unit
// (Analysis::isHomeOf): where the unit is not evidently its home, the finding becomes an IN133
// note that the object is assumed to exist elsewhere.
struct Missing {
  std::string group;
  std::string kind;
  std::string namespace_;  // "" for a cluster-scoped kind
  std::string name;        // empty for the objects a selector finds
  // For objects found by labels rather than named (a Server's pods): the selector, as
  // `app=web,tier in (a,b)`. Such a finding is the rule's only where the unit holds objects
  // the selector could find; the rule gives it a Missing only where the unit holds none.
  std::string selector = {};
  bool bySelector() const { return name.empty() && !selector.empty(); }
  std::string display() const;  // Kind/namespace/name, or "Pods of namespace X matching S"
};

struct Finding {
  std::string ruleId;
  Severity severity = Severity::Error;
  std::string message;  // says what is wrong and what to do about it
  Location location;    // the field at fault
  std::vector<RelatedLocation> related;
  std::vector<std::string> objects;  // display refs of the objects involved, subject first
  // What, besides the rule and the objects, tells this finding apart from its siblings (a
  // field path, a key); never a line number, so fingerprints survive edits elsewhere.
  std::string discriminator;
  // The environment (`environments:` in the config) whose analysis found it; empty without.
  std::string environment;
  std::string fingerprint;  // filled by the rule engine
  std::optional<Missing> missing =
      std::nullopt;                   // what the finding says is absent, if it rests on that
  const Resource* subject = nullptr;  // for annotation suppressions; not reported
};

// Stable identity from rule, objects (or the file when there are none) and discriminator.
std::string fingerprintOf(const Finding& finding);

// Report order: path, line, column, rule, message.
bool reportOrder(const Finding& a, const Finding& b);

}  // namespace pg::model
