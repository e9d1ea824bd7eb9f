#include "lib/model/placeholder.h"

namespace pg::model {

namespace {

bool isUpper(char c) {
  return (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
}
bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

bool allOf(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}

// Where the word starting at `from` ends: the first character that is not a word's.
std::size_t wordEnd(std::string_view v, std::size_t from) {
  while (from < v.size() && isWordChar(v[from])) ++from;
  return from;
}

// Whether the `{` at `open` starts a brace placeholder (`{GATEWAY_CLASS_NAME}`, `{IPv6}`: a
// word in braces, as test harnesses substitute); `close` is then set to its `}`.
// Reads the word only, never past it: a file of `{a{a{a...` is one pass, not one per brace.
bool bracePlaceholderAt(std::string_view v, std::size_t open, std::size_t& close) {
  const std::size_t end = wordEnd(v, open + 1);
  if (end == open + 1 || end >= v.size() || v[end] != '}' ||
      !((v[open + 1] >= 'A' && v[open + 1] <= 'Z') || v[open + 1] == '_'))
    return false;
  close = end;
  return true;
}

}  // namespace

bool holdsPlaceholder(std::string_view v) {
  // Where the last `}` and the last `}}` start: an opener is closed when one lies after it.
  // Found once, so that a value of openers and no close is one pass, not one per opener.
  const std::size_t lastClose = v.rfind('}');
  const std::size_t lastDoubleClose = v.rfind("}}");
  auto closedAfter = [](std::size_t close, std::size_t from) {
    return close != std::string_view::npos && close >= from;
  };
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (c == '$' && i + 1 < v.size() && v[i + 1] == '{' && closedAfter(lastClose, i + 2))
      return true;  // ${VAR}, ${VAR:=default}
    if (c == '{' && i + 1 < v.size() && v[i + 1] == '{' && closedAfter(lastDoubleClose, i + 2))
      return true;  // {{ .Values.name }}
    std::size_t close = 0;
    if (c == '{' && bracePlaceholderAt(v, i, close)) return true;
    if (c == '<') {
      // <your-domain>, <TOKEN>: a word and the `>` right after it (read up to the first
      // character that is not a word's, never further).
      const std::size_t end = wordEnd(v, i + 1);
      if (end > i + 1 && end < v.size() && v[end] == '>') return true;
    }
  }
  if (v.find("PLACEHOLDER") != v.npos) return true;
  // YOUR_CLIENT_ID, [YOUR_GITLAB_ISSUER_URL]: what a guide asks its reader to fill in.
  for (std::size_t at = v.find("YOUR_"); at != v.npos; at = v.find("YOUR_", at + 1))
    if (at + 5 < v.size() && v[at + 5] >= 'A' && v[at + 5] <= 'Z') return true;
  // __NAMESPACE__, $NAMESPACE: a whole value in the forms sed and envsubst replace.
  if (v.size() > 4 && v.starts_with("__") && v.ends_with("__") &&
      allOf(v.substr(2, v.size() - 4), isUpper))
    return true;
  if (v.size() > 1 && v[0] == '$' && ((v[1] >= 'A' && v[1] <= 'Z') || v[1] == '_') &&
      allOf(v.substr(1), isUpper))
    return true;
  return false;
}

std::optional<std::string> bracePlaceholdersAsText(std::string_view text) {
  std::optional<std::string> out;
  for (std::size_t i = text.find('{'); i != std::string_view::npos; i = text.find('{', i + 1)) {
    std::size_t close = 0;
    // Not a template's double braces (`{{ .Values.x }}`).
    if ((i > 0 && text[i - 1] == '{') || !bracePlaceholderAt(text, i, close) ||
        (close + 1 < text.size() && text[close + 1] == '}'))
      continue;
    if (!out) out.emplace(text);
    (*out)[i] = '<';
    (*out)[close] = '>';
  }
  return out;
}

}  // namespace pg::model
