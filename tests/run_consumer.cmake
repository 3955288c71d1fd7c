# ctest driver: install this build into a scratch prefix, then configure, build and run
# tests/consumer against it through find_package(pspmv); then check that the package refuses,
# at configure time and naming both versions, a Kokkos other than the one it was built against
# (a stand-in Kokkos package that reports another version).
# The default install must not put a Kokkos where a search of the prefix finds one.
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER GENERATOR KOKKOS_VERSION)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_consumer.cmake: ${v} not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
macro(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endmacro()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer")

foreach(f include/kokkos lib/cmake/Kokkos lib64/cmake/Kokkos bin/nvcc_wrapper)
  if(EXISTS "${WORK_DIR}/prefix/${f}")
    message(FATAL_ERROR "the install put ${f} into the prefix: a Kokkos that a user's search would find")
  endif()
endforeach()

# CHECK_PINNING=OFF (the MPI component's consumer): the package's Kokkos pinning is checked
# once, by the plain consumer.
if(DEFINED CHECK_PINNING AND NOT CHECK_PINNING)
  return()
endif()
set(other_version 9.8.7)
set(fake "${WORK_DIR}/other-kokkos")
file(WRITE "${fake}/lib/cmake/Kokkos/KokkosConfig.cmake"
     "if(NOT TARGET Kokkos::kokkos)\n  add_library(Kokkos::kokkos INTERFACE IMPORTED)\nendif()\n")
file(WRITE "${fake}/lib/cmake/Kokkos/KokkosConfigVersion.cmake"
     "set(PACKAGE_VERSION ${other_version})\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
     "if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)\n  set(PACKAGE_VERSION_EXACT TRUE)\nendif()\n")
# An application that found another Kokkos before pspmv is refused.
file(REMOVE_RECURSE "${WORK_DIR}/mismatch")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/mismatch" -G "${GENERATOR}"
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_PREFIX_PATH=${fake};${WORK_DIR}/prefix"
                        -DCONSUMER_KOKKOS_FIRST=ON
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX REPLACE "[ \t\r\n]+" " " said "${out} ${err}")  # CMake wraps long messages
if(rc EQUAL 0)
  message(FATAL_ERROR "a consumer that found Kokkos ${other_version} first configured; it must fail:\n${out}\n${err}")
endif()
if(NOT said MATCHES "built against Kokkos ${KOKKOS_VERSION}" OR NOT said MATCHES "has Kokkos ${other_version}")
  message(FATAL_ERROR "the mismatch message must name Kokkos ${KOKKOS_VERSION} and ${other_version}:\n${out}\n${err}")
endif()
message(STATUS "refused as it should: ${said}")

# An application that points Kokkos_DIR at another Kokkos and leaves finding it to pspmv gets
# pspmv's own Kokkos (the other one is passed over for its version), never the other one.
file(REMOVE_RECURSE "${WORK_DIR}/mismatch")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/mismatch" -G "${GENERATOR}"
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_PREFIX_PATH=${fake};${WORK_DIR}/prefix"
                        -DKokkos_DIR=${fake}/lib/cmake/Kokkos
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a consumer with Kokkos_DIR at another Kokkos failed to configure:\n${out}\n${err}")
endif()
file(STRINGS "${WORK_DIR}/mismatch/CMakeCache.txt" kokkos_dir REGEX "^Kokkos_DIR:")
if(kokkos_dir MATCHES "other-kokkos" OR kokkos_dir STREQUAL "")
  message(FATAL_ERROR "pspmv took the Kokkos that Kokkos_DIR named (${kokkos_dir}), not its own ${KOKKOS_VERSION}")
endif()
message(STATUS "pspmv kept its Kokkos: ${kokkos_dir}")
