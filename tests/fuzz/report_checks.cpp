#include "tests/fuzz/report_checks.h"

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

namespace pg::fuzz {

bool isJson(const std::string& text) {
  return nlohmann::json::accept(text);
}

bool isXml(const std::string& text) {
  pugi::xml_document document;
  return static_cast<bool>(document.load_string(text.c_str()));
}

}  // namespace pg::fuzz
