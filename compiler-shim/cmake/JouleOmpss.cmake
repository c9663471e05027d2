# joule_ompss_sources(<target> [SOURCES <files>...] [FLAGS <flags>...] [OMPSS2|OMPSS])
#
# Runs joulecc's translator on the C/C++ sources of <target> (all of them by
# default) at build time and compiles the translations instead, with the
# project's own compiler and flags; links joule's OmpSs support libraries.
# Translations land in <binary dir>/joule_ompss/<target>/ and are redone when
# the source or any header it includes changes. FLAGS are extra flags for
# parsing (the target's include directories, definitions and language
# standard are passed already).
#
# Works with every generator: the output directories are created here, at
# configure time (Makefiles do not create them for custom commands), and
# joulecc --translate also creates them.
#
# In joule's build tree JOULECC_EXECUTABLE is the joulecc target; an installed
# joule sets it in jouleConfig.cmake (find_package(joule)); otherwise find_program.
if(NOT JOULECC_EXECUTABLE)
  find_program(JOULECC_EXECUTABLE joulecc REQUIRED)
endif()

function(joule_ompss_sources target)
  cmake_parse_arguments(J "OMPSS2;OMPSS" "" "SOURCES;FLAGS" ${ARGN})
  get_target_property(all_sources ${target} SOURCES)
  get_target_property(src_dir ${target} SOURCE_DIR)
  if(NOT J_SOURCES)
    set(J_SOURCES ${all_sources})
  endif()
  set(mode)
  if(J_OMPSS2)
    set(mode --ompss-2)
  elseif(J_OMPSS)
    set(mode --ompss)
  endif()
  set(tp "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(dp "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(common "$<$<BOOL:${tp}>:-I$<JOIN:${tp},$<SEMICOLON>-I>>" "$<$<BOOL:${dp}>:-D$<JOIN:${dp},$<SEMICOLON>-D>>")
  set(cstd "$<TARGET_PROPERTY:${target},C_STANDARD>")
  set(cxxstd "$<TARGET_PROPERTY:${target},CXX_STANDARD>")

  set(translated)
  foreach(src IN LISTS J_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${src_dir}")
    get_filename_component(name "${src}" NAME)
    get_filename_component(ext "${src}" LAST_EXT)
    get_source_file_property(lang "${abs}" LANGUAGE)
    if(NOT lang)
      if(ext STREQUAL ".c")
        set(lang C)
      elseif(ext MATCHES "^\\.(cc|cpp|cxx|C|c\\+\\+)$")
        set(lang CXX)
      else()
        continue()
      endif()
    endif()
    if(lang STREQUAL "C")
      set(lang_flag --lang=c)
      set(std "$<$<BOOL:${cstd}>:-std=gnu${cstd}>")
    else()
      set(lang_flag --lang=c++)
      # Without CXX_STANDARD the compiler's default applies: tell the parser which.
      set(std "-std=gnu++$<IF:$<BOOL:${cxxstd}>,${cxxstd},${CMAKE_CXX_STANDARD_DEFAULT}>")
    endif()
    string(MD5 tag "${abs}")
    string(SUBSTRING "${tag}" 0 8 tag)
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/joule_ompss/${target}/${tag}")
    set(out "${out_dir}/${name}")
    file(MAKE_DIRECTORY "${out_dir}")
    get_filename_component(dir "${abs}" DIRECTORY)
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${JOULECC_EXECUTABLE} --translate ${lang_flag} ${mode} --line-name "${abs}"
              -o "${out}" --depfile "${out}.d" --dep-target "${out}" "${abs}"
              -- ${common} ${std} ${J_FLAGS}
      DEPENDS "${abs}" ${JOULECC_EXECUTABLE}
      DEPFILE "${out}.d"
      COMMENT "joulecc: translating ${name}"
      COMMAND_EXPAND_LISTS VERBATIM)
    set_source_files_properties("${out}" PROPERTIES GENERATED TRUE LANGUAGE ${lang}
                                COMPILE_OPTIONS "-iquote;${dir}")
    list(APPEND translated "${out}")
    list(REMOVE_ITEM all_sources "${src}")
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${all_sources} ${translated})
  if(TARGET joule::ompss)
    target_link_libraries(${target} PRIVATE joule::ompss joule::omp_compat)
  else()
    find_library(JOULE_OMPSS_LIBRARY joule_ompss REQUIRED)
    find_library(JOULE_OMP_COMPAT_LIBRARY joule_omp_compat REQUIRED)
    target_link_libraries(${target} PRIVATE ${JOULE_OMPSS_LIBRARY} ${JOULE_OMP_COMPAT_LIBRARY} joule::joule)
  endif()
endfunction()
