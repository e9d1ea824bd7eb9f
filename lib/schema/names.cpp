#include "lib/schema/names.h"

#include <string>
#include <string_view>

#include "lib/model/placeholder.h"
#include "lib/model/quote.h"

namespace pg::schema {

namespace {

bool lowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool isLabel(std::string_view s) {
  if (s.empty() || !lowerAlnum(s.front()) || !lowerAlnum(s.back())) return false;
  for (char c : s)
    if (!lowerAlnum(c) && c != '-') return false;
  return true;
}

// RFC 1123 subdomain: labels joined by dots.
bool isSubdomain(std::string_view s) {
  while (true) {
    std::size_t dot = s.find('.');
    if (!isLabel(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// What the API server says of a name it refuses ("" when it takes it), per the rule the kind
// follows (apimachinery's validation of names).
enum class NameRule { Subdomain, Label, Dns1035, PathSegment };

std::string problemWith(std::string_view name, NameRule rule) {
  switch (rule) {
    case NameRule::Subdomain:
      if (name.size() > 253) return "must be no more than 253 characters";
      if (!isSubdomain(name))
        return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
               "characters, '-' or '.', and must start and end with an alphanumeric character";
      return {};
    case NameRule::Label:
      if (name.size() > 63) return "must be no more than 63 characters";
      if (!isLabel(name))
        return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
               "or '-', and must start and end with an alphanumeric character";
      return {};
    case NameRule::Dns1035:
      if (name.size() > 63) return "must be no more than 63 characters";
      if (!isLabel(name) || !(name.front() >= 'a' && name.front() <= 'z'))
        return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
               "start with an alphabetic character, and end with an alphanumeric character";
      return {};
    case NameRule::PathSegment:
      if (name == "." || name == "..") return "may not be '" + std::string(name) + "'";
      if (name.find('/') != std::string_view::npos) return "may not contain '/'";
      if (name.find('%') != std::string_view::npos) return "may not contain '%'";
      return {};
  }
  return {};
}

NameRule ruleFor(std::string_view group, std::string_view kind) {
  if (group.empty() && kind == "Namespace") return NameRule::Label;        // ValidateNamespaceName
  if (group.empty() && kind == "Service") return NameRule::Dns1035;        // ValidateServiceName
  if (group == "rbac.authorization.k8s.io") return NameRule::PathSegment;  // ValidateRBACName
  return NameRule::Subdomain;  // NameIsDNSSubdomain: every other kind, custom resources too
}

// Kuma's older pattern for a Universal object's mesh (a Mesh may predate the RFC 1123 rule).
bool isKumaMeshName(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (char c : s)
    if (!lowerAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

void report(const model::Resource& object, std::size_t index, yaml::NodeRef at,
            std::string_view path, std::string_view value, const std::string& why,
            std::vector<Violation>& out) {
  Violation v;
  v.code = Code::InvalidValue;
  v.object = index;
  v.location = object.locate(at);
  v.path = std::string(path);
  v.message = std::string(path) + ": Invalid value: " + model::quoted(value) + ": " + why;
  out.push_back(std::move(v));
}

}  // namespace

void validateNames(const model::Resource& object, std::size_t index, std::vector<Violation>& out) {
  auto check = [&](yaml::NodeRef node, std::string_view path, std::string_view value,
                   const std::string& why) {
    if (!why.empty() && !model::holdsPlaceholder(value))
      report(object, index, node, path, value, why, out);
  };
  if (object.universal) {
    // Kuma's ValidateMeta: the name an RFC 1123 subdomain; the mesh its older pattern.
    yaml::NodeRef name = object.node.get("name");
    check(name, "name", object.name, problemWith(object.name, NameRule::Subdomain));
    if (yaml::NodeRef mesh = object.node.get("mesh");
        mesh.isScalar() && !isKumaMeshName(object.mesh))
      check(mesh, "mesh", object.mesh,
            "invalid characters. Valid characters are numbers, lowercase latin letters and '-', "
            "'_', '.' symbols.");
    return;
  }
  yaml::NodeRef metadata = object.node.get("metadata");
  // A kind is a word whose lower case is a DNS-1035 label (a CRD's names.kind); anything
  // else names no kind an API server serves.
  std::string lower(object.kind);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (!object.kind.empty() &&
      (problemWith(lower, NameRule::Dns1035) != "" || lower.find('-') != std::string::npos))
    check(object.node.get("kind"), "kind", object.kind,
          "no API server serves a kind of this form (a kind is a word of letters and digits, "
          "starting with a letter)");
  if (!object.name.empty())
    check(metadata.get("name"), "metadata.name", object.name,
          problemWith(object.name, ruleFor(object.group, object.kind)));
  if (object.namespaceWritten && !object.namespace_.empty() &&
      !model::isBuiltinClusterScoped(object.group, object.kind))
    check(metadata.get("namespace"), "metadata.namespace", object.namespace_,
          problemWith(object.namespace_, NameRule::Label));
}

}  // namespace pg::schema
