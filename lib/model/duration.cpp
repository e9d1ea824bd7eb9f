#include "lib/model/duration.h"

#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <utility>

namespace pg::model {

std::optional<long double> parseGoDuration(std::string_view s) {
  static constexpr std::array<std::pair<std::string_view, long double>, 8> kUnits{{
      {"ns", 1.0L},
      {"us", 1e3L},
      {"\u00b5s", 1e3L},  // micro sign
      {"\u03bcs", 1e3L},  // Greek mu
      {"ms", 1e6L},
      {"s", 1e9L},
      {"m", 60e9L},
      {"h", 3600e9L},
  }};
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0.0L;
  if (s.empty()) return std::nullopt;
  long double total = 0;
  while (!s.empty()) {
    std::size_t i = 0;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    // from_chars takes the whole run or the run is malformed ("", ".", "1.2.3").
    std::string digits(s.substr(0, i));
    double number = 0;
    auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (i == 0 || parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size())
      return std::nullopt;
    s.remove_prefix(i);
    std::size_t u = 0;
    while (u < s.size() && !std::isdigit(static_cast<unsigned char>(s[u])) && s[u] != '.') ++u;
    std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    const auto* it = kUnits.begin();
    while (it != kUnits.end() && it->first != unit) ++it;
    if (it == kUnits.end()) return std::nullopt;
    total += static_cast<long double>(number) * it->second;
  }
  return negative ? -total : total;
}

}  // namespace pg::model
