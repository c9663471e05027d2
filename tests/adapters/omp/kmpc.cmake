# Programs built by clang (the LLVM runtime ABI: api/adapters/omp/kmpc_*.cpp),
# included by CMakeLists.txt. Each source that passes on a reference
# runtime is built with clang -fopenmp (linked with libomp, as users build)
# and run by compare_kmpc.sh on libjoule-omp through LD_LIBRARY_PATH (its
# libomp.so.5) and LD_PRELOAD, at 1, 2, 4 and 8 threads: the output must be
# the reference's byte for byte. The reference is the same binary on libomp,
# or, where libomp itself fails the program's checks (nested locks owned by
# threads, not tasks; omp_in_final in included tasks; detach, allocator
# traits), the GCC build on libgomp. tasks.c, jacobi.cpp and
# task_deferral.cpp are built by clang and linked against libjoule-omp
# alone (they check joule's own behaviour). Not built by clang 14:
# task_reductions.c (scope), task_udr.c (clang crashes), task_udr.cpp,
# target*.c, task_inline.c (firstprivate VLA), teams.c (calls GOMP_teams4);
# lastprivate_cond.c's sections fail on libomp too (clang 14's code).
find_program(KMPC_TEST_CC NAMES clang-14 clang)
find_program(KMPC_TEST_CXX NAMES clang++-14 clang++)
set(_kmpc_libomp "")
if(KMPC_TEST_CC)
  execute_process(COMMAND ${KMPC_TEST_CC} -print-file-name=libomp.so.5
                  OUTPUT_VARIABLE _kmpc_libomp OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
if(NOT KMPC_TEST_CC OR NOT KMPC_TEST_CXX OR NOT EXISTS "${_kmpc_libomp}")
  message(STATUS "tests/adapters/omp: clang or libomp (libomp-14-dev) missing, "
                 "the clang-built OpenMP programs are not built")
else()
  set(_kmpc_exes)
  set(_kmpc_objs)
  # kmpc_program(NAME COMPILER SOURCE LINK [FLAGS...]): kmpc_NAME; LINK:
  # libomp (clang -fopenmp) or joule (libjoule-omp alone).
  function(kmpc_program name compiler source link)
    set(obj ${_gomp_bin}/kmpc_${name}.o)
    set(exe ${_gomp_bin}/kmpc_${name})
    if(link STREQUAL "joule")
      set(_link ${_gomp_link})
    else()
      set(_link -fopenmp -lm -latomic)  # clang's atomic reductions of long double
    endif()
    add_custom_command(OUTPUT ${exe}
      COMMAND ${compiler} -fopenmp -O2 ${ARGN} -I${_gomp_src} -c ${_gomp_src}/${source} -o ${obj}
      COMMAND ${compiler} ${obj} ${_link} -o ${exe}
      DEPENDS ${_gomp_src}/${source} ${_gomp_headers} joule_gomp
      COMMENT "Building the clang OpenMP test program kmpc_${name}" VERBATIM)
    set(_kmpc_exes ${_kmpc_exes} ${exe} PARENT_SCOPE)
    set(_kmpc_objs ${_kmpc_objs} ${obj} PARENT_SCOPE)
  endfunction()

  # name;reference (libomp: the binary itself, else the GCC build's
  # target file name);pass;labels
  set(_kmpc_runs
    "results|libomp||omp"
    "openmp5_sums|libomp|openmp5_sums: OK\n.*|omp"
    "team_spawns|libomp|team_spawns: OK\n.*|omp"
    "doacross|libomp|doacross: OK\n.*|omp_sync"
    "kmpc_reductions|libomp|kmpc_reductions: OK\n.*|omp_reduction"
    "detach|gomp_detach_libgomp|detach: OK\n.*|omp_sync"
    "locks|gomp_locks_libgomp|locks: OK\n.*|omp_semantics"
    "task_semantics|gomp_task_semantics_libgomp|task_semantics: OK\n.*|omp_semantics"
    "allocators|gomp_allocators_libgomp|allocators: OK\n.*|omp_semantics"
    "affinity_display|gomp_affinity_display_libgomp|affinity_display: OK\n.*|omp_semantics"
    "dist_reductions|libomp|dist_reductions: OK\n.*|omp_reduction"
    "teams_fold|libomp|teams_fold: OK\n.*|omp_reduction"
    "bots_tasks|libomp|bots_tasks: OK\n.*|omp"
    "kmp_routines|libomp|kmp_routines: OK\n.*|omp_semantics")
  foreach(run ${_kmpc_runs})
    string(REPLACE "|" ";" run "${run}")
    list(GET run 0 name)
    list(GET run 1 ref)
    list(GET run 2 pass)
    list(GET run 3 label)
    kmpc_program(${name} ${KMPC_TEST_CC} ${name}.c libomp -std=gnu11)
    set(_exe ${_gomp_bin}/kmpc_${name})
    set(_ref ${_exe})
    if(NOT ref STREQUAL "libomp")
      set(_ref ${_gomp_bin}/${ref})
    endif()
    set(_env "")
    if(label STREQUAL "omp_semantics")
      set(_env "${_sem_env}")  # as the GCC builds run (semantics.cmake)
    endif()
    if(name STREQUAL "kmp_routines")
      set(_env "OMP_STACKSIZE=16M")  # what kmp_get_stacksize_s answers
    endif()
    foreach(n 1 2 4 8)
      add_test(NAME kmpc_${name}_${n}
               COMMAND sh ${_gomp_src}/compare_kmpc.sh $<TARGET_FILE_DIR:joule_gomp>
                       $<TARGET_FILE:joule_gomp> ${_ref} ${_exe})
      set_tests_properties(kmpc_${name}_${n} PROPERTIES LABELS "integration;kmpc;omp;${label}"
        TIMEOUT 120 ENVIRONMENT "${_env};OMP_NUM_THREADS=${n}"
        PASS_REGULAR_EXPRESSION "${pass}compare_kmpc: identical")
    endforeach()
  endforeach()

  # Linked against libjoule-omp alone; each checks itself.
  kmpc_program(tasks ${KMPC_TEST_CC} tasks.c joule -std=gnu11)
  kmpc_program(jacobi ${KMPC_TEST_CXX} jacobi.cpp joule -std=c++17)
  # Dependent tasks deferred, the throttle's budget left alone (the GCC
  # build's twin: gomp_task_deferral_N).
  kmpc_program(task_deferral ${KMPC_TEST_CXX} task_deferral.cpp joule -std=c++17)
  foreach(n 1 2 4)
    add_test(NAME kmpc_task_deferral_joule_${n} COMMAND ${_gomp_bin}/kmpc_task_deferral)
    set_tests_properties(kmpc_task_deferral_joule_${n} PROPERTIES LABELS "integration;kmpc;omp"
      TIMEOUT 120 ENVIRONMENT "JOULE_WORKERS=${n};OMP_NUM_THREADS=${n};JOULE_SERIAL_INLINE=0"
      PASS_REGULAR_EXPRESSION "task_deferral: OK")
  endforeach()
  foreach(prog tasks jacobi)
    foreach(n 1 2 4 8)
      add_test(NAME kmpc_${prog}_joule_${n} COMMAND ${_gomp_bin}/kmpc_${prog})
      set_tests_properties(kmpc_${prog}_joule_${n} PROPERTIES LABELS "integration;kmpc;omp"
        TIMEOUT 120 ENVIRONMENT "JOULE_WORKERS=${n};OMP_NUM_THREADS=${n}")
    endforeach()
  endforeach()
  kmpc_program(unsupported ${KMPC_TEST_CC} kmpc_unsupported.c libomp)
  list(REMOVE_ITEM _kmpc_objs ${_gomp_bin}/kmpc_unsupported.o)  # it calls one on purpose
  add_custom_target(kmpc_programs ALL DEPENDS ${_kmpc_exes})
  add_dependencies(kmpc_programs gomp_detach_program gomp_semantics_programs)

  # Every __kmpc_* entry point those objects call is implemented.
  add_test(NAME kmpc_entry_points
           COMMAND sh ${_gomp_src}/kmpc_symbols.sh $<TARGET_FILE:joule_gomp>
                   ${PROJECT_SOURCE_DIR}/api/adapters/omp/kmpc_unsupported.inc ${_kmpc_objs})
  set_tests_properties(kmpc_entry_points PROPERTIES LABELS "integration;kmpc;omp" TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "kmpc_symbols: all implemented")
  # Instructions per task of a burst of tasks, clang-built against
  # gcc-built, both on libjoule-omp (scripts/omp-task-cost,
  # docs/openmp-llvm-abi.md "Cost per task"): at most 1.1 times.
  find_program(KMPC_VALGRIND valgrind)
  find_program(KMPC_GCC NAMES gcc)
  if(KMPC_VALGRIND AND KMPC_GCC)
    add_test(NAME kmpc_task_cost
             COMMAND ${PROJECT_SOURCE_DIR}/scripts/omp-task-cost --build ${PROJECT_BINARY_DIR}
                     --gcc ${KMPC_GCC} --clang ${KMPC_TEST_CC} --tasks 100000 --check 1.1)
    set_tests_properties(kmpc_task_cost PROPERTIES LABELS "integration;kmpc;omp" TIMEOUT 600
                         PASS_REGULAR_EXPRESSION "omp-task-cost: largest ratio [0-9.]+, within")
  endif()
  # An entry point joule does not implement stops the program with its name.
  add_test(NAME kmpc_unsupported_loud
           COMMAND sh -c "LD_PRELOAD=$0 \"$1\" 2>&1; echo \"exit status $?\""
                   $<TARGET_FILE:joule_gomp> ${_gomp_bin}/kmpc_unsupported)
  set_tests_properties(kmpc_unsupported_loud PROPERTIES LABELS "integration;kmpc;omp" TIMEOUT 60
    PASS_REGULAR_EXPRESSION "libjoule-omp: __kmpc_threadprivate_register is not supported by joule"
    FAIL_REGULAR_EXPRESSION "ran: ")
  add_test(NAME kmp_unsupported_loud
           COMMAND sh -c "LD_PRELOAD=$0 \"$1\" kmp 2>&1; echo \"exit status $?\""
                   $<TARGET_FILE:joule_gomp> ${_gomp_bin}/kmpc_unsupported)
  set_tests_properties(kmp_unsupported_loud PROPERTIES LABELS "integration;kmpc;omp" TIMEOUT 60
    PASS_REGULAR_EXPRESSION "libjoule-omp: kmp_set_library [(]serial mode, or not a library mode[)] is not supported by joule"
    FAIL_REGULAR_EXPRESSION "ran: ")
endif()
