# The HIP backend: src/backend/gpu/gpu_backend.cpp compiled by hipcc (CMake's HIP language does not work
# with Debian's ROCm packages), then linked with hip::host into the g++-built binary.
set(gpu_src ${PROJECT_SOURCE_DIR}/src/backend/gpu/gpu_backend.cpp)
set(obj ${PROJECT_BINARY_DIR}/backend-gpu/gpu_backend_hip.o)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/backend-gpu)
if(NOT DEFINED KVBENCH_HIP_ARCHS)
  kvbench_hip_offload_archs(kvb_detected_archs)
  set(KVBENCH_HIP_ARCHS "${kvb_detected_archs}" CACHE STRING "AMD GPU targets for the HIP backend")
endif()
message(STATUS "kvbench: HIP targets ${KVBENCH_HIP_ARCHS}")
kvbench_probe_batch_copy(hip kvb_hip_batch_copy)
set(batch_flag "")
if(kvb_hip_batch_copy)
  set(batch_flag -DKVB_HAVE_BATCH_COPY=1)
endif()
set(werror_flag "")
if(KVBENCH_WERROR)
  set(werror_flag -Werror)
endif()
set(arch_flags "")
foreach(a IN LISTS KVBENCH_HIP_ARCHS)
  list(APPEND arch_flags --offload-arch=${a})
endforeach()
# hipcc writes the headers it read into a depfile, so any header change rebuilds the object.
add_custom_command(
  OUTPUT ${obj}
  COMMAND ${KVBENCH_HIPCC} -c -fPIC -O2 -std=c++17 -x hip ${arch_flags} -DKVBENCH_HIP=1 ${batch_flag} -Wall ${werror_flag}
          -Wno-unused-command-line-argument -MD -MF ${obj}.d
          -I${PROJECT_SOURCE_DIR}/src -I${PROJECT_SOURCE_DIR}/kernels -o ${obj} ${gpu_src}
  DEPENDS ${gpu_src}
  DEPFILE ${obj}.d
  COMMENT "hipcc: HIP backend for ${KVBENCH_HIP_ARCHS}"
  VERBATIM)
add_custom_target(kvbench_hip_obj DEPENDS ${obj})
add_library(kvbench_hip INTERFACE)
add_dependencies(kvbench_hip kvbench_hip_obj)
target_link_libraries(kvbench_hip INTERFACE ${obj} hip::host)
