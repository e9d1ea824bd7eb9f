#include "lib/schema/seed_fields.h"

#include "lib/schema/validate.h"

namespace pg::schema {

namespace {

constexpr std::string_view kRfc0009 = "Kuadrant RFC 0009 (unset)";
constexpr std::string_view kConstraint = "Kuadrant RFC 0009 (a block's CEL constraint)";

// Kuadrant's RateLimitPolicy and AuthPolicy: RFC 0009's `unset` list, which removes a higher
// default (a policy that only unsets has no limits or rules of its own, which the released
// CRD's "at least one" rules refuse), and a defaults or overrides block's `when` written as one
// CEL condition on the lower policy (the released CRD's `when` is a list of request
// predicates, which the family reads as such).
constexpr SeedField kFields[] = {
    {"kuadrant.io", "RateLimitPolicy", "spec.unset", kRfc0009,
     {"At least one spec.limits must be defined", "At least one spec.defaults.limits must be defined",
      "At least one spec.overrides.limits must be defined"}},
    {"kuadrant.io", "RateLimitPolicy", "spec.defaults.when", kConstraint, {}, true},
    {"kuadrant.io", "RateLimitPolicy", "spec.overrides.when", kConstraint, {}, true},
    {"kuadrant.io", "AuthPolicy", "spec.unset", kRfc0009,
     {"At least one spec.rules must be defined", "At least one spec.defaults.rules must be defined",
      "At least one spec.overrides.rules must be defined"}},
    {"kuadrant.io", "AuthPolicy", "spec.defaults.when", kConstraint, {}, true},
    {"kuadrant.io", "AuthPolicy", "spec.overrides.when", kConstraint, {}, true},
};

bool atOrBelow(std::string_view path, std::string_view field) {
  if (path.size() < field.size() || path.substr(0, field.size()) != field) return false;
  return path.size() == field.size() || path[field.size()] == '.' || path[field.size()] == '[';
}

}  // namespace

bool seedFormAt(std::string_view group, std::string_view kind, std::string_view path) {
  for (const SeedField& f : kFields)
    if (f.otherTypeOnly && f.kind == kind && f.group == group && path == f.path) return true;
  return false;
}

const SeedField* seedFieldOf(std::string_view group, std::string_view kind, const Violation& v) {
  if (v.code != Code::UnknownField && v.code != Code::InvalidValue && v.code != Code::Required &&
      v.code != Code::CelRule)
    return nullptr;
  for (const SeedField& f : kFields) {
    if (f.kind != kind || f.group != group || !atOrBelow(v.path, f.path)) continue;
    if (f.otherTypeOnly && (v.code != Code::InvalidValue || v.path != f.path ||
                            v.message.find(" must be of type ") == std::string::npos))
      continue;
    return &f;
  }
  return nullptr;
}

}  // namespace pg::schema
