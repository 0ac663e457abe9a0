# Precompiled headers: the third-party and standard headers most translation units include
# (nlohmann/json, fmt, the containers), parsed once per target instead of once per file. On two
# cores this is most of a source file's compile time (src/sim/fleet_summary.cpp: 10.3 s -> 4.9 s
# with gcc 12 at -O2 -g). Each target builds its own header (no REUSE_FROM): the layers differ in
# their definitions, and a header built with other flags would be refused. CUDA and HIP device
# sources are left out; KVBENCH_PCH=OFF builds without them (e.g. to check each file's includes).
# scripts/build.sh turns them off where ccache is installed: a .pch holds its clone's absolute
# paths, so no other clone hits the cache for a file compiled with it.
option(KVBENCH_PCH "Precompile the common third-party and standard headers per target" ON)
set(KVBENCH_PCH_HEADERS <algorithm> <cstdint> <functional> <map> <memory> <optional> <string>
    <unordered_map> <utility> <variant> <vector> <fmt/format.h> <nlohmann/json.hpp>)
function(kvbench_precompile target)
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.cpp$")
  list(LENGTH sources n)
  if(NOT KVBENCH_PCH OR n LESS 4)  # below four files the header costs more than it saves
    return()
  endif()
  set(headers ${KVBENCH_PCH_HEADERS} ${ARGN})
  list(TRANSFORM headers PREPEND "$<$<COMPILE_LANGUAGE:CXX>:")
  list(TRANSFORM headers APPEND ">")
  target_precompile_headers(${target} PRIVATE ${headers})
  # clang stamps a header with its build time unless told not to, and ccache then caches nothing
  # that uses it (ccache's manual, "Precompiled headers").
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-Xclang -fno-pch-timestamp>")
  endif()
endfunction()
