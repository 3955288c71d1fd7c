# ctest tool_compare_writes_everything: `pspmv compare` on the lesson's pair (small) must exit 0
# (every result verified), print the speedup summary, and write its JSON, CSVs, summary and,
# where gnuplot exists, its PNGs (else the gnuplot scripts).
# Inputs: -DTOOL=<pspmv> -DOUT=<folder>
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${TOOL}" compare --gen even:4096 --gen skewed:4096 --reps 2 --warmups 1 -o "${OUT}/nested"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pspmv compare exited ${rc}:\n${out}\n${err}")
endif()
if(NOT out MATCHES "Speedup of pspmv over each peer" OR NOT out MATCHES "skewed:4096 f64")
  message(FATAL_ERROR "pspmv compare printed no summary:\n${out}")
endif()
set(expect compare.json records.csv summary.csv summary.txt gbs-f64.dat gbs-f64.gp floor-f64.gp speedup-f64.gp)
find_program(GNUPLOT gnuplot)
if(GNUPLOT)
  list(APPEND expect gbs-f64.png floor-f64.png speedup-f64.png)
endif()
foreach(f IN LISTS expect)
  if(NOT EXISTS "${OUT}/nested/${f}")
    message(FATAL_ERROR "pspmv compare did not write ${OUT}/nested/${f}\n${err}")
  endif()
endforeach()
file(READ "${OUT}/nested/compare.json" json)
string(JSON n LENGTH "${json}" records)
if(n LESS 26)  # 13 pspmv variants per matrix at least
  message(FATAL_ERROR "compare.json holds only ${n} records")
endif()
file(READ "${OUT}/nested/summary.csv" csv)
if(NOT csv MATCHES "even:4096,f64,[A-Za-z]+,4096,65536,[0-9.]+,pspmv auto,pspmv,")
  message(FATAL_ERROR "summary.csv lacks the automatic plan's line:\n${csv}")
endif()
