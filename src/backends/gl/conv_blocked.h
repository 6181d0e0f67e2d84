#pragma once
// Convolutions as row-block products (blocked_product.h) over an implicit
// im2col: the forward pass and the input gradient take blocks of R output
// pixels, the filter gradient blocks of R filter rows with the long sum over
// batch and positions split. Each returns false where its shape does not fit
// (channels not in whole texels, fewer rows than a block), leaving the
// kernel to conv.cpp's texel or element paths.
#include <string>

#include "glint/backend.h"
#include "src/geometry/conv_geometry.h"

namespace glint::gl {

/// GLSL constants of a window geometry (x [N,H,W,C] -> y [N,OH,OW,OC]):
/// H, W, C, OH, OW, OC, N, FH, FW, SH, SW, DH, DW, PT, PL.
std::string convConstants(const conv::Geometry& g);

bool conv2dBlocked(KernelArgs& a, const conv::Geometry& g);
bool conv2dBackpropInputBlocked(KernelArgs& a, const conv::Geometry& g);
bool conv2dBackpropFilterBlocked(KernelArgs& a, const conv::Geometry& g);

}  // namespace glint::gl
