// Strings in double quotes, escaped as Go's strconv.Quote writes them. The API server's messages
// quote values this way (`Unsupported value: "Prefixx"`), and the same text is a valid YAML
// double-quoted scalar and a valid CEL string literal, so every place that quotes a string for a
// reader uses this one function.
#pragma once

#include <string>
#include <string_view>

namespace pg::model {

// Appends `text` in double quotes: `"` and `\` escaped with a backslash; \a \b \f \n \r \t \v
// by name; other ASCII control characters, DEL and the C1 controls (U+0080-U+009F) as \xNN or
// \u00NN; bytes that are not UTF-8 as \xNN; every other character as it is.
void appendQuoted(std::string& out, std::string_view text);

// The same, as a new string.
std::string quoted(std::string_view text);

}  // namespace pg::model
