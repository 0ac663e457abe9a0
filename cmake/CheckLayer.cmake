# Run at build time for one folder of src/ (see kvbench_layer in src/CMakeLists.txt): fails the
# build when a file includes a folder its layer may not include (docs/ARCHITECTURE.md), or when a
# file in one of the layer's subfolders (output/size/, backend/gpu/) includes another of them but
# common/: each subfolder stands on its own and on the shared one, so the groups cannot tangle.
# -DCONFIG=<file> setting LAYER, ROOT (src/<layer>), ALLOWED (folders) and FILES; -DSTAMP=<file>
# touched on success.
cmake_minimum_required(VERSION 3.25)
include(${CONFIG})
foreach(f IN LISTS FILES)
  file(RELATIVE_PATH rel ${ROOT} ${f})
  if(rel MATCHES "^([a-z_]+)/")
    set(own ${CMAKE_MATCH_1})
    file(STRINGS ${f} siblings REGEX "^#include \"${LAYER}/[a-z_]+/")
    foreach(line IN LISTS siblings)
      string(REGEX REPLACE "^#include \"${LAYER}/([a-z_]+)/.*" "\\1" sub "${line}")
      if(NOT sub STREQUAL own AND NOT sub STREQUAL "common")
        message(FATAL_ERROR "${f}: includes ${LAYER}/${sub}/, but a file in src/${LAYER}/${own}/ may include "
                            "only its own subfolder, common/ and the files of src/${LAYER}/ itself "
                            "(the layers: docs/ARCHITECTURE.md)")
      endif()
    endforeach()
  endif()
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
