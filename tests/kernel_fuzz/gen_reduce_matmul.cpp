// Generators for reductions (any axis set, negative axes, keepDims, ranks
// 1-6, long rows that cross workgroup and texture sizes) and batched matrix
// products (transposes, broadcast batch dims, sizes around the tiles).
#include <algorithm>
#include <cmath>

#include "tests/kernel_fuzz/fuzz_case.h"

namespace glint::kfuzz {

namespace {

const char* kReduce[] = {"sum",       "mean",   "max",    "min",     "prod",
                         "logSumExp", "argMax", "argMin", "softmax", "logSoftmax"};

// knobs: op, rank, d0..d5, axesMask, keepDims, negativeAxes, valueClass, seed
const Register reduce({
    "reduce",
    {"Sum", "Mean", "Max", "Min", "Prod", "ArgMax", "ArgMin", "Softmax", "LogSoftmax"},
    [](Rng& r) {
      int64_t rank = drawInt(r, 1, 6);
      Knobs k{drawInt(r, 0, static_cast<int64_t>(std::size(kReduce)) - 1), rank};
      int64_t budget = coin(r, 0.1) ? 70000 : 4096;
      Shape s;
      for (int64_t i = 0; i < rank; ++i) s.push_back(drawSize(r, coin(r, 0.2) ? 5000 : 40));
      while (numElements(s) > budget)
        for (auto& d : s) d = std::max<int64_t>(1, d / 2);
      for (int64_t i = 0; i < 6; ++i) k.push_back(i < rank ? s[i] : 1);
      k.push_back(drawInt(r, 0, (1 << rank) - 1));
      k.push_back(drawInt(r, 0, 1));
      k.push_back(drawInt(r, 0, 1));
      k.push_back(drawInt(r, 0, 2));
      k.push_back(static_cast<int64_t>(r() >> 1));
      return k;
    },
    [](const Knobs& k) -> std::optional<Call> {
      if (k[0] < 0 || k[0] >= static_cast<int64_t>(std::size(kReduce))) return std::nullopt;
      if (k[1] < 1 || k[1] > 6) return std::nullopt;
      std::string op = kReduce[k[0]];
      Shape s(k.begin() + 2, k.begin() + 2 + k[1]);
      for (int64_t d : s)
        if (d < 1) return std::nullopt;
      int64_t rank = k[1];
      std::vector<int64_t> axes;
      int64_t reduced = 1;
      for (int64_t i = 0; i < rank; ++i)
        if (k[8] >> i & 1) {
          axes.push_back(k[10] ? i - rank : i);
          reduced *= s[static_cast<size_t>(i)];
        }
      bool keep = k[9] != 0;
      bool singleAxis = op == "argMax" || op == "argMin" || op == "softmax" || op == "logSoftmax";
      int64_t axis = axes.empty() ? (k[10] ? -1 : rank - 1) : axes.front();
      if (singleAxis) reduced = s[static_cast<size_t>((axis % rank + rank) % rank)];
      int64_t vc = k[11];
      if (op == "prod" && vc != kSpecials) vc = kQuarters;  // exact products of quarters
      Call call;
      call.inputs = {floats(s, vc, static_cast<uint64_t>(k[12]))};
      if (op == "prod" &&
          vc == kQuarters)  // |x| <= 2 over 5000 terms overflows: keep to +-1, +-0.5
        for (float& v : call.inputs[0].values) v = std::clamp(std::round(v * 2) / 2, -1.0f, 1.0f);
      if (vc == kSpecials)  // sums of 1e30 beside 1 depend on the order: no large finite values
        for (float& v : call.inputs[0].values)
          if (std::isfinite(v) && std::abs(v) > 2.0f) v = std::copysign(2.0f, v);
      call.fn = [=](const std::vector<Tensor>& x) -> Tensor {
        if (op == "sum") return sum(x[0], axes, keep);
        if (op == "mean") return mean(x[0], axes, keep);
        if (op == "max") return max(x[0], axes, keep);
        if (op == "min") return min(x[0], axes, keep);
        if (op == "prod") return prod(x[0], axes, keep);
        if (op == "logSumExp") return logSumExp(x[0], axes, keep);
        if (op == "argMax") return argMax(x[0], axis);
        if (op == "argMin") return argMin(x[0], axis);
        if (op == "softmax") return softmax(x[0], axis);
        return logSoftmax(x[0], axis);
      };
      std::string axesText;
      for (int64_t a : axes) {
        if (!axesText.empty()) axesText += ',';
        axesText += std::to_string(a);
      }
      call.describe = op + " x " + shapeText(s) +
                      (singleAxis ? " axis " + std::to_string(axis)
                                  : " axes [" + axesText + "]" + (keep ? " keepDims" : ""));
      if (!singleAxis) {
        // No axes means all of them, as TF.js's axis null.
        call.spec = {
            {"op", op},
            {"attrs", {{"axis", axes.empty() ? Json(nullptr) : Json(axes)}, {"keepDims", keep}}}};
      } else if ((op == "softmax" || op == "logSoftmax") && (axis + rank) % rank != rank - 1) {
        // TF.js's softmax and logSoftmax take the last axis only.
        call.spec = {{"torch", op == "softmax" ? "softmax" : "log_softmax"},
                     {"attrs", {{"dim", axis}}}};
      } else {
        call.spec = {{"op", op},
                     {"attrs", {{op == "softmax" || op == "logSoftmax" ? "dim" : "axis", axis}}}};
      }
      call.tags = {"rank" + std::to_string(rank)};
      if (!singleAxis && axes.empty()) call.tags.push_back("allAxes");
      if (k[10]) call.tags.push_back("negativeAxes");
      if (keep && !singleAxis) call.tags.push_back("keepDims");
      if (reduced > 1024) call.tags.push_back("longRows");
      if (vc == kSpecials) call.tags.push_back("specials");
      if (vc == kQuarters && op != "prod") call.tags.push_back("ties");
      call.rtol = 3.2e-5 + 1e-7 * std::sqrt(static_cast<double>(reduced));
      call.atol = 1e-6 + 2e-7 * std::sqrt(static_cast<double>(reduced)) * 2.0;
      // max/min/arg* have kinks at ties; sums of specials are NaN.
      call.checkGrad = vc != kSpecials && op != "argMax" && op != "argMin" &&
                       !((op == "max" || op == "min") && vc == kQuarters);
      return call;
    },
    static_cast<int64_t>(std::size(kReduce)),
});

// knobs: batchRank, b0, b1, m, k, n, transA, transB, broadcastA, broadcastB, valueClass, seed
const Register matmul({
    "matMul",
    {"BatchMatMul"},
    [](Rng& r) {
      return Knobs{drawInt(r, 0, 2), drawSize(r, 5),   drawSize(r, 4),
                   drawSize(r, 130), drawSize(r, 130), drawSize(r, 130),
                   drawInt(r, 0, 1), drawInt(r, 0, 1), drawInt(r, 0, 3),
                   drawInt(r, 0, 3), drawInt(r, 0, 2), static_cast<int64_t>(r() >> 1)};
    },
    [](const Knobs& k) -> std::optional<Call> {
      int64_t br = k[0], m = k[3], kk = k[4], n = k[5];
      bool ta = k[6] != 0, tb = k[7] != 0;
      if (br < 0 || br > 2 || std::min({k[1], k[2], m, kk, n}) < 1) return std::nullopt;
      Shape batch;
      if (br >= 1) batch.push_back(k[1]);
      if (br >= 2) batch.push_back(k[2]);
      Shape ba = batch, bb = batch;
      for (size_t i = 0; i < batch.size(); ++i) {
        if (k[8] >> i & 1) ba[i] = 1;
        if (k[9] >> i & 1) bb[i] = 1;
      }
      Shape a = ba, b = bb;
      a.push_back(ta ? kk : m);
      a.push_back(ta ? m : kk);
      b.push_back(tb ? n : kk);
      b.push_back(tb ? kk : n);
      int64_t vc = k[10];
      uint64_t seed = static_cast<uint64_t>(k[11]);
      Call call;
      call.inputs = {floats(a, vc, seed), floats(b, vc, seed + 1)};
      if (vc == kSpecials)
        for (auto& in : call.inputs)
          for (float& v : in.values)
            if (std::isfinite(v) && std::abs(v) > 2.0f) v = std::copysign(2.0f, v);
      call.fn = [=](const std::vector<Tensor>& x) { return matMul(x[0], x[1], ta, tb); };
      call.describe = "matMul a " + shapeText(a) + " b " + shapeText(b) +
                      (ta ? " transposeA" : "") + (tb ? " transposeB" : "");
      call.spec = {{"op", "matMul"}, {"attrs", {{"transposeA", ta}, {"transposeB", tb}}}};
      call.tags = {"batchRank" + std::to_string(br)};
      if (ta) call.tags.push_back("transposeA");
      if (tb) call.tags.push_back("transposeB");
      if (ba != batch || bb != batch) call.tags.push_back("broadcast");
      if (m % 4 || n % 4 || kk % 4) call.tags.push_back("odd");
      if (vc == kSpecials) call.tags.push_back("specials");
      call.atol = 1e-6 + 2e-7 * static_cast<double>(kk) * 4.0;
      call.checkGrad = vc != kSpecials;
      return call;
    },
    3,
});

}  // namespace
}  // namespace glint::kfuzz
