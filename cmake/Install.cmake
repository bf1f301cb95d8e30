# `cmake --install`: the command-line tools (and dctwin-gui when built), the four libraries with
# their headers, an exported CMake package (find_package(dctwin) gives dctwin::core,
# dctwin::solver, dctwin::models and dctwin::io), the shipped scenarios with their data, and the
# documentation.
# The scenarios and data keep their relative layout under share/dctwin, so that a scenario's
# relative paths (weather files) resolve as in the source tree.
include(CMakePackageConfigHelpers)

set_target_properties(dctwin_core PROPERTIES EXPORT_NAME core)
set_target_properties(dctwin_solver PROPERTIES EXPORT_NAME solver)
set_target_properties(dctwin_models PROPERTIES EXPORT_NAME models)
set_target_properties(dctwin_io PROPERTIES EXPORT_NAME io)

set(DCTWIN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/dctwin)
install(TARGETS dctwin_core dctwin_solver dctwin_models dctwin_io EXPORT dctwinTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(area core solver models io)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${area}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(EXPORT dctwinTargets NAMESPACE dctwin:: DESTINATION ${DCTWIN_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dctwinConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/dctwinConfig.cmake
                              INSTALL_DESTINATION ${DCTWIN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dctwinConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/dctwinConfig.cmake ${PROJECT_BINARY_DIR}/dctwinConfigVersion.cmake
        DESTINATION ${DCTWIN_INSTALL_CMAKEDIR})

# dctwin-gui looks for dctwin-report-probe beside itself, so both go to bin/.
set(DCTWIN_INSTALLED_TOOLS dctwin dctwin-report-probe)
if(TARGET dctwin-gui)
  list(APPEND DCTWIN_INSTALLED_TOOLS dctwin-gui)
endif()
install(TARGETS ${DCTWIN_INSTALLED_TOOLS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios ${PROJECT_SOURCE_DIR}/data
        DESTINATION ${CMAKE_INSTALL_DATADIR}/dctwin)
# The Python reader of reports (xarray, pandas): PYTHONPATH=<prefix>/share/dctwin/python.
install(FILES ${PROJECT_SOURCE_DIR}/python/dctwin_report.py DESTINATION ${CMAKE_INSTALL_DATADIR}/dctwin/python)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
