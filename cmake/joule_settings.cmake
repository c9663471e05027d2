# Warning and sanitizer flags live in INTERFACE targets that every joule target
# links, never in the global CMAKE_CXX_FLAGS.
add_library(joule_settings INTERFACE)
add_library(joule::settings ALIAS joule_settings)
target_compile_options(joule_settings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wnon-virtual-dtor>
  $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra>)
if(JOULE_WARNINGS_AS_ERRORS)
  target_compile_options(joule_settings INTERFACE -Werror)
endif()

# Sanitizers apply to everything built in this tree (tests included), so they
# are added to the directory's flags rather than to one target.
if(JOULE_SANITIZE)
  string(REPLACE ";" "," _joule_san "${JOULE_SANITIZE}")
  add_compile_options(-fsanitize=${_joule_san} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${_joule_san})
  if(_joule_san MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  # The task pool hands blocks between threads; under sanitizers it passes
  # every allocation straight to malloc so the tools see each one.
  add_compile_definitions(JOULE_POOL_PASSTHROUGH=1)
endif()
