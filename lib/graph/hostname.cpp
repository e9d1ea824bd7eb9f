#include "lib/graph/hostname.h"

#include <algorithm>
#include <cctype>

namespace pg::graph {

namespace {

bool isWildcard(std::string_view h) {
  return h.size() > 2 && h[0] == '*' && h[1] == '.';
}

// `name` lies under wildcard `*.suffix`: it ends with `.suffix` and has at least one label
// before it.
bool coveredBy(std::string_view wildcard, std::string_view name) {
  std::string_view suffix = wildcard.substr(1);  // ".example.com"
  return name.size() > suffix.size() && name.ends_with(suffix);
}

}  // namespace

bool hostnamesIntersect(std::string_view listener, std::string_view route) {
  if (listener.empty() || route.empty()) return true;
  if (listener == route) return true;
  const bool lw = isWildcard(listener), rw = isWildcard(route);
  if (lw && !rw) return coveredBy(listener, route);
  if (rw && !lw) return coveredBy(route, listener);
  if (lw && rw) return coveredBy(listener, route) || coveredBy(route, listener);
  return false;
}

bool isValidHostname(std::string_view h) {
  if (h.empty() || h.size() > 253) return false;
  if (isWildcard(h)) h.remove_prefix(2);
  bool allDigitsAndDots = true;
  std::size_t labelLength = 0;
  char previous = '.';
  for (char c : h) {
    if (c == '.') {
      if (labelLength == 0 || previous == '-') return false;
      labelLength = 0;
    } else {
      bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok || (labelLength == 0 && c == '-') || ++labelLength > 63) return false;
      allDigitsAndDots = allDigitsAndDots && std::isdigit(static_cast<unsigned char>(c));
    }
    previous = c;
  }
  return labelLength > 0 && previous != '-' && !allDigitsAndDots;
}

bool isDns1123Subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view label = name.substr(start, end - start);
    if (label.empty() || !alnum(label.front()) || !alnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(), [&](char c) { return alnum(c) || c == '-'; }))
      return false;
    start = end + 1;
  }
  return true;
}

}  // namespace pg::graph
