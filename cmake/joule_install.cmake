include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS joule joule_settings joule_dlb EXPORT jouleTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY api/include/joule api/vocab/joule DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT jouleTargets NAMESPACE joule:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/joule)

# The package files locate everything relative to themselves: an install made
# with `cmake --install <build> --prefix <any>` (or moved afterwards) works.
configure_package_config_file(cmake/jouleConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/jouleConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/joule
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/jouleConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/jouleConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/jouleConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/joule)

# pkg-config: prefix=${pcfiledir}/<back to the prefix>, so the .pc holds no
# configure-time prefix. Absolute CMAKE_INSTALL_LIBDIR/INCLUDEDIR stay absolute.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(JOULE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(JOULE_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _joule_pc_up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" _joule_pc_up "${_joule_pc_up}")
  set(JOULE_PC_PREFIX "\${pcfiledir}/${_joule_pc_up}")
  set(JOULE_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(JOULE_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(JOULE_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(cmake/joule.pc.in ${CMAKE_CURRENT_BINARY_DIR}/joule.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/joule.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# joule-dlb.pc: the same library for programs that include DLB's header
# names (`pkg-config --cflags --libs joule-dlb` where they used dlb's).
configure_file(cmake/joule-dlb.pc.in ${CMAKE_CURRENT_BINARY_DIR}/joule-dlb.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/joule-dlb.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
