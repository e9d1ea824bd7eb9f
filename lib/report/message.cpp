#include "lib/report/message.h"

namespace pg::report {

namespace {

// A lead shorter than this names what is at fault without saying what is wrong.
constexpr std::size_t kShortestLead = 40;

// The reasons of the API server's field errors that the offending value follows.
bool isValueReason(std::string_view before) {
  for (std::string_view reason : {"Invalid value", "Unsupported value", "Duplicate value"})
    if (before.ends_with(reason)) return true;
  return false;
}

}  // namespace

std::size_t leadLength(std::string_view message) {
  int depth = 0;
  char quote = 0;
  bool afterValue = false;
  bool afterStandIn = false;
  for (std::size_t i = 0; i + 1 < message.size(); ++i) {
    const char c = message[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    switch (c) {
      case '"':
      case '`':
        quote = c;
        break;
      case '(':
      case '[':
      case '{':
        ++depth;
        break;
      case ')':
      case ']':
      case '}':
        depth = depth > 0 ? depth - 1 : 0;
        break;
      case ':':
      case ';':
      case '.': {
        if (depth > 0 || message[i + 1] != ' ') break;
        const std::string_view before = message.substr(0, i);
        // "e.g. " and "i.e. " continue the sentence.
        if (c == '.' && (before.ends_with("e.g") || before.ends_with("i.e"))) break;
        // What comes before is the subject, not yet what is wrong with it: a field path
        // (`spec.port: Invalid value`) or a short name (`HTTPRoute/shop/web rule 0: ...`).
        // A suggestion is part of what is wrong: `unknown field "x": did you mean "y"?`.
        if (c == ':' && message.substr(i + 2).starts_with("did you mean ")) {
          if (const std::size_t q = message.find("? ", i); q != std::string_view::npos)
            return q + 1;
        }
        if (afterValue) {
          // The value ends the lead, however short; but "object" and "array" only stand in
          // for a value (a CEL rule's failure), and the message after them says what is wrong.
          if (!before.ends_with(": \"object\"") && !before.ends_with(": \"array\"")) return i;
          afterValue = false;
          afterStandIn = true;
          break;
        }
        if (afterStandIn) return i;
        // "<field>: Required value" says what is wrong, however short.
        if (c == ':' && before.ends_with(": Required value")) return i;
        // The API server's "<field>: Invalid value: <value>: <why>": the value belongs to
        // what is wrong.
        if (c == ':' && isValueReason(before)) {
          afterValue = true;
          break;
        }
        if (before.size() < kShortestLead || before.find(' ') == std::string_view::npos) break;
        return i;
      }
      default:
        break;
    }
  }
  return message.size();
}

MessageParts splitMessage(std::string_view message) {
  const std::size_t end = leadLength(message);
  if (end >= message.size()) return {std::string(message), {}};
  std::string_view detail = message.substr(end + 1);
  while (!detail.empty() && detail.front() == ' ') detail.remove_prefix(1);
  MessageParts parts{std::string(message.substr(0, end)), {}};
  constexpr std::string_view kRenderedFrom = " (rendered from ";
  if (const std::size_t origin = detail.rfind(kRenderedFrom);
      origin != std::string_view::npos && detail.ends_with(')')) {
    parts.lead += detail.substr(origin);
    detail = detail.substr(0, origin);
  }
  parts.detail = std::string(detail);
  return parts;
}

}  // namespace pg::report
