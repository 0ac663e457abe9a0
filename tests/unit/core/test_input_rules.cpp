// The one parsing, reading and writing rule of issue 26, each against an independent expectation:
// integer bounds from 2^31 and 2^32 arithmetic, UTF-8 from RFC 3629's table, alias expansion from
// the count of nodes a bomb of k levels and width w holds (w^k leaves).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "core/yaml_reader.hpp"
#include "doctor/node_checks.hpp"
#include "doctor/node_facts.hpp"

namespace kvb {
namespace {

TEST(InputRules, IntegersPast32BitsAreRefusedNotWrapped) {
  // 2^32 + 1 would narrow to 1 in an int: it must be refused with the range.
  EXPECT_THROW(parse_int_in("4294967297", "--tp", 1, 1024), UsageError);
  EXPECT_THROW(parse_positive_int("2147483648", "--x"), UsageError);  // 2^31: one past kMaxCount
  EXPECT_EQ(parse_positive_int("2147483647", "--x"), 2147483647);
  // Past 2^63 from_chars reports overflow: refused, not saturated.
  EXPECT_THROW(parse_positive_int("99999999999999999999", "--x", false, INT64_MAX), UsageError);
  EXPECT_EQ(parse_int_in("16", "--block-size", 1, 256), 16);
  try {
    (void)parse_int_in("4294967312", "--block-size", 1, 256);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("from 1 to 256"), std::string::npos) << e.what();
  }
}

TEST(InputRules, RealRangeMessagesSuggestAValueInsideTheRange) {
  try {
    (void)parse_real_in("0", "--step-overhead-us", 0, 1e6);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("at most 1000000"), std::string::npos) << m;  // not 1e+06
    EXPECT_EQ(m.find("0.9"), std::string::npos) << m;
  }
}

// The library's error tag is not for operators: the message keeps the reason alone.
TEST(InputRules, JsonErrorsDropTheLibrarysTag) {
  try {
    (void)nlohmann::json::parse("{}").at("samples");
    FAIL();
  } catch (const nlohmann::json::exception& e) {
    EXPECT_EQ(json_error_text(e), "key 'samples' not found");
  }
}

TEST(InputRules, Utf8FollowsRfc3629) {
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // 2, 3 and 4 bytes
  EXPECT_FALSE(is_valid_utf8("caf\xe9"));                                   // Latin-1
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));                                  // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));                              // a UTF-16 surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));                          // past U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xe2\x82"));                                  // cut short
}

std::string alias_bomb(int levels, int width) {
  std::string text = "a0: &a0 [x]\n";
  for (int i = 1; i <= levels; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < width; ++k) text += (k ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  return text;
}

TEST(InputRules, AliasesCountAsExpanded) {
  // Width 10: level k expands to 10^k leaves; 4 levels (about 11k nodes) pass, 5 (111k) do not.
  EXPECT_NO_THROW(YamlObject::parse(alias_bomb(4, 10), "small.yaml"));
  EXPECT_THROW(YamlObject::parse(alias_bomb(5, 10), "bomb.yaml"), UsageError);
  EXPECT_THROW(YamlObject::parse(alias_bomb(30, 10), "bomb.yaml"),
               UsageError);  // stops at the budget, at once
}

TEST(InputRules, KeysMustBePlainNames) {
  // Found by the fuzzer: a complex key reached a reader's string conversion and escaped as a
  // yaml-cpp exception.
  EXPECT_THROW(YamlObject::parse("? system-prefix: 2000\n  prompt: 3\n", "k.yaml"), UsageError);
  EXPECT_THROW(YamlObject::parse("a:\n  [x, y]: 1\n", "k.yaml"), UsageError);
  EXPECT_NO_THROW(YamlObject::parse("a:\n  b: 1\n", "k.yaml"));
}

// One number syntax, the flags' (parse_positive_int reads "010" as 10): YAML 1.1's octal and hex
// forms, which yaml-cpp reads as 8 and 16, are decimal or refused.
TEST(InputRules, YamlIntegersAreDecimal) {
  const auto y = YamlObject::parse(
      "a: 010\nb: -7\nc: +12\nd: 0x10\ne: 0o10\nf: 1_000\ng: 9223372036854775808\n", "n.yaml");
  EXPECT_EQ(y.integer("a"), 10);
  EXPECT_EQ(y.integer("b"), -7);
  EXPECT_EQ(y.integer("c"), 12);
  for (const char* key : {"d", "e", "f", "g"}) EXPECT_THROW((void)y.integer(key), UsageError) << key;
}

// Readers see the first document only; a second is refused rather than ignored.
TEST(InputRules, OneYamlDocumentPerFile) {
  EXPECT_THROW(YamlObject::parse("a: 1\n---\na: 2\n", "two.yaml"), UsageError);
  EXPECT_NO_THROW(YamlObject::parse("---\na: 1\n", "one.yaml"));  // a leading marker starts the one document
}

TEST(InputRules, NestingIsBoundedSoACyclicAliasCannotRecurse) {
  std::string deep = "a: ";
  for (int i = 0; i < 80; ++i) deep += "[";
  for (int i = 0; i < 80; ++i) deep += "]";
  EXPECT_THROW(YamlObject::parse(deep + "\n", "deep.yaml"), UsageError);  // 80 levels: past the 64 allowed
}

TEST(InputRules, YamlNumbersMustBeFinite) {
  const auto o = YamlObject::parse("a: .inf\nb: 3\n", "t.yaml");
  EXPECT_THROW((void)o.real("a"), UsageError);
  EXPECT_THROW((void)o.real_in("b", 0, 2, 1), UsageError);
  EXPECT_DOUBLE_EQ(o.real_in("c", 0, 2, 1.5), 1.5);
}

TEST(InputRules, JsonFieldsAreRangeCheckedBeforeNarrowing) {
  const auto j =
      nlohmann::json::parse(R"({"tp": 10000000000, "neg": -5, "half": 0.5, "ok": 8, "big": 1e300})");
  EXPECT_THROW((void)json_integer_in(j, "tp", 1, 1024, "f"), UsageError);  // 10^10 would narrow to 1410065408
  EXPECT_THROW((void)json_integer_in(j, "neg", 0, 10, "f"), UsageError);
  EXPECT_THROW((void)json_integer_in(j, "half", 0, 10, "f"), UsageError);
  EXPECT_THROW((void)json_integer_in(j, "missing", 0, 10, "f"), UsageError);
  EXPECT_EQ(json_integer_in(j, "ok", 1, 1024, "f"), 8);
  EXPECT_THROW((void)json_number_in(j, "big", 0, 1e12, "f"), UsageError);
  EXPECT_EQ(json_integer_or(j, "absent", 0, 10, 7, "f"), 7);
}

TEST(InputRules, KernelNumbersArePlainFiniteAndBounded) {
  EXPECT_EQ(kernel_number("8388608"), 8388608.0);
  for (const char* bad : {"nan", "inf", "-1", "1e400", "1e15", "junk", "", "12x"}) {
    EXPECT_FALSE(kernel_number(bad).has_value()) << bad;
  }
}

TEST(InputRules, JunkKernelFiguresMakeChecksSkipNeverPassOrFail) {
  namespace fs = std::filesystem;
  const auto root = fs::temp_directory_path() / ("kvb-junk-node-" + std::to_string(::getpid()));
  fs::create_directories(root / "proc/self");
  fs::create_directories(root / "dev/shm");
  std::ofstream(root / "proc/meminfo") << "MemTotal: -527000000 kB\nMemAvailable: 1e400 kB\n";
  std::ofstream(root / "proc/self/limits")
      << "Max locked memory         nan                  nan                  bytes\n";
  std::ofstream(root / "proc/mounts") << "shm /dev/shm tmpfs rw,size=-1e15 0 0\n";
  const auto facts = read_node_facts(root.string());
  EXPECT_EQ(facts.malformed.size(), 4u);  // MemTotal, MemAvailable, memlock, the shm size
  DoctorRequest request;
  request.tier_bytes = 64.0 * (1 << 30);
  request.gpu_skip_reason = "test";
  int seen = 0;
  for (const auto& c : run_node_checks(facts, request)) {
    if (c.name == "shm" || c.name == "memlock" || c.name == "memory") {
      EXPECT_EQ(c.status, CheckStatus::kSkip) << c.name << ": " << c.detail;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 3);
  fs::remove_all(root);
}

TEST(InputRules, InputFilesCannotBeOutputs) {
  const auto dir = std::filesystem::temp_directory_path() / ("kvb-input-rule-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto input = (dir / "in.json").string();
  std::ofstream(input) << R"({"schema": "x"})";
  (void)read_json_file(input, input);
  EXPECT_THROW(write_file_atomically(input, "replaced"), UsageError);
  EXPECT_THROW(require_writable_output((dir / "." / "in.json").string()), UsageError);
  std::ifstream back(input);
  std::string text((std::istreambuf_iterator<char>(back)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, R"({"schema": "x"})");
  EXPECT_NO_THROW(write_file_atomically((dir / "out.json").string(), "fine"));
  std::filesystem::remove_all(dir);
}

TEST(InputRules, FilesPastTheCapAreRefused) {
  EXPECT_THROW((void)read_text_file("/dev/zero", "--calibration", 1 << 20), UsageError);
}

}  // namespace
}  // namespace kvb
