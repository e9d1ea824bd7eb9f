// Listeners that admit routes by the labels of their Namespace (`from: Selector`) when the
// Namespace is not in the input: only `kubernetes.io/metadata.name`, which the API server
// gives every Namespace, is known. The topology assumes such a listener admits the route, and
// GW213 says so.
#pragma once

#include "lib/model/selector.h"

namespace pg::model {
class Store;
}

namespace pg::graph {

struct Gateway;

// Whether `selector` asks for a label other than kubernetes.io/metadata.name.
bool selectsOnUnknownLabels(const model::LabelSelector& selector);

// Whether the Gateway of ListenerSet `set` admits it by the labels of the ListenerSet's
// Namespace (spec.allowedListeners `from: Selector`) while that Namespace is not in the input:
// the topology then assumes it admitted, and GW213 says so.
bool listenerSetAdmissionAssumed(const Gateway& set, const model::Store& store);

}  // namespace pg::graph
