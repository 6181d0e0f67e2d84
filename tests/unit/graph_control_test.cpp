// GraphModel's control flow executor and TensorList ops on graphs built
// here: malformed control flow and bad lists end in errors naming the node,
// op and file; the TensorList ops TF.js cannot check (it lacks them or runs
// them differently from TensorFlow) are checked against the values sliced
// by hand from their inputs. Graphs TF.js can run are in GraphInterop.*.
#include <gtest/gtest.h>

#include <cstring>

#include "glint/glint.h"
#include "glint/graph_model.h"
#include "glint/json.h"
#include "tests/unit/graph_builder.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

Json frame(const std::string& name, bool constant = false) {
  return {{"frame_name", {{"s", base64(name)}}}, {"is_constant", {{"b", constant}}}};
}
Json listAttr(const char* dtype = "DT_FLOAT") { return {{"element_dtype", {{"type", dtype}}}}; }

TEST(GraphControlFlow, MalformedGraphsNameNodeOpAndFile) {
  {  // both inputs of the Merge come from the untaken side of a Switch
    Graph g;
    g.placeholder("x");
    g.boolean("yes", true);
    g.node("sw", "Switch", {"x", "yes"});
    g.node("m", "Merge", {"sw:0", "sw:0"});
    g.node("out", "Relu", {"m"});
    GraphModel m = g.load();
    expectError(
        [&] {
          m.execute({{"x", zeros({2})}}, {"out"});
        },
        {"cflow.json", "'m'", "Merge", "'out'", "dead", "no input of this Merge arrived live"});
    // Asking for the live side works, and the dead side names its Switch.
    EXPECT_EQ(m.execute({{"x", tensor({1, -2}, {2})}}, {"sw:1"})[0].data<float>(),
              (std::vector<float>{1, -2}));
    expectError(
        [&] {
          m.execute({{"x", zeros({2})}}, {"sw:0"});
        },
        {"cflow.json", "'sw'", "Switch", "untaken branch"});
  }
  {  // a loop's back edge with no frame around it
    Graph g;
    g.placeholder("x");
    g.node("m", "Merge", {"x", "next"});
    g.node("y", "Relu", {"m"});
    g.node("next", "NextIteration", {"y"});
    GraphModel m = g.load();
    expectError(
        [&] {
          m.execute({{"x", zeros({2})}}, {"y", "next"});
        },
        {"cflow.json", "'next'", "NextIteration", "outside any frame"});
  }
  {
    Graph g;
    g.placeholder("x");
    g.node("done", "Exit", {"x"});
    GraphModel m = g.load();
    expectError(
        [&] {
          m.execute({{"x", zeros({2})}}, {"done"});
        },
        {"cflow.json", "'done'", "Exit", "outside any frame"});
  }
  {  // a Merge waiting on a loop that never feeds it (no Enter into the frame)
    Graph g;
    g.placeholder("x");
    g.node("m", "Merge", {"next"});
    g.node("next", "NextIteration", {"m"});
    g.node("out", "Relu", {"m"});
    GraphModel m = g.load();
    expectError(
        [&] {
          m.execute({{"x", zeros({2})}}, {"out"});
        },
        {"cflow.json", "'m'", "Merge", "never"});
  }
  {  // a cycle that is no loop (not through NextIteration) is refused at load
    Graph g;
    g.placeholder("x");
    g.node("e", "Enter", {"x"}, frame("f"));
    g.node("a", "AddV2", {"e", "b"});
    g.node("b", "Relu", {"a"});
    expectError([&] { g.load(); }, {"cflow.json", "cycle", "'a'", "NextIteration"});
  }
  {
    Graph g;
    g.placeholder("x");
    g.node("e", "Enter", {"x"});
    GraphModel m = g.load();
    expectError(
        [&] {
          m.execute({{"x", zeros({2})}}, {"e"});
        },
        {"cflow.json", "'e'", "Enter", "frame_name"});
  }
}

TEST(GraphControlFlow, TensorListErrorsNameTheShapes) {
  Graph g;
  g.placeholder("x");
  g.placeholder("row");
  g.placeholder("irow", DType::int32);
  g.ints("es", {3});
  g.ints("any", {-1}, {});
  g.ints("two", {2}, {});
  g.ints("nine", {9}, {});
  g.node("l", "TensorListFromTensor", {"x", "es"}, listAttr());
  g.node("set", "TensorListSetItem", {"l", "two", "row"}, listAttr());
  g.node("set_int", "TensorListSetItem", {"l", "two", "irow"}, listAttr());
  g.node("get9", "TensorListGetItem", {"l", "nine", "es"}, listAttr());
  g.node("get_int", "TensorListGetItem", {"l", "two", "es"}, listAttr("DT_INT32"));
  g.node("reserve", "TensorListReserve", {"es", "two"}, listAttr());
  g.node("stack_unset", "TensorListStack", {"reserve", "es"}, listAttr());
  g.node("unknown", "TensorListReserve", {"any", "two"}, listAttr());
  g.node("unknown_empty", "TensorListResize", {"unknown", "any"});
  g.node("stack_unknown", "TensorListStack", {"unknown", "any"}, listAttr());
  g.node("relu_list", "Relu", {"l"});
  GraphModel m = g.load();
  Tensor x = zeros({4, 3});
  auto run = [&](const std::string& out, const Tensor& row) {
    m.execute({{"x", x}, {"row", row}, {"irow", zeros({3}, DType::int32)}}, {out});
  };
  expectError([&] { run("set", zeros({4})); },
              {"cflow.json", "'set'", "TensorListSetItem", "[4]", "[3]"});
  expectError([&] { run("set_int", zeros({3})); },
              {"'set_int'", "TensorListSetItem", "int32", "float32"});
  expectError([&] { run("get9", zeros({3})); },
              {"'get9'", "TensorListGetItem", "index 9", "4 elements"});
  expectError([&] { run("get_int", zeros({3})); },
              {"'get_int'", "TensorListGetItem", "int32", "float32"});
  // Unset slots of a known element shape read as zeros, as in TensorFlow.
  EXPECT_EQ(m.execute({{"x", x}, {"row", zeros({3})}, {"irow", zeros({3}, DType::int32)}},
                      {"stack_unset"})[0]
                .shape(),
            (Shape{2, 3}));
  expectError([&] { run("stack_unknown", zeros({3})); }, {"'stack_unknown'", "not fully defined"});
  expectError([&] { run("relu_list", zeros({3})); }, {"'relu_list'", "Relu", "TensorList"});
  expectError([&] { run("l", zeros({3})); }, {"cflow.json", "'l'", "TensorList"});
}

// The ops TF.js lacks (TensorListElementShape) or runs differently from
// TensorFlow (PopBack's outputs, Split's pieces), and the V1 forms of
// Scatter and Concat, against values taken from the inputs by hand.
TEST(GraphControlFlow, TensorListOpsTfjsCannotCheck) {
  Graph g;
  g.placeholder("x");
  g.ints("es", {3});
  g.ints("es_rows", {-1, 3});
  g.ints("lengths", {1, 3});
  g.ints("idx", {2, 0});
  g.ints("one", {1}, {});
  g.node("l", "TensorListFromTensor", {"x", "es"}, listAttr());
  g.node("eshape", "TensorListElementShape", {"l"});
  g.node("pop", "TensorListPopBack", {"l", "es"}, listAttr());
  g.node("popped_len", "TensorListLength", {"pop:0"});
  g.node("split", "TensorListSplit", {"x", "es_rows", "lengths"}, listAttr());
  g.node("piece", "TensorListGetItem", {"split", "one", "es_rows"}, listAttr());
  g.node("scatter_src", "TensorListGather", {"l", "idx", "es"}, listAttr());
  g.node("scattered", "TensorListScatter", {"scatter_src", "idx", "es"}, listAttr());
  g.node("sc_stack", "TensorListStack", {"scattered", "es"}, listAttr());
  Json concatAttr = listAttr();
  concatAttr["element_shape"] =
      Json::parse(R"({"shape": {"dim": [{"size": "-1"}, {"size": "3"}]}})");
  g.node("concat", "TensorListConcat", {"split"}, concatAttr);
  GraphModel m = g.load();
  std::vector<float> xv(12);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = 0.5f * static_cast<float>(i) - 2.0f;
  auto rows = [&](std::initializer_list<int> r) {
    std::vector<float> out;
    for (int i : r) out.insert(out.end(), xv.begin() + 3 * i, xv.begin() + 3 * i + 3);
    return out;
  };
  onEveryBackend([&] {
    Tensor x = tensor(xv, {4, 3});
    auto got = m.execute(
        {{"x", x}}, {"eshape", "pop:1", "popped_len", "piece", "sc_stack", "concat", "concat:1"});
    EXPECT_EQ(got[0].data<int32_t>(), (std::vector<int32_t>{3}));
    EXPECT_EQ(got[1].shape(), (Shape{3}));
    EXPECT_EQ(got[1].data<float>(), rows({3}));
    EXPECT_EQ(got[2].data<int32_t>(), (std::vector<int32_t>{3}));
    EXPECT_EQ(got[3].shape(), (Shape{3, 3}));
    EXPECT_EQ(got[3].data<float>(), rows({1, 2, 3}));
    // Gather [2, 0] then scatter to [2, 0]: rows 0 and 2 of x; row 1 was
    // never set and stacks as zeros (TensorFlow's rule for a known shape).
    std::vector<float> want = rows({0});
    want.insert(want.end(), {0.0f, 0.0f, 0.0f});
    for (float v : rows({2})) want.push_back(v);
    EXPECT_EQ(got[4].shape(), (Shape{3, 3}));
    EXPECT_EQ(got[4].data<float>(), want);
    EXPECT_EQ(got[5].shape(), (Shape{4, 3}));
    EXPECT_EQ(got[5].data<float>(), xv);
    EXPECT_EQ(got[6].data<int32_t>(), (std::vector<int32_t>{1, 3}));
  });
}

Json fn(const std::string& name) { return {{"func", {{"name", name}}}}; }

// TF.js has no PartitionedCall (its converter inlines calls), so calls are
// checked against the arithmetic they stand for, on every backend.
TEST(GraphControlFlow, FunctionCalls) {
  Graph g;
  g.placeholder("x");
  g.placeholder("y");
  g.func("inner", {{"a", "DT_FLOAT"}, {"b", "DT_FLOAT"}}, {{"c", "DT_FLOAT"}},
         Json::parse(R"([{"name": "sub", "op": "Sub", "input": ["a", "b"]}])"), {{"c", "sub:z:0"}});
  // Node names may repeat across functions and the main graph.
  g.func("outer", {{"a", "DT_FLOAT"}, {"b", "DT_FLOAT"}}, {{"c", "DT_FLOAT"}, {"d", "DT_FLOAT"}},
         Json::parse(R"([{"name": "x", "op": "Mul", "input": ["a", "b"]},
                         {"name": "call", "op": "PartitionedCall", "input": ["x:z:0", "a"],
                          "attr": {"f": {"func": {"name": "inner"}}}},
                         {"name": "add", "op": "AddV2", "input": ["call:output:0", "b"]}])"),
         {{"c", "add:z:0"}, {"d", "call:output:0"}});
  g.node("called", "StatefulPartitionedCall", {"x", "y"}, {{"f", fn("outer")}});
  g.node("missing", "PartitionedCall", {"x"}, {{"f", fn("outer")}});
  GraphModel m = g.load();
  std::vector<float> xv{0.5f, -1.0f, 2.0f}, yv{3.0f, 0.25f, -1.5f};
  onEveryBackend([&] {
    auto got =
        m.execute({{"x", tensor(xv, {3})}, {"y", tensor(yv, {3})}}, {"called:0", "called:1"});
    for (size_t i = 0; i < 3; ++i) {
      float d = xv[i] * yv[i] - xv[i];  // inner(x * y, x)
      EXPECT_NEAR(got[1].data<float>()[i], d, 1e-6);
      EXPECT_NEAR(got[0].data<float>()[i], d + yv[i], 1e-6);
    }
  });
  expectError(
      [&] {
        m.execute({{"x", zeros({3})}, {"y", zeros({3})}}, {"missing"});
      },
      {"cflow.json", "'missing'", "PartitionedCall", "'outer'", "takes 2 arguments, got 1"});
}

// Loops, lists and function calls leave nothing behind: after the results
// and the model are disposed, the tensor count is where it started.
TEST(GraphControlFlow, RunsLeaveNoTensors) {
  int64_t before = memory().numTensors;
  {
    Graph g;
    g.placeholder("x");
    g.ints("zero", {0}, {});
    g.ints("three", {3}, {});
    g.ints("es", {2});
    g.func("cond", {{"i", "DT_INT32"}, {"l", "DT_VARIANT"}, {"v", "DT_FLOAT"}}, {{"ok", "DT_BOOL"}},
           Json::parse(R"([{"name": "lt", "op": "Less", "input": ["i", "three"]},
                           {"name": "three", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}}}])"),
           {{"ok", "lt:z:0"}});
    g.func("body", {{"i", "DT_INT32"}, {"l", "DT_VARIANT"}, {"v", "DT_FLOAT"}},
           {{"i1", "DT_INT32"}, {"l1", "DT_VARIANT"}, {"v1", "DT_FLOAT"}},
           Json::parse(R"([{"name": "one", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}}},
                           {"name": "inc", "op": "AddV2", "input": ["i", "one"]},
                           {"name": "sq", "op": "Mul", "input": ["v", "v"]},
                           {"name": "set", "op": "TensorListSetItem", "input": ["l", "i", "sq:z:0"],
                            "attr": {"element_dtype": {"type": "DT_FLOAT"}}}])"),
           {{"i1", "inc:z:0"}, {"l1", "set:output_handle:0"}, {"v1", "sq:z:0"}});
    int32_t one = 1;
    g.weight("one", {}, DType::int32, &one, 4);
    g.node("l", "TensorListReserve", {"es", "three"}, listAttr());
    g.node("w", "While", {"zero", "l", "x"}, {{"cond", fn("cond")}, {"body", fn("body")}});
    g.node("stacked", "TensorListStack", {"w:1", "es"}, listAttr());
    GraphModel m = g.load();
    Tensor x = tensor({0.5f, 2.0f}, {2});
    Tensor y = m.execute({{"x", x}}, {"stacked"})[0];
    // Row i holds x^(2^(i+1)).
    EXPECT_EQ(y.data<float>(),
              (std::vector<float>{0.25f, 4.0f, 0.0625f, 16.0f, 0.00390625f, 256.0f}));
    y.dispose();
    x.dispose();
    m.dispose();
  }
  EXPECT_EQ(memory().numTensors, before);
}

TEST(GraphControlFlow, BadFunctionalOpsNameNodeOpAndFile) {
  {
    Graph g;
    g.placeholder("x");
    g.node("w", "While", {"x"}, {{"cond", fn("nope")}, {"body", fn("nope")}});
    expectError([&] { g.load(); }, {"cflow.json", "'w'", "While", "'nope'", "library lacks"});
  }
  {
    Graph g;
    g.placeholder("x");
    g.node("w", "If", {"x", "x"}, {{"then_branch", fn("t")}});
    g.func("t", {{"a", "DT_FLOAT"}}, {{"b", "DT_FLOAT"}},
           Json::parse(R"([{"name": "r", "op": "Relu", "input": ["a"]}])"),
           {{"b", "r:activations:0"}});
    expectError([&] { g.load(); }, {"cflow.json", "'w'", "If", "else_branch"});
  }
  {  // a body that drops a loop variable
    Graph g;
    g.placeholder("x");
    g.ints("zero", {0}, {});
    g.func("cond", {{"i", "DT_INT32"}, {"v", "DT_FLOAT"}}, {{"ok", "DT_BOOL"}},
           Json::parse(R"([{"name": "ten", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}}},
                           {"name": "lt", "op": "Less", "input": ["i", "ten"]}])"),
           {{"ok", "lt:z:0"}});
    int32_t ten = 10;
    g.weight("ten", {}, DType::int32, &ten, 4);
    g.func("body", {{"i", "DT_INT32"}, {"v", "DT_FLOAT"}}, {{"v1", "DT_FLOAT"}},
           Json::parse(R"([{"name": "r", "op": "Relu", "input": ["v"]}])"),
           {{"v1", "r:activations:0"}});
    g.node("w", "While", {"zero", "x"}, {{"cond", fn("cond")}, {"body", fn("body")}});
    GraphModel m = g.load();
    expectError(
        [&] {
          m.execute({{"x", zeros({2})}}, {"w:1"});
        },
        {"cflow.json", "'w'", "While", "'body'", "1 values for 2 loop variables"});
  }
  {  // an unknown op inside a function names the function
    Graph g;
    g.placeholder("x");
    g.func("f", {{"a", "DT_FLOAT"}}, {{"b", "DT_FLOAT"}},
           Json::parse(R"([{"name": "r", "op": "Fancy", "input": ["a"]}])"), {{"b", "r:y:0"}});
    g.node("c", "PartitionedCall", {"x"}, {{"f", fn("f")}});
    expectError([&] { g.load(); }, {"cflow.json", "function 'f'", "'r'", "Fancy", "not supported"});
  }
}

// TF.js's TensorArrayCloseV3 disposes what was read before it, so close is
// checked here: a control input orders it after the reads, and an op ordered
// after it finds the array closed. Misuse of an array names the array's op.
TEST(GraphControlFlow, TensorArrayCloseAndErrors) {
  Graph g;
  g.placeholder("x");
  g.placeholder("row");
  g.ints("two", {2}, {});
  g.ints("one", {1}, {});
  g.ints("zero", {0}, {});
  g.ints("five", {5}, {});
  Json attrs = Json::parse(R"({"dtype": {"type": "DT_FLOAT"}, "clear_after_read": {"b": true},
                               "element_shape": {"shape": {"dim": [{"size": "3"}]}}})");
  g.node("ta", "TensorArrayV3", {"two"}, attrs);
  g.node("w0", "TensorArrayWriteV3", {"ta", "zero", "row", "ta:1"});
  g.node("r0", "TensorArrayReadV3", {"ta", "zero", "w0"}, {{"dtype", {{"type", "DT_FLOAT"}}}});
  g.node("close", "TensorArrayCloseV3", {"ta", "^r0"});
  g.node("kept", "Identity", {"r0", "^close"});
  g.node("read_closed", "TensorArrayReadV3", {"ta", "zero", "w0", "^close"},
         {{"dtype", {{"type", "DT_FLOAT"}}}});
  g.node("w0_again", "TensorArrayWriteV3", {"ta", "zero", "row", "w0"});
  g.node("r0_again", "TensorArrayReadV3", {"ta", "zero", "w0", "^r0"},
         {{"dtype", {{"type", "DT_FLOAT"}}}});
  g.node("w5", "TensorArrayWriteV3", {"ta", "five", "row", "ta:1"});
  g.node("r1", "TensorArrayReadV3", {"ta", "one", "w0"}, {{"dtype", {{"type", "DT_FLOAT"}}}});
  g.node("r_int", "TensorArrayReadV3", {"ta", "zero", "w0"}, {{"dtype", {{"type", "DT_INT32"}}}});
  g.node("handle_as_tensor", "Relu", {"ta"});
  GraphModel m = g.load();
  std::vector<float> row{1.5f, -2.0f, 0.25f};
  auto run = [&](const std::string& out, const Tensor& r) {
    return m.execute({{"x", zeros({1})}, {"row", r}}, {out});
  };
  onEveryBackend([&] { EXPECT_EQ(run("kept", tensor(row, {3}))[0].data<float>(), row); });
  expectError([&] { run("read_closed", tensor(row, {3})); },
              {"cflow.json", "'read_closed'", "TensorArrayReadV3", "closed"});
  expectError([&] { run("w0_again", tensor(row, {3})); },
              {"'w0_again'", "TensorArrayWriteV3", "index 0", "already written"});
  expectError([&] { run("r0_again", tensor(row, {3})); },
              {"'r0_again'", "TensorArrayReadV3", "index 0", "cleared"});
  expectError([&] { run("w5", tensor(row, {3})); },
              {"'w5'", "TensorArrayWriteV3", "index 5", "size 2"});
  expectError([&] { run("w0", zeros({4})); }, {"'w0'", "TensorArrayWriteV3", "[4]", "[3]"});
  expectError([&] { run("r1", tensor(row, {3})); },
              {"'r1'", "TensorArrayReadV3", "index 1", "never written"});
  expectError([&] { run("r_int", tensor(row, {3})); },
              {"'r_int'", "TensorArrayReadV3", "int32", "float32"});
  expectError([&] { run("handle_as_tensor", tensor(row, {3})); },
              {"'handle_as_tensor'", "Relu", "TensorArray"});
  expectError([&] { run("ta", tensor(row, {3})); }, {"cflow.json", "'ta'", "TensorArray handle"});
}

}  // namespace
}  // namespace glint::testing
