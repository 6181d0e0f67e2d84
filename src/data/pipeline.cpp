#include "src/data/pipeline.h"

#include <algorithm>
#include <deque>
#include <sstream>

#include "glint/engine.h"
#include "glint/error.h"
#include "glint/ops.h"
#include "src/data/data_util.h"

namespace glint::data {
namespace {

// Tensors a pipeline hands out or buffers must outlive any tidy() the caller
// runs around next(); RAII frees them when their last handle drops.
Example settle(Example e) {
  for (const Tensor& t : e) keep(t);
  return e;
}

std::string describeTensor(const Tensor& t) {
  return std::string(dtypeName(t.dtype())) + " " + shapeToString(t.shape());
}

const DatasetNode& nodeOf(const Dataset& d, const char* op) {
  check(d.node() != nullptr, op, "the dataset is undefined (a default-constructed Dataset)");
  return *d.node();
}

// ---- Sources ------------------------------------------------------------------

struct SlicesNode : DatasetNode {
  std::vector<Tensor> columns;
  int64_t length = 0;

  struct Cursor : DatasetCursor {
    const SlicesNode& node;
    int64_t i = 0;
    explicit Cursor(const SlicesNode& n) : node(n) {}
    std::optional<Example> next() override {
      if (i >= node.length) return std::nullopt;
      const int64_t row = i++;
      return settle(tidy([&] {
        Example e;
        for (const Tensor& c : node.columns) {
          check(!c.isDisposed(), "Dataset.iterate", "a column given to fromTensors was disposed");
          std::vector<int64_t> begin(c.shape().size(), 0), size = c.shape();
          begin[0] = row;
          size[0] = 1;
          Shape rest(c.shape().begin() + 1, c.shape().end());
          e.push_back(reshape(slice(c, begin, size), rest));
        }
        return e;
      }));
    }
  };
  std::unique_ptr<DatasetCursor> open() const override { return std::make_unique<Cursor>(*this); }
  int64_t cardinality() const override { return length; }
};

using NextFn = std::function<std::optional<Example>()>;

struct GeneratorNode : DatasetNode {
  std::function<NextFn()> factory;
  std::shared_ptr<NextFn> single;  // set for a single-pass source
  mutable bool opened = false;

  struct Cursor : DatasetCursor {
    NextFn fn;
    bool done = false;
    explicit Cursor(NextFn f) : fn(std::move(f)) {}
    std::optional<Example> next() override {
      if (done) return std::nullopt;
      std::optional<Example> e = fn();
      if (!e) {
        done = true;
        return std::nullopt;
      }
      return settle(std::move(*e));
    }
  };
  std::unique_ptr<DatasetCursor> open() const override {
    if (single) {
      check(!opened, "Dataset.iterate",
            "a dataset from fromGenerator(next) can be iterated only once (repeat() or a second "
            "iterate() need fromGeneratorFactory)");
      opened = true;
      return std::make_unique<Cursor>(*single);
    }
    NextFn fn = factory();
    check(static_cast<bool>(fn), "Dataset.iterate",
          "the generator factory returned an empty function");
    return std::make_unique<Cursor>(std::move(fn));
  }
  int64_t cardinality() const override { return kUnknown; }
};

// ---- Stages over one upstream --------------------------------------------------

struct Stage : DatasetNode {
  std::shared_ptr<const DatasetNode> up;
  explicit Stage(std::shared_ptr<const DatasetNode> u) : up(std::move(u)) {}
};

struct ShuffleNode : Stage {
  size_t bufferSize;
  uint64_t seed;
  bool fixedSeed, reshuffle;
  mutable uint64_t passes = 0;
  ShuffleNode(std::shared_ptr<const DatasetNode> u, size_t b, uint64_t s, bool fixed, bool re)
      : Stage(std::move(u)), bufferSize(b), seed(s), fixedSeed(fixed), reshuffle(re) {}

  struct Cursor : DatasetCursor {
    std::unique_ptr<DatasetCursor> in;
    size_t capacity;
    detail::Rng rng;
    std::vector<Example> buffer;
    bool filled = false, upstreamDone = false;
    Cursor(std::unique_ptr<DatasetCursor> c, size_t cap, uint64_t s)
        : in(std::move(c)), capacity(cap), rng(s) {}
    std::optional<Example> pull() {
      if (upstreamDone) return std::nullopt;
      std::optional<Example> e = in->next();
      if (!e) upstreamDone = true;
      return e;
    }
    std::optional<Example> next() override {
      if (!filled) {
        filled = true;
        while (buffer.size() < capacity) {
          std::optional<Example> e = pull();
          if (!e) break;
          buffer.push_back(std::move(*e));
        }
      }
      if (buffer.empty()) return std::nullopt;
      size_t j = static_cast<size_t>(rng.below(buffer.size()));
      Example out = std::move(buffer[j]);
      if (std::optional<Example> e = pull()) {
        buffer[j] = std::move(*e);
      } else {
        buffer[j] = std::move(buffer.back());
        buffer.pop_back();
      }
      return out;
    }
  };
  std::unique_ptr<DatasetCursor> open() const override {
    uint64_t s = fixedSeed ? seed : randomBits();
    if (reshuffle) s = detail::mixSeed(s, passes++);
    else if (!fixedSeed) s = seed;  // drawn once when the stage was made
    return std::make_unique<Cursor>(up->open(), bufferSize, s);
  }
  int64_t cardinality() const override { return up->cardinality(); }
};

struct BatchNode : Stage {
  size_t batchSize;
  bool dropRemainder;
  BatchNode(std::shared_ptr<const DatasetNode> u, size_t b, bool d)
      : Stage(std::move(u)), batchSize(b), dropRemainder(d) {}

  struct Cursor : DatasetCursor {
    std::unique_ptr<DatasetCursor> in;
    const BatchNode& node;
    int64_t batches = 0;
    Cursor(std::unique_ptr<DatasetCursor> c, const BatchNode& n) : in(std::move(c)), node(n) {}
    std::optional<Example> next() override {
      std::vector<Example> items;
      while (items.size() < node.batchSize) {
        std::optional<Example> e = in->next();
        if (!e) break;
        items.push_back(std::move(*e));
      }
      if (items.empty() || (node.dropRemainder && items.size() < node.batchSize))
        return std::nullopt;
      const Example& first = items[0];
      for (size_t i = 1; i < items.size(); ++i) {
        check(items[i].size() == first.size(), "Dataset.batch", "batch ", batches, ": element ", i,
              " has ", items[i].size(), " tensors, element 0 has ", first.size());
        for (size_t c = 0; c < first.size(); ++c) {
          const Tensor &a = first[c], &b = items[i][c];
          check(a.shape() == b.shape() && a.dtype() == b.dtype(), "Dataset.batch", "batch ",
                batches, ": element ", i, " column ", c, " is ", describeTensor(b),
                ", element 0 column ", c, " is ", describeTensor(a),
                ": elements of a batch must match");
        }
      }
      ++batches;
      return settle(tidy([&] {
        Example out;
        for (size_t c = 0; c < first.size(); ++c) {
          std::vector<Tensor> parts;
          parts.reserve(items.size());
          for (const Example& e : items) parts.push_back(e[c]);
          out.push_back(stack(parts, 0));
        }
        return out;
      }));
    }
  };
  std::unique_ptr<DatasetCursor> open() const override {
    return std::make_unique<Cursor>(up->open(), *this);
  }
  int64_t cardinality() const override {
    int64_t n = up->cardinality();
    if (n < 0) return n;
    int64_t b = static_cast<int64_t>(batchSize);
    return dropRemainder ? n / b : (n + b - 1) / b;
  }
};

struct MapNode : Stage {
  std::function<Example(const Example&)> fn;
  MapNode(std::shared_ptr<const DatasetNode> u, std::function<Example(const Example&)> f)
      : Stage(std::move(u)), fn(std::move(f)) {}
  struct Cursor : DatasetCursor {
    std::unique_ptr<DatasetCursor> in;
    const MapNode& node;
    Cursor(std::unique_ptr<DatasetCursor> c, const MapNode& n) : in(std::move(c)), node(n) {}
    std::optional<Example> next() override {
      std::optional<Example> e = in->next();
      if (!e) return std::nullopt;
      return settle(tidy([&] { return node.fn(*e); }));
    }
  };
  std::unique_ptr<DatasetCursor> open() const override {
    return std::make_unique<Cursor>(up->open(), *this);
  }
  int64_t cardinality() const override { return up->cardinality(); }
};

struct TakeNode : Stage {
  int64_t count;
  TakeNode(std::shared_ptr<const DatasetNode> u, int64_t n) : Stage(std::move(u)), count(n) {}
  struct Cursor : DatasetCursor {
    std::unique_ptr<DatasetCursor> in;
    int64_t left;
    Cursor(std::unique_ptr<DatasetCursor> c, int64_t n) : in(std::move(c)), left(n) {}
    std::optional<Example> next() override {
      if (left == 0) return std::nullopt;
      if (left > 0) --left;
      return in->next();
    }
  };
  std::unique_ptr<DatasetCursor> open() const override {
    return std::make_unique<Cursor>(up->open(), count);
  }
  int64_t cardinality() const override {
    int64_t n = up->cardinality();
    if (count < 0) return n;
    if (n == kInfinite) return count;
    if (n == kUnknown) return kUnknown;
    return std::min(n, count);
  }
};

struct SkipNode : Stage {
  int64_t count;
  SkipNode(std::shared_ptr<const DatasetNode> u, int64_t n) : Stage(std::move(u)), count(n) {}
  struct Cursor : DatasetCursor {
    std::unique_ptr<DatasetCursor> in;
    int64_t toSkip;
    Cursor(std::unique_ptr<DatasetCursor> c, int64_t n) : in(std::move(c)), toSkip(n) {}
    std::optional<Example> next() override {
      while (toSkip != 0) {
        if (!in->next()) {
          toSkip = 0;
          return std::nullopt;
        }
        if (toSkip > 0) --toSkip;
      }
      return in->next();
    }
  };
  std::unique_ptr<DatasetCursor> open() const override {
    return std::make_unique<Cursor>(up->open(), count);
  }
  int64_t cardinality() const override {
    int64_t n = up->cardinality();
    if (count < 0) return 0;
    if (n < 0) return n;
    return std::max<int64_t>(0, n - count);
  }
};

struct RepeatNode : Stage {
  int64_t count;
  RepeatNode(std::shared_ptr<const DatasetNode> u, int64_t n) : Stage(std::move(u)), count(n) {}
  struct Cursor : DatasetCursor {
    const RepeatNode& node;
    std::unique_ptr<DatasetCursor> in;
    int64_t pass = 0;
    bool passEmpty = true;
    explicit Cursor(const RepeatNode& n) : node(n) {}
    std::optional<Example> next() override {
      for (;;) {
        if (!in) {
          if (node.count >= 0 && pass >= node.count) return std::nullopt;
          in = node.up->open();
          passEmpty = true;
          ++pass;
        }
        if (std::optional<Example> e = in->next()) {
          passEmpty = false;
          return e;
        }
        in.reset();
        if (passEmpty) return std::nullopt;  // an empty source would loop forever
      }
    }
  };
  std::unique_ptr<DatasetCursor> open() const override { return std::make_unique<Cursor>(*this); }
  int64_t cardinality() const override {
    int64_t n = up->cardinality();
    if (n == 0 || count == 0) return 0;
    if (count < 0) return kInfinite;
    if (n < 0) return n;
    return n * count;
  }
};

struct PrefetchNode : Stage {
  size_t depth;
  PrefetchNode(std::shared_ptr<const DatasetNode> u, size_t d) : Stage(std::move(u)), depth(d) {}
  struct Cursor : DatasetCursor {
    std::unique_ptr<DatasetCursor> in;
    size_t depth;
    std::deque<Example> ready;
    bool done = false;
    Cursor(std::unique_ptr<DatasetCursor> c, size_t d) : in(std::move(c)), depth(d) {}
    std::optional<Example> next() override {
      while (!done && ready.size() < depth) {
        std::optional<Example> e = in->next();
        if (!e) done = true;
        else ready.push_back(std::move(*e));
      }
      if (ready.empty()) return std::nullopt;
      Example out = std::move(ready.front());
      ready.pop_front();
      return out;
    }
  };
  std::unique_ptr<DatasetCursor> open() const override {
    return std::make_unique<Cursor>(up->open(), depth);
  }
  int64_t cardinality() const override { return up->cardinality(); }
};

struct ZipNode : DatasetNode {
  std::vector<std::shared_ptr<const DatasetNode>> parts;
  struct Cursor : DatasetCursor {
    std::vector<std::unique_ptr<DatasetCursor>> ins;
    std::optional<Example> next() override {
      Example out;
      for (auto& in : ins) {
        std::optional<Example> e = in->next();
        if (!e) return std::nullopt;
        out.insert(out.end(), e->begin(), e->end());
      }
      return out;
    }
  };
  std::unique_ptr<DatasetCursor> open() const override {
    auto c = std::make_unique<Cursor>();
    for (const auto& p : parts) c->ins.push_back(p->open());
    return c;
  }
  int64_t cardinality() const override {
    int64_t best = kInfinite;
    for (const auto& p : parts) {
      int64_t n = p->cardinality();
      if (n == kUnknown) return kUnknown;
      if (n >= 0 && (best == kInfinite || n < best)) best = n;
    }
    return best;
  }
};

}  // namespace

// ---- Dataset ------------------------------------------------------------------

Dataset::Iterator::Iterator() = default;
Dataset::Iterator::Iterator(std::shared_ptr<const DatasetNode> node,
                            std::unique_ptr<DatasetCursor> cursor)
    : node_(std::move(node)), cursor_(std::move(cursor)) {}
Dataset::Iterator::Iterator(Iterator&&) noexcept = default;
Dataset::Iterator& Dataset::Iterator::operator=(Iterator&&) noexcept = default;
Dataset::Iterator::~Iterator() = default;

std::optional<Example> Dataset::Iterator::next() {
  check(cursor_ != nullptr, "Dataset.Iterator.next",
        "the iterator is empty (default-constructed or moved from)");
  return cursor_->next();
}

Dataset::Iterator Dataset::iterate() const {
  return Iterator(node_, nodeOf(*this, "Dataset.iterate").open());
}

Dataset Dataset::shuffle(size_t bufferSize, std::optional<uint64_t> seed,
                         bool reshuffleEachIteration) const {
  nodeOf(*this, "Dataset.shuffle");
  check(bufferSize >= 1, "Dataset.shuffle", "bufferSize must be >= 1, got ", bufferSize);
  uint64_t s = seed ? *seed : randomBits();
  return Dataset(std::make_shared<ShuffleNode>(node_, bufferSize, s, seed.has_value(),
                                               reshuffleEachIteration));
}

Dataset Dataset::batch(size_t batchSize, bool dropRemainder) const {
  nodeOf(*this, "Dataset.batch");
  check(batchSize >= 1, "Dataset.batch", "batchSize must be >= 1, got ", batchSize);
  return Dataset(std::make_shared<BatchNode>(node_, batchSize, dropRemainder));
}

Dataset Dataset::map(std::function<Example(const Example&)> fn) const {
  nodeOf(*this, "Dataset.map");
  check(static_cast<bool>(fn), "Dataset.map", "the function is empty");
  return Dataset(std::make_shared<MapNode>(node_, std::move(fn)));
}

Dataset Dataset::take(int64_t n) const {
  nodeOf(*this, "Dataset.take");
  return Dataset(std::make_shared<TakeNode>(node_, n));
}

Dataset Dataset::skip(int64_t n) const {
  const DatasetNode& node = nodeOf(*this, "Dataset.skip");
  check(n >= 0 || node.cardinality() != kInfinite, "Dataset.skip", "skipping everything (n = ", n,
        ") of an infinite dataset would never end");
  return Dataset(std::make_shared<SkipNode>(node_, n));
}

Dataset Dataset::repeat(int64_t count) const {
  nodeOf(*this, "Dataset.repeat");
  return Dataset(std::make_shared<RepeatNode>(node_, count));
}

Dataset Dataset::prefetch(size_t n) const {
  nodeOf(*this, "Dataset.prefetch");
  check(n >= 1, "Dataset.prefetch", "the buffer size must be >= 1, got ", n);
  return Dataset(std::make_shared<PrefetchNode>(node_, n));
}

std::optional<int64_t> Dataset::size() const {
  int64_t n = nodeOf(*this, "Dataset.size").cardinality();
  if (n < 0) return std::nullopt;
  return n;
}

bool Dataset::infinite() const {
  return nodeOf(*this, "Dataset.infinite").cardinality() == kInfinite;
}

std::vector<Example> Dataset::toVector() const {
  check(!infinite(), "Dataset.toVector",
        "the dataset is infinite (repeat() without a count); take(n) first");
  std::vector<Example> all;
  Iterator it = iterate();
  while (std::optional<Example> e = it.next()) all.push_back(std::move(*e));
  return all;
}

Dataset fromTensors(const std::vector<Tensor>& columns) {
  check(!columns.empty(), "fromTensors", "expected at least one column, got none");
  for (size_t c = 0; c < columns.size(); ++c) {
    const Tensor& t = columns[c];
    check(t.defined() && !t.isDisposed(), "fromTensors", "column ", c, " is undefined or disposed");
    check(t.rank() >= 1, "fromTensors", "column ", c, " is a scalar (", describeTensor(t),
          "): columns are sliced along axis 0, so they need rank >= 1");
    check(t.shape()[0] == columns[0].shape()[0], "fromTensors", "column ", c, " has ", t.shape()[0],
          " rows (", describeTensor(t), "), column 0 has ", columns[0].shape()[0], " (",
          describeTensor(columns[0]), "): all columns need the same length");
  }
  auto node = std::make_shared<SlicesNode>();
  node->columns = columns;
  for (const Tensor& t : columns) keep(t);
  node->length = columns[0].shape()[0];
  return Dataset(node);
}

Dataset fromGenerator(std::function<std::optional<Example>()> next) {
  check(static_cast<bool>(next), "fromGenerator", "the next() function is empty");
  auto node = std::make_shared<GeneratorNode>();
  node->single = std::make_shared<NextFn>(std::move(next));
  return Dataset(node);
}

Dataset fromGeneratorFactory(std::function<std::function<std::optional<Example>()>()> factory) {
  check(static_cast<bool>(factory), "fromGeneratorFactory", "the factory is empty");
  auto node = std::make_shared<GeneratorNode>();
  node->factory = std::move(factory);
  return Dataset(node);
}

Dataset zip(const std::vector<Dataset>& datasets) {
  check(!datasets.empty(), "zip", "expected at least one dataset, got none");
  auto node = std::make_shared<ZipNode>();
  for (size_t i = 0; i < datasets.size(); ++i) {
    check(datasets[i].node() != nullptr, "zip", "dataset ", i, " is undefined");
    node->parts.push_back(datasets[i].node());
  }
  return Dataset(node);
}

}  // namespace glint::data
