// The two patch languages kustomize applies (and Flux and Argo CD through it), on an editable
// copy of an object: a strategic-merge patch as kyaml's merge2 applies it, an RFC 6902 JSON
// patch as evanphx/json-patch does. Values taken from a patch keep the patch file's positions.
#pragma once

#include <string>

#include "lib/yaml/edit.h"
#include "lib/yaml/tree.h"

namespace pg::units {

// Merges `patch` (a mapping) into `target`: mappings merge key by key, scalars and lists are
// replaced, a `null` value deletes its field, `$patch: delete` deletes a mapping (or a list
// item) and `$patch: replace` replaces it whole. Lists of the built-in kinds' fields that have
// a merge key (containers by name, container ports by containerPort, Service ports by port,
// env, volumes, volumeMounts, ...) are merged item by item, new items first, when
// `builtinKind` says the object's schema is Kubernetes' own; lists of other kinds (custom
// resources) are replaced, as kustomize has no schema for them.
void strategicMerge(yaml::EditNode& target, yaml::NodeRef patch, bool builtinKind);

// Applies RFC 6902 operations (a sequence of {op, path, value, from}); "" when every one
// applied, else why the first that failed did (kustomize then fails the build).
std::string jsonPatch(yaml::EditNode& target, yaml::NodeRef operations);

}  // namespace pg::units
