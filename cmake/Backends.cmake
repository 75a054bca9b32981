# Backends of fdb::Database::open register their address schemes themselves: a backend's
# CMakeLists.txt names its registration function, `void FUNCTION(fdb::BackendRegistry&)` in
# namespace fdb, with
#
#   rl_register_backend(registerEngineBackends)
#
# and rl_generate_builtin_backends(TARGET) (src/CMakeLists.txt, after every backend folder)
# writes the function that calls each of them (src/fdb/builtin_backends.cc.in) into TARGET.
# A new address scheme is one new folder; src/fdb names none of them.

function(rl_register_backend function)
  set_property(GLOBAL APPEND PROPERTY RL_BACKEND_REGISTRARS ${function})
endfunction()

function(rl_generate_builtin_backends target)
  get_property(registrars GLOBAL PROPERTY RL_BACKEND_REGISTRARS)
  set(RL_BACKEND_DECLARATIONS "")
  set(RL_BACKEND_CALLS "")
  foreach(function IN LISTS registrars)
    string(APPEND RL_BACKEND_DECLARATIONS "void ${function}(BackendRegistry& registry);\n")
    string(APPEND RL_BACKEND_CALLS "  ${function}(registry);\n")
  endforeach()
  set(generated ${PROJECT_BINARY_DIR}/generated/fdb/builtin_backends.cc)
  configure_file(${PROJECT_SOURCE_DIR}/src/fdb/builtin_backends.cc.in ${generated} @ONLY)
  target_sources(${target} PRIVATE ${generated})
endfunction()
