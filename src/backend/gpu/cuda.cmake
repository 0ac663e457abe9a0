# The CUDA backend: src/backend/gpu/gpu_backend.cpp compiled by nvcc (architectures:
# cmake/GpuBackends.cmake). Included by kvbench_add_gpu_backends.
set(gpu_src ${PROJECT_SOURCE_DIR}/src/backend/gpu/gpu_backend.cpp)
set_source_files_properties(${gpu_src} PROPERTIES LANGUAGE CUDA)
add_library(kvbench_cuda OBJECT ${gpu_src})
set_target_properties(kvbench_cuda PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON)
target_include_directories(kvbench_cuda PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/kernels)
if(KVBENCH_WERROR)
  target_compile_options(kvbench_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
endif()
kvbench_probe_batch_copy(cuda kvb_cuda_batch_copy)
if(kvb_cuda_batch_copy)
  target_compile_definitions(kvbench_cuda PRIVATE KVB_HAVE_BATCH_COPY=1)
endif()
