#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"

using namespace kvb;

TEST(AtomicFile, ReplacesContentAndLeavesNoTemporary) {
  const auto dir = std::filesystem::temp_directory_path() / "kvbench_atomic_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto path = (dir / "out.json").string();
  write_file_atomically(path, "first");
  write_file_atomically(path, "second");
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "second");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, MissingDirectoryIsUsageErrorAndTouchesNothing) {
  EXPECT_THROW(write_file_atomically("/nonexistent-dir/x.json", "x"), UsageError);
}

TEST(AtomicFile, OutputIsCheckedUpFrontWithoutCreatingAnything) {
  const auto dir = std::filesystem::temp_directory_path() / "kvbench_output_check";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto file = (dir / "result.json").string();
  EXPECT_NO_THROW(require_writable_output(file));
  EXPECT_FALSE(std::filesystem::exists(file));                      // a check, not a write
  EXPECT_THROW(require_writable_output(dir.string()), UsageError);  // a directory is not a file path
  EXPECT_THROW(require_writable_output((dir / "missing" / "x.json").string()), UsageError);
  EXPECT_NO_THROW(require_writable_output("relative-name.json"));  // the current directory
  std::filesystem::remove_all(dir);
}
