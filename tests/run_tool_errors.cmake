# ctest tool_errors_name_the_cause: a bad command line is reported by its cause.
# - An unknown option (not --kokkos-*) is an error naming it in every subcommand, also where the
#   word after it would otherwise be taken for a FILE that does not exist (`--format csr`);
# - a missing FILE that reads as a generator spec (`--gen even:4096 skewed:4096`) gets the hint
#   to give one spec per --gen;
# - bench --interleave with no peer to pair (--no-peers, --precision f32-f64, --vectors without 1)
#   is refused, naming why;
# - a bad PSPMV_HUGE_PAGES is refused, naming the variable.
# Inputs: -DTOOL=<pspmv> -DWORK=<folder>
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(mtx "${WORK}/tiny.mtx")
file(WRITE "${mtx}" "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2\n")

foreach(sub info gen bench tune compare report)
  execute_process(COMMAND "${TOOL}" ${sub} --no-such-option csr "${mtx}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "not expected:.*--no-such-option" OR err MATCHES "File does not exist")
    message(FATAL_ERROR "pspmv ${sub} --no-such-option csr FILE: exit ${rc}, not an error naming the option:\n${err}")
  endif()
endforeach()
# compare has no --format: the option is named, not its value as a file.
execute_process(COMMAND "${TOOL}" compare --format csr "${mtx}" -o "${WORK}/never" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "not expected: --format" OR EXISTS "${WORK}/never")
  message(FATAL_ERROR "pspmv compare --format csr FILE: exit ${rc}:\n${err}")
endif()
# Kokkos' own flags still go to Kokkos.
execute_process(COMMAND "${TOOL}" info "${mtx}" --kokkos-threads=1 RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pspmv info FILE --kokkos-threads=1 exited ${rc}:\n${err}")
endif()

# A value of PSPMV_HUGE_PAGES other than on, off, 1 or 0 is refused, naming the variable, before
# any work (no record written).
execute_process(COMMAND ${CMAKE_COMMAND} -E env PSPMV_HUGE_PAGES=sometimes "${TOOL}" bench --gen even:4096 --no-peers
                        --reps 1 --json "${WORK}/pages.json" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "PSPMV_HUGE_PAGES is 'sometimes': expected on, off, 1 or 0" OR
   EXISTS "${WORK}/pages.json" OR NOT out STREQUAL "")
  message(FATAL_ERROR "PSPMV_HUGE_PAGES=sometimes pspmv bench: exit ${rc}:\n${out}${err}")
endif()
# PSPMV_HUGE_PAGES=off is taken, and the record says the advice was off.
execute_process(COMMAND ${CMAKE_COMMAND} -E env PSPMV_HUGE_PAGES=off "${TOOL}" bench --gen even:4096 --no-peers
                        --reps 1 --json "${WORK}/pages.json" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "PSPMV_HUGE_PAGES=off pspmv bench: exit ${rc}:\n${err}")
endif()
file(READ "${WORK}/pages.json" json)
string(JSON advice ERROR_VARIABLE e GET "${json}" context pages pspmv_advice)
if(e OR NOT advice STREQUAL "off")
  message(FATAL_ERROR "PSPMV_HUGE_PAGES=off: context.pages.pspmv_advice is '${advice}' ${e}")
endif()

# Two specs after one --gen: the second is a FILE that does not exist, and the error says why.
execute_process(COMMAND "${TOOL}" bench --gen even:4096 skewed:4096 RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "File does not exist: skewed:4096" OR
   NOT err MATCHES "one spec per --gen: --gen SPEC --gen skewed:4096")
  message(FATAL_ERROR "pspmv bench --gen even:4096 skewed:4096: exit ${rc}, no hint:\n${err}")
endif()
foreach(spec random:1000:8 stencil7:10 rmat:10 tile:a.mtx:4)
  execute_process(COMMAND "${TOOL}" info --gen even:4096 ${spec} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT err MATCHES "one spec per --gen")
    message(FATAL_ERROR "pspmv info --gen even:4096 ${spec}: no hint:\n${err}")
  endif()
endforeach()
# A missing file that is no spec gets no hint.
execute_process(COMMAND "${TOOL}" info "${WORK}/absent.mtx" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "File does not exist" OR err MATCHES "one spec per --gen")
  message(FATAL_ERROR "pspmv info absent.mtx: exit ${rc}:\n${err}")
endif()

# --interleave with nothing to pair is refused, naming why (not a run with no pairs).
foreach(args "--no-peers" "--precision;f32-f64" "--vectors;4")
  execute_process(COMMAND "${TOOL}" bench --gen even:256 --interleave ${args} --reps 1 --warmups 0
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "bench --interleave times pspmv beside a peer, but")
    message(FATAL_ERROR "pspmv bench --interleave ${args}: exit ${rc}, not refused:\n${err}")
  endif()
endforeach()
