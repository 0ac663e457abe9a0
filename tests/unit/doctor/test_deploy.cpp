// deploy/: the Kubernetes manifest parsed and checked for what the node check needs, and the
// Slurm script for one result per node.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

namespace {

const std::string kDeploy = std::string(KVBENCH_TEST_DATA) + "/../../deploy";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(KubernetesManifest, DaemonSetHasGpuShmMemlockAndTextfileCollector) {
  const auto doc = YAML::LoadFile(kDeploy + "/kubernetes/kvbench-node-check.yaml");
  EXPECT_EQ(doc["kind"].as<std::string>(), "DaemonSet");
  const auto pod = doc["spec"]["template"]["spec"];
  const auto c = pod["containers"][0];
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 1);
  bool ipc_lock = false;
  for (const auto& cap : c["securityContext"]["capabilities"]["add"])
    ipc_lock |= cap.as<std::string>() == "IPC_LOCK";
  EXPECT_TRUE(ipc_lock);
  // /dev/shm is a memory-backed volume; the textfile directory is the host's.
  std::map<std::string, std::string> mounts;
  for (const auto& m : c["volumeMounts"])
    mounts[m["name"].as<std::string>()] = m["mountPath"].as<std::string>();
  bool shm = false, textfile = false;
  for (const auto& v : pod["volumes"]) {
    const auto name = v["name"].as<std::string>();
    if (v["emptyDir"] && v["emptyDir"]["medium"].as<std::string>() == "Memory" && mounts[name] == "/dev/shm")
      shm = true;
    if (v["hostPath"] && v["hostPath"]["path"].as<std::string>().find("textfile") != std::string::npos) {
      textfile = true;
      // Both commands write where that volume is mounted, in Prometheus text.
      const auto script = c["args"][0].as<std::string>();
      EXPECT_NE(
          script.find("doctor --tier-size \"$KVBENCH_TIER_GIB\" --format prom -o " + mounts[name] + "/"),
          std::string::npos);
      EXPECT_NE(script.find("dma --quick --format prom -o " + mounts[name] + "/"), std::string::npos);
    }
  }
  EXPECT_TRUE(shm);
  EXPECT_TRUE(textfile);
}

TEST(SlurmScript, OneDoctorAndOneDmaJsonPerNode) {
  const auto s = read(kDeploy + "/slurm/kvbench-fleet.sbatch");
  EXPECT_NE(s.find("#SBATCH --ntasks-per-node=1"), std::string::npos);
  EXPECT_NE(s.find("doctor --tier-size"), std::string::npos);
  EXPECT_NE(s.find("--format json -o \"'\"$OUT\"'/doctor-$host.json\""), std::string::npos);
  EXPECT_NE(s.find("dma --quick --json -o \"'\"$OUT\"'/dma-$host.json\""), std::string::npos);
}

}  // namespace
