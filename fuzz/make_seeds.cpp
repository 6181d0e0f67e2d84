// Writes the seed corpora in fuzz/corpus/<target>/ (committed; rerun only to
// change them): model.json files of real Glint models covering most layer
// classes, small models with their shards in the fuzz_weights layout, one
// input per quantization for fuzz_dequantize, small IDX (plain and gzip)
// and CSV files. Usage: fuzz_make_seeds <fuzz/corpus>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "glint/engine.h"
#include "glint/io.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "glint/optim.h"
#include "glint/standard_models.h"

using namespace glint;
namespace fs = std::filesystem;

namespace {

fs::path root;

void write(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(root / target);
  std::ofstream(root / target / name, std::ios::binary) << bytes;
}
std::string str(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

std::vector<uint8_t> gzip(const std::vector<uint8_t>& in) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&z, in.size()));
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::map<std::string, std::function<ModelPtr()>> models() {
  std::map<std::string, std::function<ModelPtr()>> m;
  for (const std::string& name : standardModelNames())
    m[name] = [name] { return standardModel(name); };
  m["branch"] = [] {
    auto in = input({{"shape", {4}}});
    auto x = layers::dense({{"units", 6}, {"activation", "tanh"}})->apply(in);
    auto y = layers::dense({{"units", 6}})->apply(in);
    auto sum = layers::add()->apply(std::vector<SymbolicTensorPtr>{x, y})[0];
    auto cat = layers::concatenate()->apply(std::vector<SymbolicTensorPtr>{sum, x})[0];
    auto prod = layers::multiply()->apply(std::vector<SymbolicTensorPtr>{sum, y})[0];
    auto avg = layers::average()->apply(std::vector<SymbolicTensorPtr>{prod, sum})[0];
    auto both = layers::concatenate()->apply(std::vector<SymbolicTensorPtr>{cat, avg})[0];
    return glint::model({in}, {layers::dense({{"units", 2}})->apply(both)});
  };
  m["conv"] = [] {
    auto s = sequential();
    s->add(layers::zeroPadding2d({{"padding", 1}, {"inputShape", {6, 6, 2}}}));
    s->add(layers::depthwiseConv2d({{"kernelSize", 3}}));
    s->add(layers::separableConv2d({{"filters", 3}, {"kernelSize", 2}, {"padding", "same"}}));
    s->add(layers::batchNormalization());
    s->add(layers::averagePooling2d({{"poolSize", 2}}));
    s->add(layers::upSampling2d({{"size", 2}}));
    s->add(layers::conv2dTranspose({{"filters", 2}, {"kernelSize", 2}, {"strides", 2}}));
    s->add(layers::globalMaxPooling2d());
    s->add(layers::dense({{"units", 3}, {"activation", "softmax"}}));
    return s;
  };
  m["sequence"] = [] {
    auto s = sequential();
    s->add(layers::embedding({{"inputDim", 20}, {"outputDim", 4}, {"inputShape", {5}}}));
    s->add(layers::gru({{"units", 3}, {"returnSequences", true}}));
    s->add(layers::bidirectional(
        {{"layer",
          {{"class_name", "SimpleRNN"}, {"config", {{"units", 2}, {"return_sequences", true}}}}}}));
    s->add(layers::layerNormalization());
    s->add(layers::dropout({{"rate", 0.1}}));
    s->add(layers::permute({{"dims", {2, 1}}}));
    s->add(layers::reshape({{"targetShape", {20}}}));
    s->add(layers::activation({{"activation", "relu"}}));
    s->add(layers::dense({{"units", 2}}));
    return s;
  };
  return m;
}

// fuzz_weights layout: model.json, 0, then shards as [2-byte length][bytes].
std::string weightsInput(const io::ModelArtifacts& a, int64_t shardSize) {
  auto shards = io::shardWeightData(a.weightData, shardSize);
  std::vector<std::string> paths;
  for (const auto& s : shards) paths.push_back(s.first);
  std::string out = io::modelJsonFromArtifacts(a, paths).dump();
  out += '\0';
  for (const auto& s : shards) {
    out += static_cast<char>(s.second.size() & 0xff);
    out += static_cast<char>(s.second.size() >> 8);
    out += str(s.second);
  }
  return out;
}

std::vector<uint8_t> idx(uint8_t type, const std::vector<uint32_t>& dims,
                         const std::vector<uint8_t>& data) {
  std::vector<uint8_t> b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(d >> s));
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  root = argv[1];
  setBackend("cpu");
  setSeed(1);
  for (const auto& [name, make] : models()) {
    ModelPtr m = make();
    io::ModelArtifacts a = io::modelToArtifacts(*m);
    write("model_json", name + ".json",
          io::modelJsonFromArtifacts(a, {"group1-shard1of1.bin"}).dump());
  }
  {  // with trainingConfig and optimizer state, and uint8-quantized
    ModelPtr m = standardModel("mlp");
    io::SaveOptions o;
    o.includeOptimizer = true;
    io::ModelArtifacts a = io::modelToArtifacts(*m, o);
    write("model_json", "mlp_optimizer.json",
          io::modelJsonFromArtifacts(a, {"a.bin", "b.bin"}).dump());
  }

  // Small models for the shard reader: every quantization, optimizer state.
  auto small = [] {
    auto s = sequential();
    s->add(layers::dense({{"units", 3}, {"activation", "relu"}, {"inputShape", {4}}}));
    s->add(layers::batchNormalization());
    s->add(layers::dense({{"units", 2}}));
    s->compile({.optimizer = "adam", .loss = {"meanSquaredError"}});
    return s;
  };
  ModelPtr m = small();
  m->trainOnBatch({ones({2, 4})}, {ones({2, 2})});
  int i = 0;
  for (io::Quantize q : {io::Quantize::none, io::Quantize::float16, io::Quantize::uint8}) {
    io::SaveOptions o;
    o.quantize = q;
    o.includeOptimizer = q == io::Quantize::none;
    io::ModelArtifacts a = io::modelToArtifacts(*m, o);
    write("weights", "small" + std::to_string(i++) + ".bin", weightsInput(a, 64));
  }
  {  // int32, bool and uint16-quantized int32 weights, one shard
    io::ModelArtifacts a;
    a.modelTopology = {{"class_name", "Sequential"}, {"config", {{"layers", Json::array()}}}};
    auto [specs, data] = io::encodeWeights({{"f", tensor({1.5f, -2.f}, {2})},
                                            {"i", tensorInt({7, -1, 2}, {3})},
                                            {"b", tensorBool({1, 0}, {2})}});
    specs.push_back({"q", {2}, DType::int32, "", io::Quantization{"uint16", -5.0, 0.5}});
    data.insert(data.end(), {3, 0, 255, 255});
    a.weightSpecs = specs;
    a.weightData = data;
    write("weights", "dtypes.bin", weightsInput(a, 1000));
  }

  // Dequantization: [quant][dtype][min f64][scale f64][rank][dims][data].
  auto deq = [](uint8_t quant, uint8_t dtype, double min, double scale, std::vector<uint8_t> dims,
                std::vector<uint8_t> data) {
    std::string s;
    s += static_cast<char>(quant);
    s += static_cast<char>(dtype);
    s.append(reinterpret_cast<const char*>(&min), 8);
    s.append(reinterpret_cast<const char*>(&scale), 8);
    s += static_cast<char>(dims.size());
    s += str(dims);
    s += str(data);
    return s;
  };
  write("dequantize", "uint8", deq(1, 0, -1.0, 2.0 / 255, {2, 3}, {0, 1, 127, 128, 254, 255}));
  write("dequantize", "uint16", deq(2, 0, -0.5, 1e-4, {3}, {0, 0, 1, 0, 255, 255}));
  write("dequantize", "uint16_int32", deq(2, 1, -100.0, 0.5, {2}, {10, 0, 200, 1}));
  write("dequantize", "float16",
        deq(3, 0, 0, 1, {2, 2}, {0, 0x3c, 0, 0xc0, 0xff, 0x7b, 0x01, 0x00}));
  write("dequantize", "plain", deq(0, 0, 0, 1, {1}, {0, 0, 0xc0, 0x3f}));

  // IDX: [as][file]; every type code, rank 0..3, one gzip'd.
  std::vector<uint8_t> images =
      idx(0x08, {2, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 255});
  auto withAs = [](uint8_t as, const std::vector<uint8_t>& b) {
    return std::string(1, static_cast<char>(as)) + str(b);
  };
  write("idx", "ubyte", withAs(0, images));
  write("idx", "ubyte_float", withAs(1, images));
  write("idx", "sbyte", withAs(0, idx(0x09, {4}, {0x80, 0xff, 0, 0x7f})));
  write("idx", "short", withAs(2, idx(0x0B, {2}, {0x80, 0, 0x7f, 0xff})));
  write("idx", "int", withAs(0, idx(0x0C, {1, 2}, {0x80, 0, 0, 0, 0, 0, 0, 1})));
  write("idx", "float", withAs(0, idx(0x0D, {2}, {0x3f, 0xc0, 0, 0, 0xff, 0x80, 0, 0})));
  write("idx", "double",
        withAs(1, idx(0x0E, {1}, {0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18})));
  write("idx", "scalar", withAs(0, idx(0x08, {}, {42})));
  write("idx", "gzip", withAs(0, gzip(images)));
  std::vector<uint8_t> two = gzip(idx(0x08, {2}, {1, 2}));
  std::vector<uint8_t> member = two;
  two.insert(two.end(), member.begin(), member.end());  // two gzip members: trailing data
  write("idx", "gzip_members", withAs(0, two));

  // CSV: [options][text]; bit 0 header, bits 1-2 delimiter (, ; \t |), bit 3 quote ', bit 4 allowMissing.
  write("csv", "plain", std::string(1, 1 | 16) + "x,y,label\n1.5,2,cat\n-3,4e2,dog\n,5,\"a,b\"\n");
  write("csv", "quoted",
        std::string(1, 1) + "\"name\",\"text\"\r\n1,\"he said \"\"hi\"\"\nnext line\"\r\n2,x\r\n");
  write("csv", "semicolon", std::string(1, 1 | 2 | 16) + "a;b\n1;2\n\n3;\n");
  write("csv", "tab_noheader", std::string(1, 4) + "1\t2\t3\n4\t5\t6\n");
  write("csv", "bom_quote",
        std::string(1, 1 | 6 | 8) +
            "\xEF\xBB\xBF"
            "a|'b'\n'1'|2\n");
  std::printf("seeds written to %s\n", root.c_str());
  return 0;
}
