// A Kuma policy configuration (`default:` of a targetRef item) as a JSON-like value, merged the
// way Kuma merges confs: RFC 7386 merge patches applied in policy order (later wins, lists are
// replaced), except lists under a key starting with `append`, which are concatenated. Every
// value taken from a file keeps its node, so each field can say which policy set it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/model/resource.h"

namespace pg::policy::kuma {

struct Conf {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  std::string scalar;  // the text of a bool, number or string
  std::vector<Conf> items;
  struct Field;
  std::vector<Field> fields;  // in first-written order
  yaml::NodeRef source;       // where the value came from (unset for defaults Kuma adds)
  const model::Resource* origin = nullptr;

  bool isObject() const { return type == Type::Object; }
  const Conf* find(std::string_view key) const;
  Conf* find(std::string_view key);
  // Sets `key` (appended when new) and returns it.
  Conf& set(std::string_view key, Conf value);
  static Conf string(std::string text);
  static Conf boolean(bool value);
  static Conf number(std::string text);
  static Conf object();
};

struct Conf::Field {
  Field(std::string k, Conf v) : first(std::move(k)), second(std::move(v)) {}
  std::string first;
  Conf second;
};

// A YAML node as a conf: plain `true`/`false` are booleans, plain numbers numbers, `null`,
// `~` and empty plain scalars null, everything else a string.
Conf fromYaml(yaml::NodeRef node, const model::Resource* origin);

// Applies `patch` over `into` (RFC 7386; `append*` lists concatenate). A null in the patch
// removes the field.
void mergePatch(Conf& into, const Conf& patch);

// Compact text with keys sorted and nulls left out: equal texts, equal values.
std::string canonicalText(const Conf& conf);

// Kuma's own normalisation of a conf of a policy type, as its API answers it: durations in Go's
// form (`60s` → `1m0s`), and the defaults Kuma fills in (MeshTrace Zipkin backends,
// MeshAccessLog formats, backendRef weights).
void normalize(Conf& conf, std::string_view policyType);

// Go's time.Duration text of a duration string ("1h30m", "1.5s", "300ms"); nullopt when `text`
// is not one.
std::optional<std::string> goDuration(std::string_view text);

// Whether Kuma types a conf field as a duration (metav1.Duration), by its name.
bool isDurationKey(std::string_view key);

}  // namespace pg::policy::kuma
