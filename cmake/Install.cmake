# `cmake --install` puts the libraries, the public headers, `rl` and a CMake package
# config (find_package(RecordLayer)) under the prefix.
include(CMakePackageConfigHelpers)

install(TARGETS rl_fdb rl_record EXPORT RecordLayerTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS rl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN foundationdb EXCLUDE)
# The libfdb_c-compatible C header goes one level down, so that it never shadows a real
# FoundationDB client's <prefix>/include/foundationdb/fdb_c.h: compile with
# -I<prefix>/include/recordlayer and #include <foundationdb/fdb_c.h>.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/foundationdb
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/recordlayer)

# The Record Layer's public headers include its generated protobuf headers
# ("record_metadata.pb.h"); they and the .proto files they come from (which user schemas
# import, e.g. `import "record_metadata_options.proto";` with -I<prefix>/include/recordlayer/proto)
# go to <prefix>/include/recordlayer/proto, on rl_record's include path.
install(DIRECTORY ${PROJECT_BINARY_DIR}/generated/rl/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/recordlayer/proto
        FILES_MATCHING PATTERN "*.pb.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/rl/proto/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/recordlayer/proto
        FILES_MATCHING PATTERN "*.proto")

set(RL_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/RecordLayer)
install(EXPORT RecordLayerTargets NAMESPACE RecordLayer:: DESTINATION ${RL_CONFIG_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/RecordLayerConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/RecordLayerConfig.cmake
                              INSTALL_DESTINATION ${RL_CONFIG_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RecordLayerConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/RecordLayerConfig.cmake
              ${PROJECT_BINARY_DIR}/RecordLayerConfigVersion.cmake
        DESTINATION ${RL_CONFIG_DIR})
