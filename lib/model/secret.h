#pragma once

#include <string>
#include <string_view>

#include "lib/model/resource.h"

namespace pg::model {

// Standard base64 (RFC 4648), as a Secret's `data` is stored; empty when the text is not
// base64.
std::string decodeBase64(std::string_view text);

// A Secret's value under `key`, as the API server stores it: `stringData` as written (it
// wins over `data`), else `data` base64-decoded. Empty when the Secret has no such key.
std::string secretValue(const Resource& secret, std::string_view key);

// Whether a Secret has `key` under `data` or `stringData`.
bool secretHasKey(const Resource& secret, std::string_view key);

}  // namespace pg::model
