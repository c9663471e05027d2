# The OMPT tools interface (api/adapters/omp/ompt_*.cpp), included by
# CMakeLists.txt, label ompt:
# - ompt_{gcc,clang}_{1,2,4}: ompt_program.c built by GCC (run with the test
#   tool preloaded: the program's own ompt_start_tool) and by clang (run
#   through LD_LIBRARY_PATH with OMP_TOOL_LIBRARIES naming the tool) under
#   ompt_tool.c, which checks the events' structure and their counts;
#   ompt_clang_libomp_N: the same on libomp, the reference for the tool.
# - ompt_tool_detects: a wrong expected count fails the check.
# - ompt_disabled: OMP_TOOL=disabled attaches no tool; ompt_verbose_init:
#   OMP_TOOL_VERBOSE_INIT logs the search through OMP_TOOL_LIBRARIES.
# - archer_{race,clean}_{joule,libomp}: archer_tasks.c built with clang
#   -fsanitize=thread, under Archer (libarcher.so, libomp-14-dev): the race
#   is reported, the ordered program is clean; archer_{race,clean}_gcc_joule:
#   GCC's build (-fsanitize=thread) with libjoule-omp preloaded;
#   archer_{results,task_semantics}_joule_{2,4}: corpus programs, no report.
find_program(OMPT_TEST_CC NAMES clang-14 clang)
set(_ompt_libomp "")
set(_ompt_archer "")
if(OMPT_TEST_CC)
  execute_process(COMMAND ${OMPT_TEST_CC} -print-file-name=libomp.so.5
                  OUTPUT_VARIABLE _ompt_libomp OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
if(NOT OMPT_TEST_CC OR NOT EXISTS "${_ompt_libomp}")
  message(STATUS "tests/adapters/omp: clang or libomp (libomp-14-dev) missing, "
                 "the OMPT tests are not built")
  return()
endif()
# Archer is installed next to libomp (libomp-14-dev: /usr/lib/llvm-14/lib).
get_filename_component(_ompt_libomp_dir ${_ompt_libomp} REALPATH)
get_filename_component(_ompt_libomp_dir ${_ompt_libomp_dir} DIRECTORY)
set(_ompt_archer ${_ompt_libomp_dir}/libarcher.so)
set(_ompt_tool ${_gomp_bin}/ompt_tool.so)
set(_ompt_gcc ${_gomp_bin}/ompt_program_gcc)
set(_ompt_clang ${_gomp_bin}/ompt_program_clang)
add_custom_command(OUTPUT ${_ompt_tool}
  COMMAND ${OMPT_TEST_CC} -shared -fPIC -O1 ${_gomp_src}/ompt_tool.c -o ${_ompt_tool} -lpthread
  DEPENDS ${_gomp_src}/ompt_tool.c COMMENT "Building the OMPT test tool" VERBATIM)
add_custom_command(OUTPUT ${_ompt_gcc}
  COMMAND ${GOMP_TEST_CC} -fopenmp -O2 -c ${_gomp_src}/ompt_program.c -o ${_ompt_gcc}.o
  COMMAND ${GOMP_TEST_CC} ${_ompt_gcc}.o ${_gomp_link} -o ${_ompt_gcc}
  DEPENDS ${_gomp_src}/ompt_program.c joule_gomp joule VERBATIM)
add_custom_command(OUTPUT ${_ompt_clang}
  COMMAND ${OMPT_TEST_CC} -fopenmp -O2 ${_gomp_src}/ompt_program.c -o ${_ompt_clang}
  DEPENDS ${_gomp_src}/ompt_program.c VERBATIM)
set(_ompt_outputs ${_ompt_tool} ${_ompt_gcc} ${_ompt_clang})

set(_ompt_expect "parallels=2 tasks=31 deps=24 taskwaits=6 taskgroups=1")
set(_ompt_run sh ${_gomp_src}/expect_output.sh "^ompt_program: OK%^ompt_check: OK" -)
set(_ompt_joule_dir $<TARGET_FILE_DIR:joule_gomp>)
foreach(n 1 2 4)
  add_test(NAME ompt_gcc_${n} COMMAND ${_ompt_run} env LD_PRELOAD=${_ompt_tool} ${_ompt_gcc})
  add_test(NAME ompt_clang_${n} COMMAND ${_ompt_run}
           env LD_LIBRARY_PATH=${_ompt_joule_dir} OMP_TOOL_LIBRARIES=${_ompt_tool} ${_ompt_clang})
  add_test(NAME ompt_clang_libomp_${n} COMMAND ${_ompt_run}
           env LD_LIBRARY_PATH=${_ompt_libomp_dir} OMP_TOOL_LIBRARIES=${_ompt_tool} ${_ompt_clang})
  set_tests_properties(ompt_gcc_${n} ompt_clang_${n} ompt_clang_libomp_${n} PROPERTIES
    LABELS "integration;ompt;omp" TIMEOUT 120
    ENVIRONMENT "OMP_NUM_THREADS=${n};OMPT_CHECK_EXPECT=${_ompt_expect}")
endforeach()
set_tests_properties(ompt_clang_1 ompt_clang_2 ompt_clang_4 PROPERTIES
                     LABELS "integration;ompt;omp;kmpc")
add_test(NAME ompt_tool_detects COMMAND sh ${_gomp_src}/expect_output.sh
         "^ompt_check: FAIL tasks \\(31, 30\\)" "^ompt_check: OK"
         env LD_PRELOAD=${_ompt_tool} OMPT_CHECK_EXPECT=tasks=30 ${_ompt_gcc})
add_test(NAME ompt_disabled COMMAND sh ${_gomp_src}/expect_output.sh "^ompt_program: OK"
         "ompt_check" env LD_PRELOAD=${_ompt_tool} OMP_TOOL=disabled ${_ompt_gcc})
add_test(NAME ompt_verbose_init COMMAND sh ${_gomp_src}/expect_output.sh
         "^Opening /nonexistent/tool.so%^  failed: %Tool found in ${_ompt_tool}: ompt_start_tool returned a result%^The tool is active%^ompt_check: OK"
         - env OMP_TOOL_VERBOSE_INIT=stdout LD_LIBRARY_PATH=${_ompt_joule_dir}
         OMP_TOOL_LIBRARIES=/nonexistent/tool.so:${_ompt_tool} ${_ompt_clang})
set_tests_properties(ompt_tool_detects ompt_disabled ompt_verbose_init PROPERTIES LABELS "integration;ompt;omp"
                     TIMEOUT 120 ENVIRONMENT "OMP_NUM_THREADS=2")

if(NOT EXISTS "${_ompt_archer}")
  message(STATUS "tests/adapters/omp: libarcher.so missing, the Archer tests are not built")
else()
  set(_archer_clean_out "archer_tasks: x=2 y=11 z=4 critical=2 lock=2 on other threads=2")
  foreach(kind race clean)
    set(_exe ${_gomp_bin}/archer_${kind})
    set(_def "")
    if(kind STREQUAL "race")
      set(_def -DRACE)
    endif()
    add_custom_command(OUTPUT ${_exe}
      COMMAND ${OMPT_TEST_CC} -fopenmp -fsanitize=thread -g -O1 ${_def}
              ${_gomp_src}/archer_tasks.c -o ${_exe}
      DEPENDS ${_gomp_src}/archer_tasks.c VERBATIM)
    list(APPEND _ompt_outputs ${_exe})
    foreach(rt joule libomp)
      set(_dir ${_ompt_libomp_dir})
      if(rt STREQUAL "joule")
        set(_dir ${_ompt_joule_dir})
      endif()
      if(kind STREQUAL "race")
        set(_want "SUMMARY: ThreadSanitizer: data race .*archer_tasks.c")
        set(_not -)
      else()
        set(_want "^${_archer_clean_out}$")
        set(_not "ThreadSanitizer")
      endif()
      if(rt STREQUAL "joule")
        set(_want "${_want}%tasks completed")  # joule's report: the run used libjoule-omp
      endif()
      add_test(NAME archer_${kind}_${rt} COMMAND sh ${_gomp_src}/expect_output.sh "${_want}"
               "${_not}" env LD_LIBRARY_PATH=${_dir} OMP_TOOL_LIBRARIES=${_ompt_archer} ${_exe})
      set_tests_properties(archer_${kind}_${rt} PROPERTIES LABELS "integration;ompt;omp;kmpc"
        TIMEOUT 120 ENVIRONMENT "TSAN_OPTIONS=ignore_noninstrumented_modules=1;JOULE_REPORT=1")
    endforeach()
  endforeach()
  # Corpus programs under Archer on libjoule-omp: no report (their
  # synchronisation is the runtime's: barriers, copyprivate, taskwait,
  # dependences of if(0) tasks). (libomp's Archer crashes on task_semantics.)
  foreach(prog results task_semantics)
    set(_exe ${_gomp_bin}/archer_${prog})
    add_custom_command(OUTPUT ${_exe}
      COMMAND ${OMPT_TEST_CC} -fopenmp -fsanitize=thread -g -O1 -std=gnu11 -I${_gomp_src}
              ${_gomp_src}/${prog}.c -o ${_exe} -lm
      DEPENDS ${_gomp_src}/${prog}.c ${_gomp_headers} VERBATIM)
    list(APPEND _ompt_outputs ${_exe})
    set(_want "tasks completed")
    if(prog STREQUAL "task_semantics")
      set(_want "task_semantics: OK%tasks completed")
    endif()
    foreach(n 2 4)
      add_test(NAME archer_${prog}_joule_${n} COMMAND sh ${_gomp_src}/expect_output.sh "${_want}"
               "ThreadSanitizer" env LD_LIBRARY_PATH=${_ompt_joule_dir}
               OMP_TOOL_LIBRARIES=${_ompt_archer} ${_exe})
      set_tests_properties(archer_${prog}_joule_${n} PROPERTIES LABELS "integration;ompt;omp;kmpc"
        TIMEOUT 180 ENVIRONMENT
        "${_sem_env};OMP_NUM_THREADS=${n};TSAN_OPTIONS=ignore_noninstrumented_modules=1;JOULE_REPORT=1")
    endforeach()
  endforeach()

  # GCC's build (libgomp has no OMPT): Archer over libjoule-omp preloaded.
  foreach(kind race clean)
    set(_exe ${_gomp_bin}/archer_${kind}_gcc)
    set(_def "")
    set(_want "^${_archer_clean_out}$%tasks completed")
    set(_not "ThreadSanitizer")
    if(kind STREQUAL "race")
      set(_def -DRACE)
      set(_want "SUMMARY: ThreadSanitizer: data race .*archer_tasks.c%tasks completed")
      set(_not -)
    endif()
    add_custom_command(OUTPUT ${_exe}
      COMMAND ${GOMP_TEST_CC} -fopenmp -fsanitize=thread -g -O1 ${_def}
              ${_gomp_src}/archer_tasks.c -o ${_exe}
      DEPENDS ${_gomp_src}/archer_tasks.c VERBATIM)
    list(APPEND _ompt_outputs ${_exe})
    add_test(NAME archer_${kind}_gcc_joule COMMAND sh ${_gomp_src}/expect_output.sh "${_want}"
             "${_not}" env LD_PRELOAD=$<TARGET_FILE:joule_gomp>
             OMP_TOOL_LIBRARIES=${_ompt_archer} ${_exe})
    set_tests_properties(archer_${kind}_gcc_joule PROPERTIES LABELS "integration;ompt;omp"
      TIMEOUT 120 ENVIRONMENT "TSAN_OPTIONS=ignore_noninstrumented_modules=1;JOULE_REPORT=1")
  endforeach()
endif()
add_custom_target(ompt_programs ALL DEPENDS ${_ompt_outputs})
