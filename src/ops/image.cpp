// Image ops with TF.js semantics, composed from gather and arithmetic so
// they run on every backend and have gradients: which source pixels feed an
// output pixel depends only on the sizes, so it is computed on the host.
// Non-maximum suppression is a sequential host algorithm (as in TF.js).
#include <algorithm>
#include <cmath>

#include "glint/error.h"
#include "glint/ops.h"
#include "src/ops/op_util.h"

namespace glint {

namespace {

struct Sampling {
  std::vector<int32_t> lo, hi;  // source indices
  std::vector<float> frac;      // weight of hi
};

// Source positions along one axis (TF.js's effective-size ratio rule).
double ratio(int64_t in, int64_t out, bool alignCorners) {
  bool align = alignCorners && out > 1;
  return static_cast<double>(align ? in - 1 : in) / static_cast<double>(align ? out - 1 : out);
}

Sampling bilinearAxis(int64_t in, int64_t out, bool alignCorners, bool halfPixel) {
  Sampling s;
  double r = ratio(in, out, alignCorners);
  for (int64_t i = 0; i < out; ++i) {
    double src = halfPixel ? r * (static_cast<double>(i) + 0.5) - 0.5 : r * static_cast<double>(i);
    double lo = std::max(0.0, std::floor(src));
    double hi = std::min(static_cast<double>(in - 1), std::ceil(src));
    s.lo.push_back(static_cast<int32_t>(lo));
    s.hi.push_back(static_cast<int32_t>(hi));
    s.frac.push_back(static_cast<float>(src - lo));
  }
  return s;
}

std::vector<int32_t> nearestAxis(int64_t in, int64_t out, bool alignCorners, bool halfPixel) {
  std::vector<int32_t> idx;
  double r = ratio(in, out, alignCorners);
  for (int64_t i = 0; i < out; ++i) {
    double src = halfPixel ? r * (static_cast<double>(i) + 0.5) : r * static_cast<double>(i);
    // JS Math.round rounds halves up.
    double pick = alignCorners ? std::floor(src + 0.5) : std::floor(src);
    pick = std::min(static_cast<double>(in - 1), pick);
    if (halfPixel) pick = std::max(0.0, pick);
    idx.push_back(static_cast<int32_t>(pick));
  }
  return idx;
}

// images as rank 4 (a rank-3 image gets a batch of one); checks the arguments.
Tensor batched(const char* op, const Tensor& images, Pair size, bool alignCorners, bool halfPixel) {
  ops::checkTensor(op, "images", images);
  check(images.rank() == 3 || images.rank() == 4, op, "images must be rank 3 or 4 (NHWC), got ",
        ops::describe(images));
  check(size[0] > 0 && size[1] > 0, op, "size must be positive, got [", size[0], ", ", size[1],
        "]");
  check(!(alignCorners && halfPixel), op, "alignCorners and halfPixelCenters cannot both be true");
  Tensor x = images.rank() == 3 ? expandDims(images, 0) : images;
  check(x.shape()[1] > 0 && x.shape()[2] > 0, op, "images must not be empty, got ",
        ops::describe(images));
  return x;
}

Tensor unbatched(const Tensor& y, const Tensor& images) {
  return images.rank() == 3 ? squeeze(y, {0}) : y;
}

}  // namespace

Tensor resizeBilinear(const Tensor& images, Pair size, bool alignCorners, bool halfPixelCenters) {
  const char* op = "resizeBilinear";
  Tensor x = batched(op, images, size, alignCorners, halfPixelCenters);
  if (x.dtype() != DType::float32) x = cast(x, DType::float32);
  Sampling rows = bilinearAxis(x.shape()[1], size[0], alignCorners, halfPixelCenters);
  Sampling cols = bilinearAxis(x.shape()[2], size[1], alignCorners, halfPixelCenters);
  auto indices = [](const std::vector<int32_t>& v) {
    return tensorInt(v, {static_cast<int64_t>(v.size())});
  };
  // Columns, then rows: the same arithmetic as TF.js's four-corner form
  // (top = tl + (tr - tl) * colFrac, ..., top + (bottom - top) * rowFrac).
  Tensor left = gather(x, indices(cols.lo), 2), right = gather(x, indices(cols.hi), 2);
  Tensor colFrac = tensor(cols.frac, {1, 1, size[1], 1});
  Tensor c = add(left, mul(sub(right, left), colFrac));
  Tensor top = gather(c, indices(rows.lo), 1), bottom = gather(c, indices(rows.hi), 1);
  Tensor rowFrac = tensor(rows.frac, {1, size[0], 1, 1});
  return unbatched(add(top, mul(sub(bottom, top), rowFrac)), images);
}

Tensor resizeNearestNeighbor(const Tensor& images, Pair size, bool alignCorners,
                             bool halfPixelCenters) {
  const char* op = "resizeNearestNeighbor";
  Tensor x = batched(op, images, size, alignCorners, halfPixelCenters);
  std::vector<int32_t> r = nearestAxis(x.shape()[1], size[0], alignCorners, halfPixelCenters);
  std::vector<int32_t> c = nearestAxis(x.shape()[2], size[1], alignCorners, halfPixelCenters);
  Tensor y = gather(gather(x, tensorInt(r, {size[0]}), 1), tensorInt(c, {size[1]}), 2);
  return unbatched(y, images);
}

NonMaxSuppressionResult nonMaxSuppression(const Tensor& boxes, const Tensor& scores,
                                          int64_t maxOutputSize, float iouThreshold,
                                          float scoreThreshold, float softNmsSigma,
                                          bool padToMaxOutputSize) {
  const char* op = "nonMaxSuppression";
  ops::checkTensor(op, "boxes", boxes);
  ops::checkTensor(op, "scores", scores);
  ops::checkDType(op, "boxes", boxes, {DType::float32});
  ops::checkDType(op, "scores", scores, {DType::float32});
  check(boxes.rank() == 2 && boxes.shape()[1] == 4, op, "boxes must be [numBoxes, 4], got ",
        ops::describe(boxes));
  check(scores.rank() == 1 && scores.shape()[0] == boxes.shape()[0], op,
        "scores must be [numBoxes] = [", boxes.shape()[0], "], got ", ops::describe(scores));
  check(maxOutputSize >= 0, op, "maxOutputSize must be >= 0, got ", maxOutputSize);
  check(iouThreshold >= 0 && iouThreshold <= 1, op, "iouThreshold must be in [0, 1], got ",
        iouThreshold);
  int64_t n = boxes.shape()[0];
  maxOutputSize = std::min(maxOutputSize, n);
  std::vector<float> b = boxes.data<float>(), s = scores.data<float>();

  auto iou = [&](int64_t i, int64_t j) {
    const float* p = &b[static_cast<size_t>(4 * i)];
    const float* q = &b[static_cast<size_t>(4 * j)];
    double y1i = std::min(p[0], p[2]), x1i = std::min(p[1], p[3]), y2i = std::max(p[0], p[2]),
           x2i = std::max(p[1], p[3]);
    double y1j = std::min(q[0], q[2]), x1j = std::min(q[1], q[3]), y2j = std::max(q[0], q[2]),
           x2j = std::max(q[1], q[3]);
    double areaI = (y2i - y1i) * (x2i - x1i), areaJ = (y2j - y1j) * (x2j - x1j);
    if (areaI <= 0 || areaJ <= 0) return 0.0;
    double inter = std::max(std::min(y2i, y2j) - std::max(y1i, y1j), 0.0) *
                   std::max(std::min(x2i, x2j) - std::max(x1i, x1j), 0.0);
    return inter / (areaI + areaJ - inter);
  };

  struct Candidate {
    double score;
    int64_t index;
    size_t suppressFrom;
  };
  // Best first; equal scores: the lower index first.
  auto before = [](const Candidate& a, const Candidate& c) {
    return a.score != c.score ? a.score > c.score : a.index < c.index;
  };
  std::vector<Candidate> queue;
  for (int64_t i = 0; i < n; ++i)
    if (s[static_cast<size_t>(i)] > scoreThreshold)
      queue.push_back({s[static_cast<size_t>(i)], i, 0});
  std::stable_sort(queue.begin(), queue.end(), before);
  double scale = softNmsSigma > 0 ? -0.5 / softNmsSigma : 0.0;
  std::vector<int32_t> selected;
  std::vector<float> selectedScores;
  while (static_cast<int64_t>(selected.size()) < maxOutputSize && !queue.empty()) {
    Candidate c = queue.front();
    queue.erase(queue.begin());
    double original = c.score;
    if (original < scoreThreshold) break;
    bool suppressed = false;
    // Each selected box may decay a candidate once: only those selected
    // since the candidate was last looked at.
    for (size_t j = selected.size(); j-- > c.suppressFrom;) {
      double o = iou(c.index, selected[j]);
      if (o >= iouThreshold) {
        suppressed = true;
        break;
      }
      c.score *= o <= iouThreshold ? std::exp(scale * o * o) : 0.0;
      if (c.score <= scoreThreshold) break;
    }
    c.suppressFrom = selected.size();
    if (suppressed) continue;
    if (c.score == original) {
      selected.push_back(static_cast<int32_t>(c.index));
      selectedScores.push_back(static_cast<float>(c.score));
    } else if (c.score > scoreThreshold) {
      queue.insert(std::upper_bound(queue.begin(), queue.end(), c, before), c);
    }
  }
  NonMaxSuppressionResult r;
  r.validOutputs = static_cast<int64_t>(selected.size());
  if (padToMaxOutputSize) {
    selected.resize(static_cast<size_t>(maxOutputSize), 0);
    selectedScores.resize(static_cast<size_t>(maxOutputSize), 0.0f);
  }
  int64_t k = static_cast<int64_t>(selected.size());
  r.selectedIndices = tensorInt(selected, {k});
  r.selectedScores = tensor(selectedScores, {k});
  return r;
}

}  // namespace glint
