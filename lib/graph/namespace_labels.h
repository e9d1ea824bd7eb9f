// Listeners that admit routes by the labels of their Namespace (`from: Selector`) when the
// Namespace is not in the input: only `kubernetes.io/metadata.name`, which the API server
// gives every Namespace, is known. The topology assumes such a listener admits the route, and
// GW213 says so.
#pragma once

#include "lib/model/selector.h"

namespace pg::graph {

// Whether `selector` asks for a label other than kubernetes.io/metadata.name.
bool selectsOnUnknownLabels(const model::LabelSelector& selector);

}  // namespace pg::graph
