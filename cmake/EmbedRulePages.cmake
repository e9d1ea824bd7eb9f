# Writes OUTPUT: a C++ file holding every rule page (PAGES, a comma-separated list of paths
# relative to SOURCE_DIR) as string literals, so `policygraph rules ID` needs no files at run time.
set(body "// Generated from rules/**/*.md by cmake/EmbedRulePages.cmake. Do not edit.\n")
string(APPEND body "#include \"rules/rule_pages.h\"\n\nnamespace pg::rules {\n\nnamespace {\n")
string(APPEND body "const RulePage kPages[] = {\n")
string(REPLACE "," ";" PAGES "${PAGES}")
foreach(page IN LISTS PAGES)
  file(READ "${SOURCE_DIR}/${page}" text)
  string(APPEND body "    {\"${page}\", R\"pgpage(${text})pgpage\"},\n")
endforeach()
string(APPEND body "    {{}, {}},\n};\n}  // namespace\n\n")
string(APPEND body [=[
const RulePage* rulePages(std::size_t& count) {
  count = sizeof kPages / sizeof kPages[0] - 1;
  return kPages;
}

const RulePage* findRulePage(std::string_view id, std::string_view name) {
  std::size_t count = 0;
  const RulePage* pages = rulePages(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::string_view path = pages[i].path;
    std::string_view file = path.substr(path.rfind('/') + 1);
    if (file.size() == id.size() + 1 + name.size() + 3 && file.starts_with(id) &&
        file[id.size()] == '-' && file.substr(id.size() + 1, name.size()) == name &&
        file.ends_with(".md"))
      return &pages[i];
  }
  return nullptr;
}

}  // namespace pg::rules
]=])
file(WRITE "${OUTPUT}.tmp" "${body}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
