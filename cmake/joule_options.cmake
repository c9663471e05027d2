# joule_option(NAME DOC DEFAULT): an option a parent project may preset.
macro(joule_option name doc default)
  if(NOT DEFINED ${name})
    option(${name} "${doc}" ${default})
  endif()
endmacro()
