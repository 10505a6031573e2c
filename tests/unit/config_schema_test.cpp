// config_schema(): the JSON Schema of configs names every key the config reader knows, every axis
// (with ranges where the axis takes integers) and every kernel and variant of the registry. What
// it accepts and refuses is checked against the runner itself by
// tests/cli/schema_agreement_test.py.
#include <algorithm>

#include <gtest/gtest.h>

#include "runner/api/registry.hpp"
#include "runner/spec/axes.hpp"
#include "runner/spec/config_keys.hpp"
#include "runner/spec/config_schema.hpp"

namespace runner {
namespace {

using Json = nlohmann::ordered_json;

bool lists(const Json& array, const std::string& name) {
  return std::find(array.begin(), array.end(), Json(name)) != array.end();
}

TEST(ConfigSchema, DescribesEveryKeyOfTheReader) {
  const Json schema = config_schema();
  const Json& top = schema.at("properties");
  for (const auto& key : section_keys("")) EXPECT_TRUE(top.contains(key)) << key;
  for (const auto& d : axis_descriptors()) EXPECT_TRUE(top.contains(std::string(d.name))) << d.name;
  EXPECT_EQ(top.size(), section_keys("").size() + axis_descriptors().size());
  for (const auto section : {kRepeatSection, kVerifySection, kSlurmSection}) {
    const Json& properties = top.at(std::string(section)).at("properties");
    EXPECT_EQ(properties.size(), section_keys(section).size()) << section;
    for (const auto& key : section_keys(section)) EXPECT_TRUE(properties.contains(key)) << key;
  }
  EXPECT_FALSE(schema.at("additionalProperties").get<bool>());
}

TEST(ConfigSchema, TheBoundsOfNumbersAreTheReaders) {
  const Json schema = config_schema();
  const Json& repeat = schema.at("properties").at("repeat").at("properties");
  EXPECT_EQ(repeat.at("max_samples").at("maximum"), integer_key(kRepeatSection, "max_samples")->hi);
  EXPECT_EQ(repeat.at("target_rsd").at("maximum"), number_key(kRepeatSection, "target_rsd")->hi);
}

TEST(ConfigSchema, IntegerAxesTakeRangesAndTheOthersDoNot) {
  const Json schema = config_schema();
  for (const auto& d : axis_descriptors()) {
    const std::string range = std::string(d.name) + "_range";
    EXPECT_EQ(schema.at("$defs").contains(range), d.integers.has_value()) << d.name;
  }
  EXPECT_TRUE(schema.at("$defs").contains("size_range"));
  EXPECT_FALSE(schema.at("$defs").contains("block_range"));
}

TEST(ConfigSchema, NamesEveryKernelAndVariantOfTheRegistry) {
  const Json defs = config_schema().at("$defs");
  ASSERT_FALSE(Registry::instance().kernels().empty());
  for (const auto& k : Registry::instance().kernels()) {
    EXPECT_TRUE(lists(defs.at("known_kernel").at("enum"), k.name)) << k.name;
    EXPECT_TRUE(lists(defs.at("kernel").at("examples"), k.name)) << k.name;
    const Json& own = defs.at("variant_of_" + k.name).at("enum");
    EXPECT_EQ(own.size(), k.variants.size()) << k.name;
    for (const auto& v : k.variants) {
      // CUDA variants too, built or not: the schema is the same in every build.
      EXPECT_TRUE(lists(defs.at("known_variant").at("enum"), v.name)) << v.name;
      EXPECT_TRUE(lists(own, v.name)) << k.name << "/" << v.name;
    }
  }
}

TEST(ConfigSchema, TextIsTheSchemaWithAFinalNewline) {
  const std::string text = config_schema_text();
  EXPECT_TRUE(text.ends_with("}\n"));
  EXPECT_EQ(Json::parse(text), config_schema());
}

}  // namespace
}  // namespace runner
