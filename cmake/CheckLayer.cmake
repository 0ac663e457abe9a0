# Run at build time for one folder of src/ (see kvbench_layer in src/CMakeLists.txt): fails the
# build when a file includes a folder its layer may not include (docs/ARCHITECTURE.md).
# -DCONFIG=<file> setting LAYER, ALLOWED (folders) and FILES; -DSTAMP=<file> touched on success.
cmake_minimum_required(VERSION 3.25)
include(${CONFIG})
foreach(f IN LISTS FILES)
  file(STRINGS ${f} includes REGEX "^#include \"[a-z_]+/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" folder "${line}")
    if(NOT folder IN_LIST ALLOWED)
      string(REPLACE ";" ", " allowed_text "${ALLOWED}")
      message(FATAL_ERROR "${f}: includes ${folder}/, but src/${LAYER}/ may include only ${allowed_text} "
                          "(the layers: docs/ARCHITECTURE.md)")
    endif()
  endforeach()
endforeach()
file(TOUCH ${STAMP})
