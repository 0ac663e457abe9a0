# Warnings are errors for the project's own targets (not for third-party headers).
function(kvbench_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Wnon-virtual-dtor -Wold-style-cast -Werror)
endfunction()
