include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS joule joule_settings EXPORT jouleTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY api/include/joule DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT jouleTargets NAMESPACE joule:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/joule)

configure_package_config_file(cmake/jouleConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/jouleConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/joule)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/jouleConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/jouleConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/jouleConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/joule)

configure_file(cmake/joule.pc.in ${CMAKE_CURRENT_BINARY_DIR}/joule.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/joule.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
