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

bool namesOnlySubject(std::string_view lead) {
  // `Kind/namespace/name`, `Kind/name`: one token with a slash, starting with a capital.
  const std::size_t space = lead.find(' ');
  const std::string_view ref = lead.substr(0, space);
  if (ref.empty() || ref.front() < 'A' || ref.front() > 'Z' ||
      ref.find('/') == std::string_view::npos)
    return false;
  if (space == std::string_view::npos) return true;
  // Then only where in it: `rule 0`, `rule checkout (2)`, `listener https`, `backendRef 1`...
  std::string_view rest = lead.substr(space + 1);
  static constexpr std::string_view kPlaces[] = {"rule ",   "listener ", "backendRef ",
                                                 "parentRef ", "port ",  "section "};
  bool place = false;
  for (std::string_view p : kPlaces) place = place || rest.starts_with(p);
  if (!place) return false;
  // The place's name, and at most an index in parentheses after it.
  rest = rest.substr(rest.find(' ') + 1);
  const std::size_t more = rest.find(' ');
  return more == std::string_view::npos || (rest.substr(more + 1).starts_with("(") &&
                                            rest.substr(more + 1).find(' ') == std::string_view::npos);
}

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
        // However long, a reference and a place in it name the subject, not what is wrong.
        if (namesOnlySubject(before)) break;
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
