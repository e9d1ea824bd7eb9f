#include "lib/model/object_ref.h"

namespace pg::model {

std::string ObjectRef::display() const {
  std::string out = kind;
  out += '/';
  if (!namespace_.empty()) {
    out += namespace_;
    out += '/';
  }
  out += name;
  if (!sectionName.empty()) {
    out += '#';
    out += sectionName;
  }
  return out;
}

GroupVersion splitApiVersion(std::string_view apiVersion) {
  auto slash = apiVersion.rfind('/');
  if (slash == std::string_view::npos) return {{}, apiVersion};
  return {apiVersion.substr(0, slash), apiVersion.substr(slash + 1)};
}

bool parseDisplayRef(std::string_view text, std::string& kind, std::string& namespace_,
                     std::string& name) {
  auto first = text.find('/');
  if (first == std::string_view::npos || first == 0) return false;
  kind = std::string(text.substr(0, first));
  std::string_view rest = text.substr(first + 1);
  auto second = rest.find('/');
  if (second == std::string_view::npos) {
    namespace_.clear();
    name = std::string(rest);
  } else {
    namespace_ = std::string(rest.substr(0, second));
    name = std::string(rest.substr(second + 1));
    if (namespace_.empty() || name.find('/') != std::string::npos) return false;
  }
  return !name.empty();
}

}  // namespace pg::model
