set -u
t=$SECONDS
cmake --preset cuda-hopper -DPSPMV_DEPS_DIR=$PWD/third_party/device-deps > $OUT/cfg.log 2>&1 || { tail -20 $OUT/cfg.log; exit 1; }
timeout 360 cmake --build build/cuda-hopper -j16 --target pspmv_cli pspmv_tests > $OUT/build.log 2>&1; echo "build rc $? at $((SECONDS-t)) s"
grep -E "error|warning" $OUT/build.log | sort | uniq -c | head -30
cp build/cuda-hopper/.ninja_log $OUT/ninja_log.txt
[ -x build/cuda-hopper/perf/pspmv ] && xz -T16 -2 -c build/cuda-hopper/perf/pspmv > $OUT/pspmv.xz
if [ -x build/cuda-hopper/tests/pspmv_tests ]; then
  PSPMV_MATRICES=$PWD/.device-matrices OMP_NUM_THREADS=4 OMP_WAIT_POLICY=passive timeout $((575-SECONDS)) build/cuda-hopper/tests/pspmv_tests --gtest_filter='-*OpenMP*:*Serial*' > $OUT/tests.txt 2>&1
  echo "tests rc $? at $((SECONDS-t)) s"
  grep -E "^\[  (PASSED|FAILED) |tests ran|^\[  FAILED" $OUT/tests.txt | tail -30
  tail -3 $OUT/tests.txt
fi
