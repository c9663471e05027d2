# Task semantics, locks, the affinity display, allocators and the other
# OpenMP 5 routines (docs/openmp-entry-points.md, "Task semantics, locks and
# allocators"); included by CMakeLists.txt, whose gomp_program() it uses.
# Each program checks itself, linked against libjoule-omp alone, at 8
# threads (more than the CPUs); the same source linked with libgomp runs
# under compare_runs.sh at 1, 2 and 4 threads: the outputs must match.
set(_sem_env "OMP_MAX_TASK_PRIORITY=5;OMP_ALLOCATOR=omp_low_lat_mem_alloc;OMP_DISPLAY_AFFINITY=true"
             "OMP_AFFINITY_FORMAT=t%t T%T L%L n%n N%N a%a H%H P%P i%i A%A")
set(_sem_programs)
# semantics_program(NAME COMPILER SOURCE [FLAGS ...]): gomp_NAME on
# libjoule-omp alone, gomp_NAME_libgomp for compare_runs.sh, and their tests.
function(semantics_program name compiler source)
  gomp_program(gomp_${name} ${compiler} ${source} ${ARGN})
  set(vs ${_gomp_bin}/gomp_${name}_libgomp)
  add_custom_command(OUTPUT ${vs}
    COMMAND ${compiler} -fopenmp -O2 ${ARGN} -I${_gomp_src} ${_gomp_src}/${source} -o ${vs}
    DEPENDS ${_gomp_src}/${source} ${_gomp_src}/check.h VERBATIM)
  set(_sem_programs ${_sem_programs} ${_gomp_bin}/gomp_${name} ${vs} PARENT_SCOPE)
  set(_gomp_programs ${_gomp_programs} PARENT_SCOPE)
  add_test(NAME gomp_${name}_8 COMMAND ${_gomp_bin}/gomp_${name})
  set_tests_properties(gomp_${name}_8 PROPERTIES LABELS "integration;gomp;omp;omp_semantics"
    TIMEOUT 120 ENVIRONMENT "${_sem_env};OMP_NUM_THREADS=8" PASS_REGULAR_EXPRESSION "${name}: OK")
  foreach(n 1 2 4)
    add_test(NAME gomp_${name}_vs_libgomp_${n}
             COMMAND sh ${_gomp_src}/compare_runs.sh $<TARGET_FILE:joule_gomp> ${vs})
    set_tests_properties(gomp_${name}_vs_libgomp_${n} PROPERTIES
      LABELS "integration;gomp;omp;omp_semantics" TIMEOUT 120
      ENVIRONMENT "${_sem_env};OMP_NUM_THREADS=${n}"
      PASS_REGULAR_EXPRESSION "${name}: OK\n.*compare_runs: identical")
  endforeach()
endfunction()

foreach(prog task_semantics locks affinity_display allocators)
  semantics_program(${prog} ${GOMP_TEST_CC} ${prog}.c -std=gnu11)
endforeach()
if(GOMP_TEST_FC)
  semantics_program(semantics_f90 ${GOMP_TEST_FC} semantics.f90)
endif()
add_custom_target(gomp_semantics_programs ALL DEPENDS ${_sem_programs})

# Bad input stops the program with status 1 and a message naming the routine
# (through sh: ctest fails a test killed by a signal whatever its output says).
add_test(NAME gomp_allocators_abort_fb
         COMMAND sh -c "\"$0\" abort 2>&1; echo \"exit status $?\"" ${_gomp_bin}/gomp_allocators)
set_tests_properties(gomp_allocators_abort_fb PROPERTIES LABELS "integration;gomp;omp_semantics"
  TIMEOUT 60 PASS_REGULAR_EXPRESSION
  "before\nlibjoule-omp: out of memory allocating 5000 bytes \\(omp_alloc with an allocator whose fallback is abort_fb\\)\nexit status 1")
add_test(NAME gomp_affinity_bad_format
         COMMAND sh -c "\"$0\" bad 2>&1; echo \"exit status $?\"" ${_gomp_bin}/gomp_affinity_display)
set_tests_properties(gomp_affinity_bad_format PROPERTIES LABELS "integration;gomp;omp_semantics"
  TIMEOUT 60 PASS_REGULAR_EXPRESSION
  "libjoule-omp: omp_capture_affinity: bad affinity format 'level %L %q': unknown field %q at character 10\nexit status 1")
add_test(NAME gomp_bad_allocator COMMAND ${_gomp_bin}/gomp_allocators)
set_tests_properties(gomp_bad_allocator PROPERTIES LABELS "integration;gomp;omp_semantics" TIMEOUT 60
  ENVIRONMENT "OMP_ALLOCATOR=omp_fast_mem_alloc"
  PASS_REGULAR_EXPRESSION "OMP_ALLOCATOR=omp_fast_mem_alloc: unknown allocator; allowed values: omp_default_mem_alloc")
# OMP_DISPLAY_ENV: the ICVs between the spec's first and last lines, at the first OpenMP call.
add_test(NAME gomp_display_env COMMAND ${_gomp_bin}/gomp_task_semantics)
set_tests_properties(gomp_display_env PROPERTIES LABELS "integration;gomp;omp_semantics" TIMEOUT 60
  ENVIRONMENT "OMP_DISPLAY_ENV=verbose;OMP_NUM_THREADS=3;OMP_MAX_TASK_PRIORITY=7;OMP_ALLOCATOR=omp_pteam_mem_alloc"
  PASS_REGULAR_EXPRESSION "OPENMP DISPLAY ENVIRONMENT BEGIN\n  _OPENMP = '201511'\n.*  OMP_NUM_THREADS = '3'\n.*  OMP_MAX_TASK_PRIORITY = '7'\n.*  OMP_ALLOCATOR = 'omp_pteam_mem_alloc'\n.*  JOULE_WORKERS = '[0-9]+'\nOPENMP DISPLAY ENVIRONMENT END\n")
