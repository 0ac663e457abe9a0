// One YAML document per file: a second is refused, found by its marker lines; and a stray ',' where
// a document starts, on which yaml-cpp's LoadAll loops forever allocating (found by fuzz_scenario),
// is read as the one document it is.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "core/yaml_reader.hpp"

namespace kvb {
namespace {

bool refused_as_second_document(const std::string& text) {
  try {
    (void)YamlObject::parse(text, "t.yaml");
  } catch (const UsageError& e) {
    return std::string(e.what()).find("second YAML document") != std::string::npos;
  }
  return false;
}

TEST(YamlDocuments, ASecondDocumentIsRefused) {
  EXPECT_TRUE(refused_as_second_document("a: 1\n---\nb: 2\n"));
  EXPECT_TRUE(refused_as_second_document("---\na: 1\n--- \nb: 2\n"));
  EXPECT_TRUE(refused_as_second_document("a: 1\n...\nb: 2\n"));
}

TEST(YamlDocuments, OneDocumentWithItsMarkersIsRead) {
  EXPECT_FALSE(refused_as_second_document("%YAML 1.2\n---\na: 1\n...\n# the end\n"));
  EXPECT_FALSE(refused_as_second_document("# a comment\n---\na: '---'\nb: |\n  ---x\n"));
  EXPECT_EQ(YamlObject::parse("---\na: 1\n", "t.yaml").integer("a"), 1);
}

TEST(YamlDocuments, AStrayCommaWhereADocumentStartsEnds) {
  // Each returns or is refused; under LoadAll each ran until memory ran out.
  for (const std::string text : {"#c\n,x\n", "A #c\n ,,x\n", "#c\n,\n"}) {
    try {
      EXPECT_FALSE(YamlObject::parse(text, "t.yaml").has("x")) << text;  // no key: the scenario refuses it
    } catch (const UsageError&) {
    }
  }
}

}  // namespace
}  // namespace kvb
