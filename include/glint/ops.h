#pragma once
// Ops: plain functions. Each validates its arguments (throwing glint::Error
// that names the op, the argument and the shapes), then runs a kernel on the
// active backend. Every op with a gradient is differentiable through
// glint/autograd.h. Names follow TensorFlow.js.
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "glint/tensor.h"

namespace glint {

// ---- Unary, element-wise. Float32 in, float32 out, unless noted. ----------
Tensor neg(const Tensor& x);  // float32, int32
Tensor abs(const Tensor& x);  // float32, int32
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor square(const Tensor& x);  // float32, int32
Tensor reciprocal(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor relu6(const Tensor& x);
Tensor leakyRelu(const Tensor& x, float alpha = 0.2f);
Tensor elu(const Tensor& x);
Tensor selu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor softplus(const Tensor& x);
/// Exact (erf) GELU; `approximate` selects the tanh form.
Tensor gelu(const Tensor& x, bool approximate = false);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
/// The inverse trigonometric and hyperbolic functions, and the Gauss error
/// function; NaN outside their domains (asin, acos, atanh: [-1, 1]; acosh: >= 1).
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor asinh(const Tensor& x);
Tensor acosh(const Tensor& x);
Tensor atanh(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor sign(const Tensor& x);  // float32, int32
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
/// Rounds half to even, like TF.js.
Tensor round(const Tensor& x);

// ---- Binary, element-wise with NumPy broadcasting. Both operands share a
// dtype (float32 or int32); the result has that dtype. ----------------------
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
/// Float division (int32 operands are divided as floats -> float32).
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor squaredDifference(const Tensor& a, const Tensor& b);
/// The angle of (b, a) in (-pi, pi], as C's atan2(a, b); int32 operands give
/// the angle truncated toward zero (TF.js).
Tensor atan2(const Tensor& a, const Tensor& b);
/// floor(a / b); int32 stays int32 (an int32 division by zero gives 0).
Tensor floorDiv(const Tensor& a, const Tensor& b);
/// Remainder with the sign of the divisor (Python/TF.js semantics); int32 mod 0 gives 0.
Tensor mod(const Tensor& a, const Tensor& b);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& x);
/// A float scalar operand takes the tensor's dtype.
Tensor operator+(const Tensor& a, float b);
Tensor operator-(const Tensor& a, float b);
Tensor operator*(const Tensor& a, float b);
Tensor operator/(const Tensor& a, float b);
Tensor operator+(float a, const Tensor& b);
Tensor operator-(float a, const Tensor& b);
Tensor operator*(float a, const Tensor& b);
Tensor operator/(float a, const Tensor& b);

// ---- Comparisons (broadcasting; result bool) and logic (bool in/out). ----
Tensor equal(const Tensor& a, const Tensor& b);
Tensor notEqual(const Tensor& a, const Tensor& b);
Tensor less(const Tensor& a, const Tensor& b);
Tensor lessEqual(const Tensor& a, const Tensor& b);
Tensor greater(const Tensor& a, const Tensor& b);
Tensor greaterEqual(const Tensor& a, const Tensor& b);
Tensor logicalAnd(const Tensor& a, const Tensor& b);
Tensor logicalOr(const Tensor& a, const Tensor& b);
Tensor logicalXor(const Tensor& a, const Tensor& b);
Tensor logicalNot(const Tensor& x);
/// Element-wise select: condition (bool) ? a : b, all three broadcast.
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
/// float32 -> int32 truncates toward zero (NaN -> 0, out of range saturates);
/// -> bool is x != 0.
Tensor cast(const Tensor& x, DType dtype);
Tensor clipByValue(const Tensor& x, float minValue, float maxValue);

// ---- Reductions over `axes` (empty = all axes; negative axes allowed). ---
Tensor sum(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepDims = false);
Tensor mean(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepDims = false);
Tensor max(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepDims = false);
Tensor min(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepDims = false);
Tensor prod(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepDims = false);
Tensor logSumExp(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepDims = false);
/// bool in, bool out.
Tensor any(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepDims = false);
Tensor all(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepDims = false);
/// Index (int32) of the first maximum / minimum along `axis`.
Tensor argMax(const Tensor& x, int64_t axis = 0);
Tensor argMin(const Tensor& x, int64_t axis = 0);
Tensor softmax(const Tensor& logits, int64_t axis = -1);
Tensor logSoftmax(const Tensor& logits, int64_t axis = -1);

struct Moments {
  Tensor mean;
  Tensor variance;  // population variance
};
Moments moments(const Tensor& x, const std::vector<int64_t>& axes, bool keepDims = false);
/// (x - mean) * rsqrt(variance + epsilon) * scale + offset; mean, variance,
/// offset, scale broadcast against x. Undefined offset/scale are skipped.
Tensor batchNorm(const Tensor& x, const Tensor& mean, const Tensor& variance,
                 const Tensor& offset = Tensor(), const Tensor& scale = Tensor(),
                 float epsilon = 1e-3f);

// ---- Linear algebra ------------------------------------------------------
/// [..., m, k] x [..., k, n] -> [..., m, n]; batch dims broadcast; rank >= 2
/// (rank-1 operands are not promoted: reshape them first).
Tensor matMul(const Tensor& a, const Tensor& b, bool transposeA = false, bool transposeB = false);

// ---- Convolution and pooling, NHWC. ---------------------------------------
enum class Padding { valid, same };
using Pair = std::array<int64_t, 2>;  // (height, width)

/// x [n,h,w,inC], filter [fh,fw,inC,outC] -> [n,oh,ow,outC].
Tensor conv2d(const Tensor& x, const Tensor& filter, Pair strides = {1, 1},
              Padding padding = Padding::valid, Pair dilations = {1, 1});
/// x [n,h,w,c], filter [fh,fw,c,multiplier] -> [n,oh,ow,c*multiplier].
Tensor depthwiseConv2d(const Tensor& x, const Tensor& filter, Pair strides = {1, 1},
                       Padding padding = Padding::valid, Pair dilations = {1, 1});
/// x [n,h,w,inC], filter [fh,fw,outC,inC], outputShape [n,oh,ow,outC]: the
/// gradient of conv2d with respect to its input, used as a layer.
Tensor conv2dTranspose(const Tensor& x, const Tensor& filter, const Shape& outputShape,
                       Pair strides = {1, 1}, Padding padding = Padding::valid);
Tensor maxPool(const Tensor& x, Pair filterSize, Pair strides, Padding padding = Padding::valid);
/// Averages only the in-bounds elements of each window (TF.js semantics).
Tensor avgPool(const Tensor& x, Pair filterSize, Pair strides, Padding padding = Padding::valid);

// ---- 3-D convolution and pooling, NDHWC. Composed from the 2-D ops above,
// so they run on every backend and are differentiable. --------------------
using Triple = std::array<int64_t, 3>;  // (depth, height, width)

/// x [n,d,h,w,inC], filter [fd,fh,fw,inC,outC] -> [n,od,oh,ow,outC].
Tensor conv3d(const Tensor& x, const Tensor& filter, Triple strides = {1, 1, 1},
              Padding padding = Padding::valid, Triple dilations = {1, 1, 1});
/// x [n,d,h,w,inC], filter [fd,fh,fw,outC,inC], outputShape [n,od,oh,ow,outC]:
/// the gradient of conv3d with respect to its input.
Tensor conv3dTranspose(const Tensor& x, const Tensor& filter, const Shape& outputShape,
                       Triple strides = {1, 1, 1}, Padding padding = Padding::valid);
Tensor maxPool3d(const Tensor& x, Triple filterSize, Triple strides,
                 Padding padding = Padding::valid);
/// Averages only the in-bounds elements of each window (TF.js semantics).
Tensor avgPool3d(const Tensor& x, Triple filterSize, Triple strides,
                 Padding padding = Padding::valid);

// ---- Shapes and indexing -------------------------------------------------
/// One dimension may be -1 (inferred). Shares the buffer; no copy.
Tensor reshape(const Tensor& x, const Shape& shape);
/// perm empty = reverse the dimensions.
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm = {});
Tensor concat(const std::vector<Tensor>& xs, int64_t axis = 0);
/// Into `numSplits` equal parts, or parts of the given sizes (one may be -1).
std::vector<Tensor> split(const Tensor& x, int64_t numSplits, int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis = 0);
/// size -1 = to the end of that dimension.
Tensor slice(const Tensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& size);
/// TF.js stridedSlice, masks included.
Tensor stridedSlice(const Tensor& x, const std::vector<int64_t>& begin,
                    const std::vector<int64_t>& end, const std::vector<int64_t>& strides = {},
                    int beginMask = 0, int endMask = 0, int ellipsisMask = 0, int newAxisMask = 0,
                    int shrinkAxisMask = 0);
/// paddings[i] = (before, after) for dimension i.
Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
           float constantValue = 0.0f);
/// Rows of x along `axis` picked by int32 `indices` (any shape); out-of-range indices give zeros.
Tensor gather(const Tensor& x, const Tensor& indices, int64_t axis = 0);
/// Sums rows of x (along axis 0) into `numSegments` buckets by int32 ids
/// shaped like x's leading dimensions.
Tensor unsortedSegmentSum(const Tensor& x, const Tensor& segmentIds, int64_t numSegments);
/// int32 indices -> float32 [..., depth]; out-of-range indices give offValue rows.
Tensor oneHot(const Tensor& indices, int64_t depth, float onValue = 1.0f, float offValue = 0.0f);
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);
Tensor expandDims(const Tensor& x, int64_t axis = 0);
/// axes empty = every size-1 dimension.
Tensor squeeze(const Tensor& x, const std::vector<int64_t>& axes = {});
Tensor stack(const std::vector<Tensor>& xs, int64_t axis = 0);
std::vector<Tensor> unstack(const Tensor& x, int64_t axis = 0);
/// axes empty = every axis.
Tensor reverse(const Tensor& x, const std::vector<int64_t>& axes = {});

// ---- Images (NHWC), TF.js semantics (tf.image.*) --------------------------
/// images [n,h,w,c] or [h,w,c] -> [.., size[0], size[1], c], float32.
/// alignCorners maps the corner pixels onto each other; halfPixelCenters
/// samples at pixel centers (TF2's default for Keras resizing).
Tensor resizeBilinear(const Tensor& images, Pair size, bool alignCorners = false,
                      bool halfPixelCenters = false);
/// As resizeBilinear, picking the nearest pixel; keeps the dtype.
Tensor resizeNearestNeighbor(const Tensor& images, Pair size, bool alignCorners = false,
                             bool halfPixelCenters = false);

struct NonMaxSuppressionResult {
  Tensor selectedIndices;  // int32 [k]
  Tensor selectedScores;   // float32 [k] (soft-NMS-decayed scores)
  int64_t validOutputs = 0;
};
/// Greedy non-maximum suppression over boxes [n, 4] (y1, x1, y2, x2, any
/// corner order) and scores [n], as tf.image.nonMaxSuppression (V3),
/// ...Padded (V4: padToMaxOutputSize pads with index 0 to
/// min(maxOutputSize, n)) and ...WithScore (V5: softNmsSigma > 0 decays
/// overlapping scores instead of dropping them). Reads boxes and scores back
/// to the host, as TF.js does: an inherently sequential algorithm.
NonMaxSuppressionResult nonMaxSuppression(
    const Tensor& boxes, const Tensor& scores, int64_t maxOutputSize, float iouThreshold = 0.5f,
    float scoreThreshold = -std::numeric_limits<float>::infinity(), float softNmsSigma = 0.0f,
    bool padToMaxOutputSize = false);

// ---- Creation and randomness ---------------------------------------------
Tensor fill(const Shape& shape, float value, DType dtype = DType::float32);
Tensor zeros(const Shape& shape, DType dtype = DType::float32);
Tensor ones(const Shape& shape, DType dtype = DType::float32);
Tensor zerosLike(const Tensor& x);
Tensor onesLike(const Tensor& x);
/// [start, stop) by step (step != 0).
Tensor range(float start, float stop, float step = 1.0f, DType dtype = DType::float32);
/// Without a seed, draws from the engine's generator (glint::setSeed).
Tensor randomUniform(const Shape& shape, float minValue = 0.0f, float maxValue = 1.0f,
                     std::optional<uint64_t> seed = std::nullopt);
Tensor randomNormal(const Shape& shape, float mean = 0.0f, float stddev = 1.0f,
                    std::optional<uint64_t> seed = std::nullopt);
/// Normal values redrawn until within two standard deviations of the mean.
Tensor truncatedNormal(const Shape& shape, float mean = 0.0f, float stddev = 1.0f,
                       std::optional<uint64_t> seed = std::nullopt);
/// Zeroes each element with probability `rate` and scales the rest by
/// 1/(1-rate). noiseShape (empty = x's shape) must broadcast to x.
Tensor dropout(const Tensor& x, float rate, std::optional<uint64_t> seed = std::nullopt,
               const Shape& noiseShape = {});

// ---- Image crops and colour (NHWC), TF.js semantics (tf.image.*) -----------
/// Crops boxes [numBoxes, 4] (y1, x1, y2, x2, normalised to [0, 1]) from
/// image[boxInd[i]] and resizes each to cropSize: [numBoxes, h, w, channels],
/// float32. method "bilinear" or "nearest"; samples outside the image take
/// extrapolationValue.
Tensor cropAndResize(const Tensor& image, const Tensor& boxes, const Tensor& boxInd, Pair cropSize,
                     const std::string& method = "bilinear", float extrapolationValue = 0.0f);
/// image [batch, height, width, channels] mirrored left to right.
Tensor flipLeftRight(const Tensor& image);
/// [..., 3] RGB -> [..., 1] luma (0.2989, 0.5870, 0.1140); int32 stays int32.
Tensor rgbToGrayscale(const Tensor& image);

}  // namespace glint
