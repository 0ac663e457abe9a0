#pragma once
// Where the unit tests find their data, the committed baselines and the fake NVML library. The
// checkout's absolute paths are compiled into one generated file (test_paths.cpp in the build
// folder, tests/unit/CMakeLists.txt), not passed to every test file as a -D definition: a
// definition naming the checkout made every test file miss the compiler cache in another clone.
namespace kvb::test {
const char* test_data_dir();
const char* baselines_dir();
const char* fake_nvml_path();
}  // namespace kvb::test

#define KVBENCH_TEST_DATA (::kvb::test::test_data_dir())
#define KVBENCH_BASELINES (::kvb::test::baselines_dir())
#define KVBENCH_FAKE_NVML (::kvb::test::fake_nvml_path())
