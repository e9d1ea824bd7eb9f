// Values a tool substitutes before the manifests are applied: `${VAR}` (envsubst, Flux's
// postBuild), `{{ .Values.x }}` (Go templates: Helm, Argo CD ApplicationSets), `{NAME}` (test
// harnesses), `<your-domain>`, `PLACEHOLDER_X`, `__NAME__`. Such a value is unknown, never wrong:
// no finding may rest on it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pg::model {

// Whether `value` holds a placeholder anywhere in it (a name `${APP}-svc` is as unknown as
// `${APP}`).
bool holdsPlaceholder(std::string_view value);

// `text` with every brace placeholder (`{IPv6}`, `{NAMESPACE}`: a word in single braces, as
// holdsPlaceholder knows it) written in angle brackets instead, which YAML reads as plain text
// and holdsPlaceholder still as a placeholder; nullopt when it holds none. Same length, so
// every line and column stays.
std::optional<std::string> bracePlaceholdersAsText(std::string_view text);

}  // namespace pg::model
