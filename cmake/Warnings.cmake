# Warnings for the project's own targets (not for third-party headers). They are errors only with
# KVBENCH_WERROR=ON (scripts/test.sh and CI): a user's build with another compiler version must not
# fail on a new warning.
option(KVBENCH_WERROR "Treat compiler warnings as errors" OFF)
function(kvbench_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Wnon-virtual-dtor -Wold-style-cast)
  if(KVBENCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
