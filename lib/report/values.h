// Internal to lib/report: JSON values of the documents the writers build, from source nodes
// and merged policy values, and their YAML rendering.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "lib/model/finding.h"
#include "lib/policy/value.h"
#include "lib/yaml/tree.h"
#include "lib/yaml/writer.h"

namespace pg::report::detail {

using Json = nlohmann::ordered_json;

// A node as JSON, typed the way YAML's core schema reads plain scalars (null, booleans,
// integers, floats); every other scalar is a string.
Json nodeToJson(yaml::NodeRef node);
// A merged policy value: mappings built by merging, nodes taken whole.
Json valueToJson(const policy::Value& value);

// How writeYamlValue lays a value out; the default is block style throughout. Files people
// review (snapshots) want empty lists and mappings on their key's line, and comments.
struct YamlLayout {
  bool inlineEmpty = false;
  // Comments by the dotted field path (policy::joinField) of a value below the one written:
  // after a scalar or an empty value, on its key's line before a block. Nothing under a value
  // with a comment is looked up (provenance names values taken whole).
  const std::map<std::string, std::string, std::less<>>* comments = nullptr;
  // Comments are looked up inside lists too, by `field[index]` (the Kuma and Linkerd sections
  // of explain, whose entries are lists).
  bool listIndexes = false;
};
void writeYamlValue(yaml::Writer& w, const Json& v, const YamlLayout& layout = {});

// A location and a finding as the JSON report writes them.
Json locationJson(const model::Location& at);
Json findingJson(const model::Finding& f, const std::vector<model::RuleInfo>& rules);

}  // namespace pg::report::detail
