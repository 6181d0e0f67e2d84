// glint::Config: nlohmann's construction rules, the accessors and their
// errors, copies, and the conversions to and from Json.
#include <gtest/gtest.h>

#include <sstream>
#include <type_traits>

#include "glint/glint.h"
#include "glint/json.h"
#include "op_harness.h"

namespace glint::testing {
namespace {

// A pointer never becomes a boolean (nlohmann refuses it too).
static_assert(!std::is_convertible<const void*, Config>::value, "pointers are not configs");
static_assert(!std::is_convertible<int*, Config>::value, "pointers are not configs");

TEST(Config, BracedListsFollowNlohmannsRule) {
  Config dense = {{"units", 8}, {"activation", "tanh"}, {"inputShape", {2}}};
  EXPECT_TRUE(dense.is_object());
  EXPECT_EQ(dense.dump(), R"({"units":8,"activation":"tanh","inputShape":[2]})");
  EXPECT_EQ(Config({1, 2.5, "x", nullptr, true}).dump(), R"([1,2.5,"x",null,true])");
  EXPECT_EQ(Config({"a", 1}).dump(), R"(["a",1])");  // one pair alone is an array
  EXPECT_EQ(Config({{"a", 1}, {2, 3}}).dump(), R"([["a",1],[2,3]])");
  EXPECT_EQ(Config({{"a", {{"b", {1, 2}}}}}).dump(), R"({"a":{"b":[1,2]}})");
  EXPECT_TRUE(Config{}.is_null());
  EXPECT_TRUE(Config(nullptr).is_null());
  EXPECT_TRUE(Config(static_cast<const char*>(nullptr)).is_null());
  EXPECT_EQ(Config::object().dump(), "{}");
  EXPECT_EQ(Config::array().dump(), "[]");
  // Each json type as nlohmann makes it, so configs compare equal to the
  // nlohmann values they replace.
  EXPECT_EQ(dense.json(), (Json{{"units", 8}, {"activation", "tanh"}, {"inputShape", {2}}}));
  EXPECT_TRUE(Config(-3).json().is_number_integer());
  EXPECT_TRUE(Config(3u).json().is_number_unsigned());
  EXPECT_TRUE(Config(2.5f).json().is_number_float());
  EXPECT_EQ(Config(int64_t{1} << 60).get<int64_t>(), int64_t{1} << 60);
  EXPECT_EQ(Config(~uint64_t{0}).get<uint64_t>(), ~uint64_t{0});
  EXPECT_EQ(Config(std::string("s")).get<std::string>(), "s");
  EXPECT_EQ(Config(std::vector<int>{1, 2}).dump(), "[1,2]");
  EXPECT_EQ(Config(Shape{-1, 3}).dump(), "[-1,3]");
  EXPECT_EQ(Config(std::vector<std::string>{"a"}).dump(), R"(["a"])");
  EXPECT_EQ(Config(std::vector<std::vector<double>>{{1.5}, {}}).dump(), "[[1.5],[]]");
  EXPECT_EQ(Config(std::vector<bool>{true, false}).dump(), "[true,false]");
}

TEST(Config, ReadsAndItsErrors) {
  Config c = {{"units", 8}, {"rate", 0.5}, {"name", "d"}, {"shape", {2, 3}}, {"on", true}};
  EXPECT_EQ(c.size(), 5u);
  EXPECT_FALSE(c.empty());
  EXPECT_TRUE(c.contains("units"));
  EXPECT_FALSE(c.contains("unit"));
  EXPECT_FALSE(Config({1, 2}).contains("units"));
  EXPECT_EQ(c.keys(), (std::vector<std::string>{"units", "rate", "name", "shape", "on"}));
  EXPECT_EQ(c["units"].get<int>(), 8);
  EXPECT_EQ(c["units"].get<float>(), 8.0f);
  EXPECT_EQ(c["rate"].get<double>(), 0.5);
  EXPECT_EQ(c["name"].get<std::string>(), "d");
  EXPECT_EQ(c["shape"][1].get<int64_t>(), 3);
  EXPECT_EQ(c["shape"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(c["on"].get<bool>());
  EXPECT_EQ(Config(3.0).get<int>(), 3);  // a whole float is an integer
  EXPECT_EQ(c["units"], 8);
  EXPECT_NE(c["name"], "e");

  expectError([&] { c["unit"]; },
              {"[Config]", "no key \"unit\"", "keys: units, rate, name, shape, on"});
  expectError([&] { c["shape"][2]; }, {"[Config]", "index 2 is out of range: 2 elements"});
  expectError([&] { c["units"]["x"]; }, {"[Config]", "needs an object, got 8"});
  expectError([&] { c[0]; }, {"[Config]", "[0] needs an array"});
  expectError([&] { c["name"].get<int>(); }, {"[Config]", "expected an integer", "got \"d\""});
  expectError([&] { c["rate"].get<int>(); }, {"expected an integer", "got 0.5"});
  expectError([&] { Config(300).get<int8_t>(); }, {"expected an integer in [-128, 127], got 300"});
  expectError([&] { Config(-1).get<unsigned>(); },
              {"expected an integer in [0, 4294967295], got -1"});
  expectError([&] { c["units"].get<std::string>(); }, {"expected a string, got 8"});
  expectError([&] { c["units"].get<bool>(); }, {"expected a boolean"});
  expectError([&] { c["units"].get<std::vector<int>>(); }, {"expected an array"});
}

TEST(Config, CopiesMovesAndWrites) {
  Config a = {{"units", 8}};
  Config b = a;
  b.set("units", 9).set("useBias", false);
  EXPECT_EQ(a.dump(), R"({"units":8})");
  EXPECT_EQ(b.dump(), R"({"units":9,"useBias":false})");
  Config c = std::move(b);
  EXPECT_TRUE(b.is_null());  // NOLINT(bugprone-use-after-move): moved-from is null
  EXPECT_EQ(c["units"], 9);
  a = c;
  EXPECT_EQ(a, c);
  a = Config{1};
  EXPECT_EQ(a.dump(), "[1]");
  Config list;
  list.push_back(1).push_back("two");
  EXPECT_EQ(list.dump(), R"([1,"two"])");
  Config obj;
  obj.set("k", {1, 2});
  EXPECT_EQ(obj.dump(), R"({"k":[1,2]})");
  expectError([&] { list.set("k", 1); }, {"[Config.set]", "needs an object"});
  expectError([&] { obj.push_back(1); }, {"[Config.push_back]", "needs an array"});
  std::ostringstream os;
  os << obj;
  EXPECT_EQ(os.str(), R"({"k":[1,2]})");
  EXPECT_EQ(Config({{"a", 1}}).dump(2), "{\n  \"a\": 1\n}");
}

TEST(Config, ConvertsBothWaysWithJson) {
  Json j = {{"units", 4}, {"kernelInitializer", {{"class_name", "Zeros"}}}};
  Config c = j;  // Json -> Config
  EXPECT_EQ(c.json(), j);
  const Json& view = c;  // Config -> const Json&, no copy
  EXPECT_EQ(&view, &c.json());
  Json copy = c;
  EXPECT_EQ(copy, j);
  Json nested = {{"layer", c}, {"n", 1}};
  EXPECT_EQ(nested["layer"], j);
  c.json()["units"] = 5;  // the mutable view writes through
  EXPECT_EQ(c["units"], 5);
  Config fromRvalue = Json::array({1, 2});
  EXPECT_EQ(fromRvalue.dump(), "[1,2]");
  Config null;
  EXPECT_TRUE(null.json().is_null());  // the const view of null needs no allocation
  null.json() = "s";
  EXPECT_EQ(null, "s");
  // Inside a braced list a Json is one value.
  Config outer = {{"layer", j}};
  EXPECT_EQ(outer["layer"]["units"], 4);

  EXPECT_EQ(Config::parse(R"({"a": [1, 2]})")["a"][1], 2);
  expectError([] { Config::parse("{\"a\": "); }, {"[Config.parse]", "parse error"});
}

TEST(Config, IsWhatTheApiTakes) {
  LayerPtr d = layers::dense({{"units", 3}, {"activation", "tanh"}, {"inputShape", {2}}});
  Json config = d->getConfig();
  EXPECT_EQ(config["units"], 3);
  EXPECT_EQ(config["activation"], "tanh");
  EXPECT_EQ(config["batch_input_shape"], Json::array({nullptr, 2}));
  // A Json and a Config are accepted alike.
  LayerPtr again = layers::fromConfig("Dense", config);
  EXPECT_EQ(again->getConfig()["units"], 3);
  Config asConfig = config;
  asConfig.set("name", "again2");
  EXPECT_EQ(layers::fromConfig("Dense", asConfig)->name(), "again2");
  auto opt = optimizerFromConfig("adam", {{"learningRate", 0.25}});
  EXPECT_FLOAT_EQ(opt->learningRate(), 0.25f);
  auto init = initializers::fromConfig({{"class_name", "Constant"}, {"config", {{"value", 2}}}});
  EXPECT_EQ(init->init({2}).toFloats(), (std::vector<float>{2, 2}));
  auto model =
      sequential({layers::dense({{"units", 1}, {"inputShape", {2}}})}, {{"name", "cfg_model"}});
  EXPECT_EQ(model->name(), "cfg_model");
  io::ModelArtifacts a = io::modelToArtifacts(*model);
  EXPECT_EQ(a.modelTopology["class_name"], "Sequential");
  EXPECT_TRUE(a.trainingConfig.is_null());
  EXPECT_TRUE(a.userDefinedMetadata["glint"].contains("structureHash"));
}

}  // namespace
}  // namespace glint::testing
