# blocked_external_drivers(COMPILER TAG OMP): every driver that COMPILER can
# build, as blocked_<runtime>_<TAG> in this build directory, by invoking
# COMPILER directly (the main build never sets up a second toolchain). The
# shared sources are compiled once into objects that every driver links.
# Added to `bench_apps` only. Uses the variables of CMakeLists.txt beside it.
function(blocked_external_object compiler tag source out_var)
  get_filename_component(_name ${source} NAME_WE)
  set(_obj ${CMAKE_CURRENT_BINARY_DIR}/${tag}/${_name}.o)
  set(_extra)
  if(source IN_LIST _blk_kernels)
    set(_extra ${_blk_kernel_flags})
  endif()
  add_custom_command(
    OUTPUT ${_obj}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/${tag}
    COMMAND ${compiler} ${_blk_flags} ${_extra} -std=c++20 -Wall -Wextra -fPIC -I${_blk_lub_dir} -c
            ${_blk_dir}/${source} -o ${_obj}
    DEPENDS ${_blk_dir}/${source} ${_blk_headers}
    COMMENT "Compiling blocked/${source} with ${compiler}"
    VERBATIM)
  set(${out_var} ${_obj} PARENT_SCOPE)
endfunction()

# blocked_external_link(COMPILER TAG RUNTIME SOURCE OBJS FLAGS... ): one driver.
function(blocked_external_link compiler tag runtime source objs)
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/blocked_${runtime}_${tag})
  add_custom_command(
    OUTPUT ${_out}
    COMMAND ${compiler} ${_blk_flags} -std=c++20 -Wall -Wextra -I${_blk_lub_dir} ${ARGN}
            ${_blk_dir}/${source} ${objs} -o ${_out} -pthread
    DEPENDS ${_blk_dir}/${source} ${objs} ${_blk_headers}
    COMMENT "Building blocked_${runtime}_${tag} with ${compiler}"
    VERBATIM)
  add_custom_target(blocked_${runtime}_${tag}_build DEPENDS ${_out})
  add_dependencies(bench_apps blocked_${runtime}_${tag}_build)
endfunction()

function(blocked_external_drivers compiler tag omp)
  set(_objs)
  foreach(_src IN LISTS _blk_common)
    blocked_external_object(${compiler} ${tag} ${_src} _obj)
    list(APPEND _objs ${_obj})
  endforeach()
  blocked_external_link(${compiler} ${tag} sequential run_seq.cpp "${_objs}")
  blocked_external_link(${compiler} ${tag} joule run_joule.cpp "${_objs}"
                        -I${PROJECT_SOURCE_DIR}/api/include -I${PROJECT_SOURCE_DIR}/api/vocab $<TARGET_FILE:joule>
                        -Wl,-rpath,$<TARGET_FILE_DIR:joule>)
  add_dependencies(blocked_joule_${tag}_build joule)
  # The OpenMP library follows the compiler (g++: libgomp, clang++: libomp);
  # a compiler without its OpenMP runtime fails this target only.
  blocked_external_link(${compiler} ${tag} ${omp} run_omp.cpp "${_objs}" -fopenmp)
  if(TBB_FOUND)
    blocked_external_link(${compiler} ${tag} tbb run_tbb.cpp "${_objs}" -ltbb)
  endif()
  if(STARPU_FOUND)
    set(_starpu_inc)
    foreach(_dir IN LISTS STARPU_INCLUDE_DIRS)
      list(APPEND _starpu_inc -isystem ${_dir})  # its headers warn under -Wextra
    endforeach()
    blocked_external_link(${compiler} ${tag} starpu run_starpu.cpp "${_objs}" ${_starpu_inc}
                          ${STARPU_LDFLAGS})
  endif()
endfunction()
