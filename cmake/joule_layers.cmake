# Layer include roots from cmake/layers.txt (one table for CMake and
# scripts/check-layers). A target of a layer, or a tool that uses some
# layers, gets PRIVATE include roots for those layers and everything below
# them, and nothing else: an include that points up fails to compile.
#
#   joule_layer(<target> <layer>)           the target implements <layer>
#   joule_use_layers(<target> <layer>...)   a tool or test built on layers

file(STRINGS ${PROJECT_SOURCE_DIR}/cmake/layers.txt _joule_layer_rows REGEX "^[a-z_]+ *\\|")
set(JOULE_LAYERS "")
foreach(_row IN LISTS _joule_layer_rows)
  string(REPLACE "|" ";" _cols "${_row}")
  list(GET _cols 0 _name)
  list(GET _cols 1 _dirs)
  list(GET _cols 2 _uses)
  string(STRIP "${_name}" _name)
  separate_arguments(_dirs UNIX_COMMAND "${_dirs}")
  separate_arguments(_uses UNIX_COMMAND "${_uses}")
  set(JOULE_LAYER_${_name}_DIRS "")
  foreach(_dir IN LISTS _dirs)
    list(APPEND JOULE_LAYER_${_name}_DIRS ${PROJECT_SOURCE_DIR}/${_dir})
  endforeach()
  set(JOULE_LAYER_${_name}_USES "${_uses}")
  list(APPEND JOULE_LAYERS ${_name})
endforeach()

# The include roots of the given layers and of every layer below them.
function(joule_layer_dirs out)
  set(todo ${ARGN})
  set(seen "")
  set(dirs "")
  while(todo)
    list(POP_FRONT todo layer)
    if(layer IN_LIST seen)
      continue()
    endif()
    if(NOT layer IN_LIST JOULE_LAYERS)
      message(FATAL_ERROR "joule: unknown layer '${layer}' (cmake/layers.txt has: ${JOULE_LAYERS})")
    endif()
    list(APPEND seen ${layer})
    list(APPEND dirs ${JOULE_LAYER_${layer}_DIRS})
    list(APPEND todo ${JOULE_LAYER_${layer}_USES})
  endwhile()
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()

function(joule_use_layers target)
  joule_layer_dirs(dirs ${ARGN})
  target_include_directories(${target} PRIVATE ${dirs})
endfunction()

function(joule_layer target layer)
  joule_use_layers(${target} ${layer})
  target_link_libraries(${target} PRIVATE joule::settings)
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
endfunction()
