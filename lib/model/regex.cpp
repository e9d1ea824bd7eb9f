#include "lib/model/regex.h"

#include <re2/re2.h>

namespace pg::model {

std::string re2Error(std::string_view pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  const RE2 regex(re2::StringPiece(pattern.data(), pattern.size()), options);
  return regex.ok() ? std::string() : regex.error();
}

}  // namespace pg::model
