# ctest tool_report_renders_the_page: `pspmv report` on the kept compare records of three
# machines (perf/results: the H200 GPU, its Xeon host, the 2-core EPYC) must exit 0 and write
# the HTML page with every section and the plots inlined, the Markdown, JSON and CSV, and, where
# gnuplot exists, the PNGs; on a file that is no record it must fail, naming the file.
# Inputs: -DTOOL=<pspmv> -DOUT=<folder> -DRESULTS=<perf/results>
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${TOOL}" report "${RESULTS}/h200/gpu-compare/compare.json" "${RESULTS}/h200/host-compare/compare.json"
                        "${RESULTS}/cpu-2core/compare/compare.json" --label "H200" --label "Xeon host" --label "EPYC 2-core"
                        --reference "Xeon host" -o "${OUT}/page"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pspmv report exited ${rc}:\n${out}\n${err}")
endif()
if(NOT out MATCHES "f64: 16 matrices in every run \\(reference: Xeon host\\)")
  message(FATAL_ERROR "pspmv report printed no summary of the 16 shared matrices:\n${out}")
endif()
set(expect report.html report.md report.json report.csv gbs-f64.dat gbs-f64.gp floor-f64.gp speedup-f64.gp peers-f64.gp)
find_program(GNUPLOT gnuplot)
if(GNUPLOT)
  list(APPEND expect gbs-f64.png floor-f64.png speedup-f64.png peers-f64.png)
endif()
foreach(f IN LISTS expect)
  if(NOT EXISTS "${OUT}/page/${f}")
    message(FATAL_ERROR "pspmv report did not write ${OUT}/page/${f}\n${err}")
  endif()
endforeach()
file(READ "${OUT}/page/report.html" html)
foreach(section "id=\"summary\"" "id=\"plots\"" "id=\"matrices\"" "id=\"unmatched\"" "id=\"mismatches\"" "id=\"runs\""
                "id=\"m-bcsstk13-f64\"" "no context (an older record)" "</html>")
  string(FIND "${html}" "${section}" at)
  if(at LESS 0)
    message(FATAL_ERROR "report.html lacks ${section}")
  endif()
endforeach()
if(GNUPLOT)
  string(REGEX MATCHALL "src=\"data:image/png" images "${html}")  # (no ";": it would split the list)
  list(LENGTH images n)
  if(NOT n EQUAL 4)
    message(FATAL_ERROR "report.html inlines ${n} PNGs, not 4")
  endif()
endif()
file(READ "${OUT}/page/report.json" json)
string(JSON n LENGTH "${json}" matrices)
if(n LESS 16)
  message(FATAL_ERROR "report.json holds only ${n} matrices")
endif()
string(JSON ref GET "${json}" reference)
if(NOT ref STREQUAL "Xeon host")
  message(FATAL_ERROR "report.json names the reference ${ref}")
endif()

# Bad input: compare.json's summary CSV is no record; the error names the file, exit 2.
execute_process(COMMAND "${TOOL}" report "${RESULTS}/h200/gpu-compare/compare.json" "${RESULTS}/h200/gpu-compare/summary.txt"
                -o "${OUT}/bad" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "pspmv: error: .*summary.txt:1: not a pspmv record")
  message(FATAL_ERROR "pspmv report on a text file exited ${rc}:\n${err}")
endif()
if(EXISTS "${OUT}/bad")
  message(FATAL_ERROR "pspmv report wrote ${OUT}/bad although its input was bad")
endif()
