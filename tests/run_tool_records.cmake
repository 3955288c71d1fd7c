# ctest tool_records: what the tool's records say and how it reads its command line.
# - `pspmv bench` on a 3x3 Matrix Market file holding a nan and an inf, whose name holds a
#   comma, exits 0 with every variant and peer verified, in both precisions (a comma list);
# - its JSON has the context block with every key of docs/benchmarking.md, and each record its
#   dispersion and noise mark; its CSV parses back (Python's csv module where python3 exists,
#   else the quoted name is checked) with as many fields in every line as in the header;
# - `--gen SPEC FILE` takes one spec and reads FILE as a file;
# - a size line with a 19-digit entry count is "out of range", not "not an integer";
# - `bench --interleave` pairs pspmv's fastest variant with the plain OpenMP loop's fastest;
# - every record says how its samples were taken (min_sample_s, sample_calls): several calls a
#   sample by default, one with --min-sample-ms 0; a negative length is refused.
# Inputs: -DTOOL=<pspmv> -DWORK=<folder>
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(mtx "${WORK}/my,matrix.mtx")
file(WRITE "${mtx}" "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 2.5\n1 2 nan\n2 2 inf\n3 1 -1\n3 3 4\n")

execute_process(COMMAND "${TOOL}" bench "${mtx}" --precision f64,f32 --reps 3 --warmups 1
                        --json "${WORK}/bench.json" --csv "${WORK}/bench.csv"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR out MATCHES "WRONG")
  message(FATAL_ERROR "pspmv bench on nan/inf exited ${rc}:\n${out}\n${err}")
endif()
file(READ "${WORK}/bench.json" json)
string(JSON n LENGTH "${json}" records)
if(n LESS 20)
  message(FATAL_ERROR "bench.json holds only ${n} records")
endif()
set(peers 0)
set(batched FALSE)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON skipped GET "${json}" records ${i} skipped)
  string(JSON verified GET "${json}" records ${i} verified)
  string(JSON impl GET "${json}" records ${i} impl)
  string(JSON prec GET "${json}" records ${i} precision)
  if(NOT skipped AND NOT verified)
    message(FATAL_ERROR "record ${i} (${impl} ${prec}) not verified on the nan/inf matrix")
  endif()
  if(NOT impl STREQUAL "pspmv" AND NOT skipped)
    math(EXPR peers "${peers} + 1")
  endif()
  foreach(key iqr_s cv noisy noise min_sample_s sample_calls)
    string(JSON t ERROR_VARIABLE e TYPE "${json}" records ${i} ${key})
    if(e)
      message(FATAL_ERROR "record ${i} lacks ${key}: ${e}")
    endif()
  endforeach()
  # The default samples last at least 0.5 ms: a multiply of a 3x3 matrix takes several a sample
  # (a run preempted while its batch was sized may keep 1: at least one record must have more).
  string(JSON least GET "${json}" records ${i} min_sample_s)
  string(JSON calls GET "${json}" records ${i} sample_calls)
  if(NOT least EQUAL 0.0005 OR NOT calls GREATER 0)
    message(FATAL_ERROR "record ${i} (${impl} ${prec}): min_sample_s ${least}, sample_calls ${calls}")
  endif()
  if(NOT skipped AND calls GREATER 1)
    set(batched TRUE)
  endif()
endforeach()
if(NOT batched)
  message(FATAL_ERROR "no record of the 3x3 matrix took more than one call a sample")
endif()
if(peers EQUAL 0)
  message(FATAL_ERROR "no peer ran on the nan/inf matrix:\n${err}")
endif()
foreach(key schema date host cpu_model cores threads numa_nodes caches gpu compiler cxx_flags build_type host_isa
            host_simd_bytes pspmv_version commit kokkos_version peer_versions omp_env pages kokkos_settings
            load_average_start load_average_end warnings)
  string(JSON t ERROR_VARIABLE e TYPE "${json}" context ${key})
  if(e)
    message(FATAL_ERROR "bench.json's context lacks ${key}: ${e}")
  endif()
endforeach()
foreach(key L1d_bytes L2_bytes L3_bytes)
  string(JSON t ERROR_VARIABLE e TYPE "${json}" context caches ${key})
  if(e)
    message(FATAL_ERROR "bench.json's context.caches lacks ${key}: ${e}")
  endif()
endforeach()
foreach(key OMP_NUM_THREADS OMP_PROC_BIND OMP_PLACES)
  string(JSON t ERROR_VARIABLE e TYPE "${json}" context omp_env ${key})
  if(e)
    message(FATAL_ERROR "bench.json's context.omp_env lacks ${key}: ${e}")
  endif()
endforeach()
# The page mode recorded is the kernel's (null where the kernel has no transparent huge pages).
string(JSON thp ERROR_VARIABLE e GET "${json}" context pages transparent_huge_pages)
if(e)
  message(FATAL_ERROR "bench.json's context.pages lacks transparent_huge_pages: ${e}")
endif()
if(EXISTS /sys/kernel/mm/transparent_hugepage/enabled)
  file(READ /sys/kernel/mm/transparent_hugepage/enabled modes)
  string(REGEX MATCH "\\[([a-z]+)\\]" _ "${modes}")
  if(NOT thp STREQUAL CMAKE_MATCH_1)
    message(FATAL_ERROR "context.pages.transparent_huge_pages is '${thp}', the kernel's mode '${CMAKE_MATCH_1}'")
  endif()
elseif(NOT thp STREQUAL "")
  message(FATAL_ERROR "context.pages.transparent_huge_pages is '${thp}' on a kernel without the mode file")
endif()
set(want on)
if("$ENV{PSPMV_HUGE_PAGES}" STREQUAL "off" OR "$ENV{PSPMV_HUGE_PAGES}" STREQUAL "0")
  set(want off)
endif()
string(JSON advice ERROR_VARIABLE e GET "${json}" context pages pspmv_advice)
if(e OR NOT advice STREQUAL want)
  message(FATAL_ERROR "context.pages.pspmv_advice is '${advice}', PSPMV_HUGE_PAGES '$ENV{PSPMV_HUGE_PAGES}' ${e}")
endif()
string(JSON t ERROR_VARIABLE e TYPE "${json}" context pages glibc_tunables)
if(e)
  message(FATAL_ERROR "bench.json's context.pages lacks glibc_tunables: ${e}")
endif()
string(JSON date GET "${json}" context date)
if(NOT date MATCHES "^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z$")
  message(FATAL_ERROR "context.date is not UTC ISO 8601: ${date}")
endif()
string(JSON threads GET "${json}" context threads)
if(NOT threads GREATER 0)
  message(FATAL_ERROR "context.threads is ${threads}")
endif()

find_program(PYTHON3 python3)
if(PYTHON3)
  execute_process(COMMAND "${PYTHON3}" -c
    "import csv,sys\nrows=list(csv.reader(open(sys.argv[1], newline='')))\nh=rows[0]\nbad=[r for r in rows[1:] if len(r)!=len(h)]\nassert not bad, bad\nassert len(rows)>20, len(rows)\nassert all(r[h.index('matrix')]=='my,matrix' for r in rows[1:]), rows[1]\nassert all(r[h.index('verified')]=='true' for r in rows[1:])\n"
    "${WORK}/bench.csv" RESULT_VARIABLE rc ERROR_VARIABLE perr)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bench.csv does not parse back with Python's csv module: ${perr}")
  endif()
else()
  file(STRINGS "${WORK}/bench.csv" lines)
  list(GET lines 1 first)
  if(NOT first MATCHES "^\"my,matrix\",")
    message(FATAL_ERROR "bench.csv does not quote the name that holds a comma: ${first}")
  endif()
endif()

# --gen takes one spec per occurrence: the file after it is read as a file.
execute_process(COMMAND "${TOOL}" info --gen even:4096 "${mtx}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "my,matrix" OR NOT out MATCHES "even:4096")
  message(FATAL_ERROR "info --gen even:4096 FILE did not read both (exit ${rc}):\n${out}\n${err}")
endif()

# A 19-digit entry count: out of range, named as such.
file(WRITE "${WORK}/huge.mtx" "%%MatrixMarket matrix coordinate real general\n3 3 9999999999999999999\n1 1 1\n")
execute_process(COMMAND "${TOOL}" info "${WORK}/huge.mtx" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "huge.mtx:2: .*entries '9999999999999999999' is out of range")
  message(FATAL_ERROR "a 19-digit nnz gave exit ${rc}:\n${err}")
endif()

# bench --interleave: pspmv's fastest variant and its automatic plan timed again beside each
# peer's fastest, in rounds; the medians are in the peer's record (field interleaved: with,
# median_s, other_median_s, auto_median_s).
execute_process(COMMAND "${TOOL}" bench --gen skewed:4096 --space host --precision f64 --format csr --mapping thread_per_row
                        --schedule static_chunks --interleave --reps 3 --warmups 1 --json "${WORK}/paired.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench --interleave exited ${rc}:\n${err}")
endif()
file(READ "${WORK}/paired.json" json)
string(JSON n LENGTH "${json}" records)
math(EXPR last "${n} - 1")
set(paired 0)
foreach(i RANGE ${last})
  string(JSON impl GET "${json}" records ${i} impl)
  string(JSON with ERROR_VARIABLE e GET "${json}" records ${i} interleaved with)
  if(impl STREQUAL "openmp-plain" AND NOT e AND with MATCHES "^pspmv ")
    string(JSON theirs GET "${json}" records ${i} interleaved median_s)
    string(JSON ours GET "${json}" records ${i} interleaved other_median_s)
    string(JSON auto_s GET "${json}" records ${i} interleaved auto_median_s)
    if(theirs GREATER 0 AND ours GREATER 0 AND auto_s GREATER 0)
      math(EXPR paired "${paired} + 1")
    endif()
  endif()
endforeach()
if(NOT paired EQUAL 1)
  message(FATAL_ERROR "bench --interleave: ${paired} plain OpenMP records timed beside pspmv's best and automatic plans (want 1):\n${err}")
endif()

# --min-sample-ms 0: one fenced call a sample, in the sweep and in the interleaved rounds.
execute_process(COMMAND "${TOOL}" bench --gen skewed:4096 --space host --precision f64 --format csr --mapping thread_per_row
                        --schedule static_chunks --interleave --reps 3 --warmups 1 --min-sample-ms 0
                        --json "${WORK}/one-call.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err MATCHES "samples of at least 0 ms")
  message(FATAL_ERROR "bench --min-sample-ms 0 exited ${rc}:\n${err}")
endif()
file(READ "${WORK}/one-call.json" json)
string(JSON n LENGTH "${json}" records)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON least GET "${json}" records ${i} min_sample_s)
  string(JSON calls GET "${json}" records ${i} sample_calls)
  string(JSON pair ERROR_VARIABLE e GET "${json}" records ${i} interleaved calls)
  if(NOT least EQUAL 0 OR NOT calls EQUAL 1 OR (NOT e AND NOT pair EQUAL 1))
    message(FATAL_ERROR "--min-sample-ms 0, record ${i}: min_sample_s ${least}, sample_calls ${calls}, interleaved calls ${pair}")
  endif()
endforeach()
execute_process(COMMAND "${TOOL}" bench --gen skewed:4096 --min-sample-ms -1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "--min-sample-ms")
  message(FATAL_ERROR "bench --min-sample-ms -1 gave exit ${rc}:\n${err}")
endif()

# The variants and plans of a bench record file, two lists in the records' order.
function(bench_variants file variants_var plans_var)
  file(READ "${file}" json)
  string(JSON n LENGTH "${json}" records)
  set(variants "")
  set(plans "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON variant GET "${json}" records ${i} variant)
      string(JSON plan GET "${json}" records ${i} plan)
      list(APPEND variants "${variant}")
      list(APPEND plans "${plan}")
    endforeach()
  endif()
  set(${variants_var} "${variants}" PARENT_SCOPE)
  set(${plans_var} "${plans}" PARENT_SCOPE)
endfunction()

# Runs `pspmv bench <args> --json WORK/<name>.json`, stopping the test on a failed exit, and reads
# the records' variants and plans (bench_variants) into `variants` and `plans`.
function(bench_records name)
  execute_process(COMMAND "${TOOL}" bench ${ARGN} --json "${WORK}/${name}.json"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(JOIN " " args ${ARGN})
    message(FATAL_ERROR "bench ${args} exited ${rc}:\n${err}")
  endif()
  bench_variants("${WORK}/${name}.json" v p)
  set(variants "${v}" PARENT_SCOPE)
  set(plans "${p}" PARENT_SCOPE)
endfunction()

# --row-weight: each CSR nnz_balanced variant once per weight, its plan naming the weight
# (describe(): " row_weight=W" where W > 0); other variants once.
bench_records(weights --gen skewed:4096 --space host --precision f64 --format csr --mapping thread_per_row
              --schedule static_chunks,nnz_balanced --row-weight 0,8 --no-peers --no-auto --reps 2 --warmups 1)
foreach(variant plan IN ZIP_LISTS variants plans)
  if(variant STREQUAL "csr thread_per_row/nnz_balanced row_weight=8" AND NOT plan MATCHES " row_weight=8")
    message(FATAL_ERROR "bench --row-weight 8: plan '${plan}' does not name the weight")
  endif()
  if(variant STREQUAL "csr thread_per_row/nnz_balanced row_weight=0" AND plan MATCHES "row_weight")
    message(FATAL_ERROR "bench --row-weight 0: plan '${plan}' names a weight")
  endif()
endforeach()
set(seen ${variants})
list(SORT seen)
set(want "csr thread_per_row/nnz_balanced row_weight=0;csr thread_per_row/nnz_balanced row_weight=8;csr thread_per_row/static_chunks")
if(NOT seen STREQUAL want)
  message(FATAL_ERROR "bench --row-weight 0,8: variants '${seen}', want '${want}'")
endif()
execute_process(COMMAND "${TOOL}" bench --gen skewed:4096 --row-weight -1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "--row-weight")
  message(FATAL_ERROR "bench --row-weight -1 gave exit ${rc}:\n${err}")
endif()

# --blocks: each CSR thread_per_row nnz_balanced variant once per block cost (then, in blocks of
# entries, once per row weight), the plan naming group_blocks for groups alone; a team's variants
# once per weight. A host space without masked rows refuses groups, naming the option.
execute_process(COMMAND "${TOOL}" --version OUTPUT_VARIABLE version)
if(version MATCHES "CSR rows in masked")
  bench_records(blocks --gen skewed:4096 --space host --precision f64 --format csr --mapping thread_per_row,team_per_row
                --schedule nnz_balanced --blocks groups,entries --row-weight 0,8 --no-peers --no-auto --reps 2
                --warmups 1)
  foreach(variant plan IN ZIP_LISTS variants plans)
    if(variant MATCHES "blocks=groups" AND NOT plan MATCHES " group_blocks")
      message(FATAL_ERROR "bench --blocks groups: plan '${plan}' does not name group_blocks")
    endif()
    if(NOT variant MATCHES "blocks=groups" AND plan MATCHES "group_blocks")
      message(FATAL_ERROR "bench --blocks: variant '${variant}' runs plan '${plan}' in blocks of groups")
    endif()
  endforeach()
  set(seen ${variants})
  list(SORT seen)
  set(want "csr team_per_row/nnz_balanced row_weight=0" "csr team_per_row/nnz_balanced row_weight=8"
           "csr thread_per_row/nnz_balanced blocks=entries row_weight=0"
           "csr thread_per_row/nnz_balanced blocks=entries row_weight=8"
           "csr thread_per_row/nnz_balanced blocks=groups")
  if(NOT seen STREQUAL want)
    message(FATAL_ERROR "bench --blocks groups,entries --row-weight 0,8: variants '${seen}', want '${want}'")
  endif()
else()
  execute_process(COMMAND "${TOOL}" bench --gen skewed:4096 --space host --format csr --mapping thread_per_row
                          --schedule nnz_balanced --blocks groups --no-peers --no-auto --reps 2 --warmups 1
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "--blocks groups")
    message(FATAL_ERROR "bench --blocks groups without masked rows gave exit ${rc}:\n${err}")
  endif()
endif()

# Without --blocks the plan's own blocks: groups where its rows go in masked groups, else entries.
bench_records(blocks-default --gen skewed:4096 --space host --precision f64 --format csr --mapping thread_per_row
              --schedule nnz_balanced --no-peers --no-auto --reps 2 --warmups 1)
if(NOT variants STREQUAL "csr thread_per_row/nnz_balanced")
  message(FATAL_ERROR "bench without --blocks: variants '${variants}'")
endif()
string(REGEX MATCH " group_blocks" named "${plans}")
string(REGEX MATCH "CSR rows in masked" masked "${version}")
if((named AND NOT masked) OR (masked AND NOT named))
  message(FATAL_ERROR "bench without --blocks: plan '${plans}' of a build whose version reads '${version}' "
                      "(group_blocks where, and only where, rows go in masked groups)")
endif()
