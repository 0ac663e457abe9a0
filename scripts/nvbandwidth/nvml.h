/* The few NVML declarations nvbandwidth v0.8 uses, for a CUDA image that ships the driver's
 * libnvidia-ml.so.1 but not the toolkit's nvml.h. Written from NVML's public API reference
 * (docs.nvidia.com/deploy/nvml-api); scripts/nvbandwidth/build.sh puts it on the include path only
 * when the toolkit's own header is missing. */
#ifndef KVBENCH_NVML_MIN_H
#define KVBENCH_NVML_MIN_H
#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvmlReturn_enum { NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED = 3 } nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;

#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80

nvmlReturn_t nvmlInit_v2(void);
#define nvmlInit nvmlInit_v2
nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t device);
const char* nvmlErrorString(nvmlReturn_t result);

#ifdef __cplusplus
}
#endif
#endif
