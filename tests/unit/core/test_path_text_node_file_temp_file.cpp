// Three core helpers (issue 33) against hand-made cases: the printable spelling of a path, the
// node-file reader on what is not a regular file, and the temporary file on every exit path.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/errors.hpp"
#include "core/node_file.hpp"
#include "core/path_text.hpp"
#include "core/temp_file.hpp"

namespace kvb {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const auto dir = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(PathText, EscapesWhatJsonAndYamlCannotCarryAndKeepsUtf8) {
  EXPECT_EQ(printable_path("bad\xff.jsonl"), "bad\\xff.jsonl");
  EXPECT_EQ(printable_path("a\nb\tc"), "a\\nb\\tc");
  EXPECT_EQ(printable_path("caf\xc3\xa9/\xe2\x82\xac"), "caf\xc3\xa9/\xe2\x82\xac");  // é and €: UTF-8, kept
  EXPECT_EQ(printable_path("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/': two bytes
  EXPECT_EQ(printable_path("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable_path("\xe2\x82"), "\\xe2\\x82");           // cut short
  const std::string once = printable_path("x\xff\ny\\z");
  EXPECT_EQ(printable_path(once), once);  // read back and written again: the same bytes
}

TEST(NodeFile, AFifoOrADeviceIsANamedProblemNotARead) {
  const auto dir = scratch("kvb-node-file");
  const auto fifo = (dir / "memory.max").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto f = read_node_file(fifo);  // no writer: a blocking open would never return
  EXPECT_TRUE(f.present);
  EXPECT_NE(f.problem.find("is a FIFO"), std::string::npos) << f.problem;
  fs::create_symlink("/dev/zero", dir / "memory.current");
  const auto z = read_node_file((dir / "memory.current").string());
  EXPECT_NE(z.problem.find("is a character device"), std::string::npos) << z.problem;
  EXPECT_FALSE(read_node_file((dir / "absent").string()).present);
  std::ofstream((dir / "big").string()) << std::string(5000, '7');
  EXPECT_NE(read_node_file((dir / "big").string(), 4096).problem.find("larger than"), std::string::npos);
  std::ofstream((dir / "limit").string()) << "107374182400\n";
  EXPECT_EQ(node_first_line((dir / "limit").string()), "107374182400");
  fs::remove_all(dir);
}

TEST(TempFile, ShortNameRemovedUnlessRenamed) {
  const auto dir = scratch("kvb-temp-file");
  std::string kept;
  {
    TempFile t(dir.string(), "test");
    EXPECT_EQ(fs::path(t.path()).filename().string().size(), 11u);  // ".kvb-XXXXXX", whatever the target
    t.write("half");
    kept = t.path();
    EXPECT_TRUE(fs::exists(kept));
  }
  EXPECT_FALSE(fs::exists(kept));  // dropped on the way out (an exception, an early return)
  TempFile t(dir.string(), "test");
  t.write("whole");
  t.close();
  t.rename_to((dir / std::string(251, 'n')).string());  // a legal name of 251 bytes
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(TempFile, AMissingTmpdirIsNamed) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/nonexistent-kvb", 1);
  try {
    (void)TempFile::in_tmpdir("calibrate --from-vllm");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("TMPDIR '/nonexistent-kvb'"), std::string::npos) << e.what();
  }
  if (old != nullptr)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

}  // namespace
}  // namespace kvb
