// Field names as small numbers shared by every compiled program (see detail::fieldId).

#include <mutex>
#include <string>
#include <unordered_map>

#include "lib/cel/ast.h"

namespace pg::cel::detail {

std::uint32_t fieldId(std::string_view name) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::uint32_t> ids;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] =
      ids.try_emplace(std::string(name), static_cast<std::uint32_t>(ids.size() + 1));
  return it->second;
}

}  // namespace pg::cel::detail
