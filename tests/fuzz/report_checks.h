// Well-formedness checks of the machine-readable reports, for fuzz_analysis. Built without
// coverage instrumentation: parsing JSON and XML back is the oracle, not the code under test,
// and its branches would only dilute what libFuzzer steers by.
#pragma once

#include <string>

namespace pg::fuzz {

// True when `text` is one JSON value.
bool isJson(const std::string& text);
// True when `text` is an XML document.
bool isXml(const std::string& text);

}  // namespace pg::fuzz
