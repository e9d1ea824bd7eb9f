// A finding's message as reports show it: a lead, one short sentence saying what is wrong,
// then the detail (why, what to do, context). Rules write one message with the lead first;
// the lead ends at the first ": ", "; " or ". " outside brackets, quotes and backticks that
// follows at least 40 characters with a space among them and more than a reference and a
// place in it (before that, the text names the subject: a field path, an object and its rule),
// except that the value after the API server's
// "Invalid value", "Unsupported value" or "Duplicate value" stays in the lead, as does a
// "did you mean ...?" suggestion, and "<field>: Required value" is a lead however short.
// Text shows the lead (with --verbose the detail below it), JSON both, SARIF, JUnit and
// GitHub annotations the whole message, whose first clause is the lead.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace pg::report {

struct ReportInput;
struct TextOptions;

struct MessageParts {
  std::string lead;
  std::string detail;  // empty when the message is one sentence
};

// Whether `lead` only names what is at fault (`HTTPRoute/shop/web rule 0`, `Gateway/infra/gw
// listener https`) and says nothing of what is wrong: the lead never ends after such a text.
bool namesOnlySubject(std::string_view lead);

// Where the lead of `message` ends (`message.size()` when it is one sentence).
std::size_t leadLength(std::string_view message);

// The origin the rule engine names after a finding on rendered input ("(rendered from
// base/route.yaml)", load::RenderedSources::relocate) stays with the lead: it says where.
MessageParts splitMessage(std::string_view message);

// writeText (report.h) with each finding's detail on an indented line below its lead:
// `--verbose`.
void writeTextVerbose(std::ostream& out, const ReportInput& input, const TextOptions& options);

}  // namespace pg::report
