#include "lib/policy/access.h"

namespace pg::policy {

std::string_view decisionName(AccessDecision decision) {
  switch (decision) {
    case AccessDecision::Allowed:
      return "allowed";
    case AccessDecision::Redirect:
      return "redirect";
    case AccessDecision::Unauthorized:
      return "unauthorized";
    case AccessDecision::NoRoute:
      return "no route";
    case AccessDecision::Refused:
      return "refused";
  }
  return "refused";
}

std::optional<AccessRequest> parseAccessRequest(std::string_view text) {
  std::size_t space = text.find(' ');
  if (space == 0 || space == std::string_view::npos) return std::nullopt;
  std::string_view method = text.substr(0, space);
  std::string_view target = text.substr(space + 1);
  if (target.empty() || target.front() != '/' || target.find(' ') != std::string_view::npos)
    return std::nullopt;
  for (char c : method)
    if (!(c >= 'A' && c <= 'Z')) return std::nullopt;
  AccessRequest r;
  r.http = true;
  r.text = std::string(text);
  r.method = std::string(method);
  std::size_t question = target.find('?');
  r.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) {
    std::string_view query = target.substr(question + 1);
    while (!query.empty()) {
      std::size_t amp = query.find('&');
      std::string_view pair = query.substr(0, amp);
      if (!pair.empty()) {
        std::size_t eq = pair.find('=');
        r.query.emplace_back(std::string(pair.substr(0, eq)),
                             eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1)));
      }
      if (amp == std::string_view::npos) break;
      query.remove_prefix(amp + 1);
    }
  }
  return r;
}

std::string tagsText(const std::vector<AccessTag>& tags) {
  std::string out;
  for (const auto& [k, v] : tags) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out.empty() ? "no tags" : out;
}

}  // namespace pg::policy
