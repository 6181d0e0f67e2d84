#pragma once
// Kernels' attributes as named structs, for the kernels whose attributes an
// op writes and four or five backends read: each key is spelled once, here,
// in the struct's read() and attrs(). Ops build a struct and pass attrs() to
// runKernel; kernels and gradients take read(ctx.attrs). The wire form stays
// Attrs (its string form keys GPU program caches, and graph models, custom
// kernels and tests speak it).
#include <cstdint>
#include <string>
#include <vector>

#include "glint/attrs.h"

namespace glint::kernel_attrs {

/// The kernels along one axis (Concat, GatherV2, Unpack, ArgMax, ArgMin,
/// Softmax, LogSoftmax, ...): that axis, normalised (0 <= axis < rank).
struct Axis {
  int64_t axis = 0;

  static Axis read(const Attrs& a) { return {a.i("axis")}; }
  Attrs attrs() const { return Attrs().set("axis", axis); }
};

/// MatMul, BatchMatMul: which operands are read transposed.
struct MatMul {
  bool transposeA = false;
  bool transposeB = false;

  static MatMul read(const Attrs& a) { return {a.b("transposeA"), a.b("transposeB")}; }
  Attrs attrs() const {
    return Attrs().set("transposeA", transposeA).set("transposeB", transposeB);
  }
};

/// _FusedMatMul: a matmul, then + bias, then an activation, in one kernel.
struct FusedMatMul {
  bool transposeA = false;
  bool transposeB = false;
  std::string activation = "linear";  // a fusable activation's canonical name
  double leakyreluAlpha = 0.2;

  static FusedMatMul read(const Attrs& a) {
    return {a.b("transposeA"), a.b("transposeB"), a.s("activation"), a.f("leakyreluAlpha")};
  }
  Attrs attrs() const {
    return MatMul{transposeA, transposeB}
        .attrs()
        .set("activation", activation)
        .set("leakyreluAlpha", leakyreluAlpha);
  }
};

/// The reductions (Sum, Mean, Max, Min, Prod, All, Any, ...): the axes reduced,
/// normalised and ascending, and whether they stay as 1s in the output's shape
/// (the op's concern: kernels see the reduced output either way).
struct Reduce {
  std::vector<int64_t> axes;
  bool keepDims = false;

  static Reduce read(const Attrs& a) {
    return {a.ints("axes"), a.has("keepDims") && a.b("keepDims")};
  }
  Attrs attrs() const { return Attrs().set("axes", axes).set("keepDims", keepDims); }
};

/// StridedSlice and StridedSliceGrad: per axis of the input, the first index
/// and the step (the output's shape gives the count).
struct StridedSlice {
  std::vector<int64_t> begin;
  std::vector<int64_t> strides;

  static StridedSlice read(const Attrs& a) { return {a.ints("begin"), a.ints("strides")}; }
  Attrs attrs() const { return Attrs().set("begin", begin).set("strides", strides); }
};

/// The recurrent kernels (LSTMCell, GRUCell, GRUResetState, LSTMSequence and
/// their gradients): the gate and the candidate activations, GRU's
/// reset-after form, a sequence's direction, and whether LSTMSequenceGrad's
/// input 0 holds the pre-activations the forward kept rather than xw. Each
/// flag is written only by the kernels that have it, and read as false where
/// absent.
struct Recurrent {
  std::string recurrentActivation = "sigmoid";
  std::string activation = "tanh";
  bool resetAfter = false;
  bool goBackwards = false;
  bool preActivations = false;

  static Recurrent read(const Attrs& a) {
    auto flag = [&](const char* key) { return a.has(key) && a.b(key); };
    return {a.s("recurrentActivation"), a.s("activation"), flag("resetAfter"), flag("goBackwards"),
            flag("preActivations")};
  }
  /// The cells' attributes: the activations alone.
  Attrs activations() const {
    return Attrs().set("recurrentActivation", recurrentActivation).set("activation", activation);
  }
  Attrs gru() const { return activations().set("resetAfter", resetAfter); }
  Attrs sequence() const {
    Attrs a = activations().set("goBackwards", goBackwards);
    if (preActivations) a.set("preActivations", true);
    return a;
  }
};

}  // namespace glint::kernel_attrs
