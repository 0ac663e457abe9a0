# Probes at configure time, with the compiler that builds the backend, whether src/backend/gpu/gpu_batch_copy.hpp
# compiles against this runtime (cudaMemcpyBatchAsync: CUDA >= 12.8; hipMemcpyBatchAsync: HIP >= 7).
# Sets <out_var> ON or OFF; the message names the first compiler error when the API is absent.
function(kvbench_probe_batch_copy runtime out_var)
  set(probe ${PROJECT_SOURCE_DIR}/cmake/probes/batch_copy_probe.cpp)
  set(includes -I${PROJECT_SOURCE_DIR}/kernels -I${PROJECT_SOURCE_DIR}/src)
  if(runtime STREQUAL "cuda")
    set(cmd ${CMAKE_CUDA_COMPILER} -std=c++17 -x cu -c -DKVB_HAVE_BATCH_COPY=1 ${includes}
            -o ${CMAKE_CURRENT_BINARY_DIR}/batch_copy_probe.o ${probe})
  else()
    set(cmd ${KVBENCH_HIPCC} -std=c++17 -x hip -fsyntax-only --offload-arch=gfx90a -DKVBENCH_HIP=1
            -DKVB_HAVE_BATCH_COPY=1 ${includes} ${probe})
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    set(${out_var} ON PARENT_SCOPE)
    message(STATUS "kvbench: ${runtime} batched copy API found (ce-batch is measured)")
  else()
    set(${out_var} OFF PARENT_SCOPE)
    string(REGEX MATCH "error: [^\n]*" first_error "${out}")
    string(REGEX REPLACE "^error: " "" first_error "${first_error}")
    message(STATUS "kvbench: ${runtime} runtime has no batched copy API; ce-batch will be waived (compiler: ${first_error})")
  endif()
endfunction()

# AMD targets: gfx90a (MI200) and gfx940 always; gfx942 (MI300X, MI325X) and gfx950 (MI355X) where
# this hipcc knows them (Debian 12's ROCm 5 compiler does not: its binary cannot run on MI300X).
function(kvbench_hip_offload_archs out_var)
  set(archs gfx90a gfx940)
  set(empty ${CMAKE_CURRENT_BINARY_DIR}/empty_probe.hip)
  file(WRITE ${empty} "")
  foreach(a gfx942 gfx950)
    execute_process(COMMAND ${KVBENCH_HIPCC} -x hip -fsyntax-only --offload-arch=${a} ${empty}
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      list(APPEND archs ${a})
    endif()
  endforeach()
  set(${out_var} "${archs}" PARENT_SCOPE)
endfunction()
