#include "lib/policy/policy.h"

namespace pg::policy {

std::string_view levelName(Level level) {
  switch (level) {
    case Level::GatewayClass:
      return "GatewayClass";
    case Level::Namespace:
      return "Namespace";
    case Level::Gateway:
      return "Gateway";
    case Level::ListenerSet:
      return "ListenerSet";
    case Level::Listener:
      return "Listener";
    case Level::Route:
      return "Route";
    case Level::RouteRule:
      return "RouteRule";
    case Level::Backend:
      return "Backend";
    case Level::BackendPort:
      return "BackendPort";
  }
  return "";
}

std::string_view roleName(Role role) {
  switch (role) {
    case Role::Override:
      return "override";
    case Role::Default:
      return "default";
    case Role::Intent:
      return "intent";
  }
  return "";
}

model::ObjectRef Target::ref() const {
  return {group, kind, namespace_, name, sectionName};
}

std::string Policy::key() const {
  std::string out;
  if (!resource->namespace_.empty()) {
    out += resource->namespace_;
    out += '/';
  }
  out += resource->name;
  return out;
}

const Block* Policy::block(Role role) const {
  for (const Block& b : blocks)
    if (b.role == role) return &b;
  return nullptr;
}

bool established(const Policy& a, const Policy& b) {
  // RFC 3339 timestamps in UTC compare as text; an object without one is taken as newer
  // than any that has one (it has not been created yet).
  if (a.creationTimestamp != b.creationTimestamp) {
    if (a.creationTimestamp.empty()) return false;
    if (b.creationTimestamp.empty()) return true;
    return a.creationTimestamp < b.creationTimestamp;
  }
  // `{namespace}/{name}` as one string: `infra-x/a` sorts before `infra/b`.
  return a.key() < b.key();
}

bool decidedByName(const Policy& a, const Policy& b) {
  return a.creationTimestamp == b.creationTimestamp;
}

std::string Step::display() const {
  model::ObjectRef ref = object->ref();
  ref.sectionName = std::string(section);
  return ref.display();
}

}  // namespace pg::policy
