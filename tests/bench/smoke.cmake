# Runs by `ctest -R bench_smoke`: generate a 200-route repository twice (the two must be
# byte-identical), lint it (must be clean), and run the harness once over it. Then, with the
# example repository added for findings, lint and status must write the same bytes with one
# thread and with three (at this size the graph, policy and rule stages use them).
foreach(var GEN BENCH LINT OUT EXAMPLES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "smoke.cmake needs -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "`${ARGN}` exited with ${status}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${OUT})
run(${GEN} ${OUT}/a --routes 200 --seed 7)
run(${GEN} ${OUT}/b --routes 200 --seed 7)
run(${CMAKE_COMMAND} -E compare_files --ignore-eol ${OUT}/a/apps/team-001/routes-00.yaml
    ${OUT}/b/apps/team-001/routes-00.yaml)
execute_process(COMMAND diff -r ${OUT}/a ${OUT}/b RESULT_VARIABLE differ OUTPUT_QUIET ERROR_QUIET)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "two runs of pg_bench_gen with the same arguments wrote different files")
endif()
run(${LINT} lint ${OUT}/a --jobs 2 --root ${OUT}/a)
run(${BENCH} ${OUT}/a --jobs 2 --repeat 1 --expect-clean)

function(output var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "`${ARGN}` exited with ${status}\n${err}")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

file(COPY ${EXAMPLES}/ DESTINATION ${OUT}/a/zz-examples)
foreach(jobs 1 3)
  output(lint${jobs} ${LINT} lint ${OUT}/a --root ${OUT}/a --jobs ${jobs} --format json
         --fail-on none)
  output(status${jobs} ${LINT} status ${OUT}/a --root ${OUT}/a --jobs ${jobs})
endforeach()
if(NOT lint1 MATCHES "\"ruleId\"")
  message(FATAL_ERROR "lint found nothing in the examples:\n${lint1}")
endif()
if(NOT lint1 STREQUAL lint3)
  message(FATAL_ERROR "lint --format json differs between --jobs 1 and --jobs 3")
endif()
if(NOT status1 STREQUAL status3)
  message(FATAL_ERROR "status differs between --jobs 1 and --jobs 3")
endif()
file(REMOVE_RECURSE ${OUT})
