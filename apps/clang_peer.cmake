# joule_clang_peer(NAME SOURCES src... [INCLUDES dir...] [FLAGS flag...]):
# the executable NAME built by clang++ invoking it directly (the main build
# never sets up a second toolchain), for the libomp peers of the apps: with
# g++ as the main compiler, `-fopenmp` under clang++ links LLVM's libomp.
# Part of the default build when clang++ exists; a no-op otherwise.
find_program(JOULE_PEER_CLANGXX NAMES clang++ clang++-14)

function(joule_clang_peer name)
  cmake_parse_arguments(P "" "" "SOURCES;INCLUDES;FLAGS" ${ARGN})
  if(NOT JOULE_PEER_CLANGXX OR CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    return()  # no clang++, or the main build already is clang++
  endif()
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(_inc)
  foreach(_dir IN LISTS P_INCLUDES)
    list(APPEND _inc -I${_dir})
  endforeach()
  add_custom_command(
    OUTPUT ${_out}
    COMMAND ${JOULE_PEER_CLANGXX} -std=c++20 -O3 -march=native -DNDEBUG -Wall -Wextra ${_inc}
            ${P_FLAGS} ${P_SOURCES} -o ${_out} -pthread
    DEPENDS ${P_SOURCES}
    COMMENT "Building ${name} with clang++"
    VERBATIM)
  add_custom_target(${name}_build ALL DEPENDS ${_out})
  set_property(GLOBAL APPEND PROPERTY JOULE_CLANG_PEERS ${name})
endfunction()
