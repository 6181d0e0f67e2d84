#pragma once
// Direct convolution for few output channels (the cnn's 8 and 16): output
// channels go across one SIMD vector (or up to four), a block of output
// pixels stays in registers, and the input is read in place, with no patch
// matrix. At these shapes im2col + GEMM spends more time copying patches
// (runs of inC floats) and filling 16-wide tiles with 8 columns than
// multiplying. Written once (conv_direct_kernels.h) and built per ISA like
// the GEMM; conv.cpp picks the widest set whose vector width divides outC.
#include <cstdint>

#include "src/geometry/conv_geometry.h"

namespace glint::cpu::conv_direct {

struct KernelSet {
  const char* isa;
  int width;  // floats per vector; 0: not built for this target
  /// y[n0:n1] = conv(x, f); f is [fh, fw, inC, outC], outC = 1..4 vectors.
  void (*forward)(const conv::Geometry& g, const float* x, const float* f, float* y, int64_t n0,
                  int64_t n1);
  /// df[fh*fw*inC, outC] = sum over images [n0, n1) of patches(x)^T * dy.
  void (*filterGrad)(const conv::Geometry& g, const float* x, const float* dy, float* df,
                     int64_t n0, int64_t n1);
};

KernelSet kernelsAvx512();
KernelSet kernelsAvx512Ymm();
KernelSet kernelsAvx2();
KernelSet kernelsGeneric();

/// Most vectors of output channels a direct kernel keeps per pixel; wider
/// layers go to im2col + GEMM, whose packing then pays for itself.
constexpr int64_t kMaxVectors = 4;

/// Most input channels: the edge pixels read a zero run this long in place
/// of the taps outside the input.
constexpr int64_t kMaxInChannels = 256;

/// The set for a convolution with `inC` input and `outC` output channels on
/// this CPU, or null when none fits. `isa` (tests) forces one set by name.
const KernelSet* pick(int64_t inC, int64_t outC, const char* isa = nullptr);

}  // namespace glint::cpu::conv_direct
