// deploy/: the Kubernetes manifest parsed and checked for what the node check needs (the node's
// files read-only under /host, Prometheus text for node-exporter), and the
// Slurm script for one result per node.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include "test_paths.hpp"

namespace {

const std::string kDeploy = std::string(KVBENCH_TEST_DATA) + "/../../deploy";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(KubernetesManifest, DaemonSetReadsTheNodeReadOnlyAndWritesTheTextfileCollector) {
  const auto doc = YAML::LoadFile(kDeploy + "/kubernetes/kvbench-node-check.yaml");
  EXPECT_EQ(doc["kind"].as<std::string>(), "DaemonSet");
  const auto pod = doc["spec"]["template"]["spec"];
  const auto c = pod["containers"][0];
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 1);  // dma --quick needs a device
  EXPECT_FALSE(c["securityContext"]["privileged"].as<bool>());         // its own cgroup namespace
  // The node's files, each a read-only mount of the host's path under /host.
  std::map<std::string, std::string> host_path;
  for (const auto& v : pod["volumes"])
    if (v["hostPath"]) host_path[v["name"].as<std::string>()] = v["hostPath"]["path"].as<std::string>();
  std::map<std::string, std::string> mounted;  // mount path -> host path
  std::string textfile;
  for (const auto& m : c["volumeMounts"]) {
    const auto name = m["name"].as<std::string>();
    const auto path = m["mountPath"].as<std::string>();
    if (path.rfind("/host/", 0) == 0) {
      EXPECT_TRUE(m["readOnly"] && m["readOnly"].as<bool>()) << path;
      mounted[path] = host_path[name];
    }
    if (host_path[name].find("textfile") != std::string::npos) textfile = path;
  }
  for (const char* node : {"/proc", "/sys", "/sys/fs/cgroup", "/dev/shm"})
    EXPECT_EQ(mounted[std::string("/host") + node], node);
  ASSERT_FALSE(textfile.empty());
  const auto script = c["args"][0].as<std::string>();
  EXPECT_NE(script.find("doctor --root /host --tier-size \"$KVBENCH_TIER_GIB\" "), std::string::npos);
  EXPECT_NE(script.find(" --format prom -o /tmp/kvbench_doctor.prom\n"), std::string::npos);
  // A secondary tier's directory only where KVBENCH_TIER_DIR is set (the manifest's default is "").
  EXPECT_NE(script.find("${KVBENCH_TIER_DIR:+--tier-dir \"$KVBENCH_TIER_DIR\"}"), std::string::npos);
  for (const auto& e : c["env"]) {
    if (e["name"].as<std::string>() == "KVBENCH_TIER_DIR") {
      EXPECT_EQ(e["value"].as<std::string>(), "");
    }
  }
  // Each run's file is published whole into the collector's directory, a failed run's too
  // (tests/cli/daemonset_test.py runs the loop).
  EXPECT_NE(script.find("mv \"" + textfile + "/kvbench_$1.prom.tmp\" \"" + textfile + "/kvbench_$1.prom\""),
            std::string::npos);
  EXPECT_NE(script.find("dma --quick --format prom -o /tmp/kvbench_dma.prom\n"), std::string::npos);
  EXPECT_NE(script.find("publish doctor $? 1"), std::string::npos);
  EXPECT_NE(script.find("publish dma $? 0"), std::string::npos);
}

TEST(SlurmScript, OneDoctorAndOneDmaJsonPerNode) {
  const auto s = read(kDeploy + "/slurm/kvbench-fleet.sbatch");
  EXPECT_NE(s.find("#SBATCH --ntasks-per-node=1"), std::string::npos);
  EXPECT_NE(s.find("doctor --tier-size"), std::string::npos);
  EXPECT_NE(s.find("--format json -o \"'\"$OUT\"'/doctor-$host.json\""), std::string::npos);
  EXPECT_NE(s.find("dma --quick --json -o \"'\"$OUT\"'/dma-$host.json\""), std::string::npos);
}

}  // namespace
