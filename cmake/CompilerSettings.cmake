# Warnings, sanitizers, ccache and lld for every target of the project.

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

find_program(RL_CCACHE ccache)
if(RL_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${RL_CCACHE}")
endif()

include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=lld" RL_HAVE_LLD)
if(RL_HAVE_LLD)
  add_link_options("-fuse-ld=lld")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # lld 14 mislinks the unwind tables of GCC's hot/cold function splitting: an exception
    # thrown from a .cold clone calls std::terminate (the tuple error tests catch it).
    add_compile_options(-fno-reorder-blocks-and-partition)
  endif()
endif()

# Thread-local variables through TLS descriptors: in a shared library (libfdb_c.so) each
# access is then a short call that finds the variable in static TLS, instead of
# __tls_get_addr's lookup every time; in executables the linker relaxes them as before.
include(CheckCXXCompilerFlag)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  check_cxx_compiler_flag(-mtls-dialect=gnu2 RL_HAVE_TLS_DESCRIPTORS)
  if(RL_HAVE_TLS_DESCRIPTORS)
    add_compile_options(-mtls-dialect=gnu2)
  endif()
endif()

add_compile_options(-Wall -Wextra)
if(RL_WERROR)
  add_compile_options(-Werror)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12's known false positives: reported, never fatal.
    add_compile_options(-Wno-error=restrict -Wno-error=maybe-uninitialized
                        -Wno-error=array-bounds -Wno-error=stringop-overflow)
  endif()
endif()

if(RL_SANITIZE)
  add_compile_options("-fsanitize=${RL_SANITIZE}" -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options("-fsanitize=${RL_SANITIZE}")
endif()
