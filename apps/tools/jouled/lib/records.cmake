# joule_service_records: the parts of jouled's `service` layer
# (cmake/layers.txt) that decide and remember: the access file (TOML, Debian
# libtomlplusplus-dev), the per-job records (SQLite, Debian libsqlite3-dev)
# and the per-job RAPL energy. jouled and `joule-ctl jobs` link it.
find_package(SQLite3 REQUIRED)
find_package(tomlplusplus REQUIRED)

add_library(joule_service_records STATIC
  ${CMAKE_CURRENT_LIST_DIR}/access_policy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/energy_ledger.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_store_recovery.cpp)
joule_layer(joule_service_records service)
joule_layer_dirs(_service_dirs service)
target_include_directories(joule_service_records PUBLIC ${_service_dirs})
target_link_libraries(joule_service_records PUBLIC joule_platform_state joule_core_process
                                                   joule_platform_service SQLite::SQLite3
                                                   tomlplusplus::tomlplusplus)
target_compile_features(joule_service_records PUBLIC cxx_std_20)
