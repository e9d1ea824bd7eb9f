# Writes OUTPUT: a C++ file holding every built-in schema file (FILES, a comma-separated list
# of paths relative to SOURCE_DIR) as string literals (see lib/schema/embedded.h).
set(body "// Generated from lib/schema/data/ by cmake/EmbedSchemas.cmake. Do not edit.\n")
string(APPEND body "#include \"lib/schema/embedded.h\"\n\nnamespace pg::schema {\n\nnamespace {\n")
string(APPEND body "const EmbeddedSchema kSchemas[] = {\n")
string(REPLACE "," ";" FILES "${FILES}")
foreach(f IN LISTS FILES)
  file(READ "${SOURCE_DIR}/${f}" text)
  string(APPEND body "    {\"${f}\", R\"pgschema(${text})pgschema\"},\n")
endforeach()
string(APPEND body "    {{}, {}},\n};\n}  // namespace\n\n")
string(APPEND body [=[
const EmbeddedSchema* embeddedSchemas(std::size_t& count) {
  count = sizeof kSchemas / sizeof kSchemas[0] - 1;
  return kSchemas;
}

}  // namespace pg::schema
]=])
file(WRITE "${OUTPUT}.tmp" "${body}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
