#pragma once

#include <string>
#include <string_view>

#include "lib/model/resource.h"

namespace pg::model {

// A Secret's value under `key`, as the API server stores it: `stringData` as written (it
// wins over `data`), else `data` base64-decoded. Empty when the Secret has no such key.
std::string secretValue(const Resource& secret, std::string_view key);

// Whether a Secret has `key` under `data` or `stringData`.
bool secretHasKey(const Resource& secret, std::string_view key);

}  // namespace pg::model
