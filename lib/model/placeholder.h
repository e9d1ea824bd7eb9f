// Values a tool substitutes before the manifests are applied: `${VAR}` (envsubst, Flux's
// postBuild), `{{ .Values.x }}` (Go templates: Helm, Argo CD ApplicationSets), `{NAME}` (test
// harnesses), `<your-domain>`, `PLACEHOLDER_X`, `__NAME__`. Such a value is unknown, never wrong:
// no finding may rest on it.
#pragma once

#include <string_view>

namespace pg::model {

// Whether `value` holds a placeholder anywhere in it (a name `${APP}-svc` is as unknown as
// `${APP}`).
bool holdsPlaceholder(std::string_view value);

}  // namespace pg::model
