#pragma once
// Matrix products in row blocks, the fastest shape of a product on a renderer
// bound by texel fetches: a fragment computes R rows x 4 columns of the
// output (R texels, one per render target), walking K four steps at a time:
// per step R texels of A and 4 of B for 16R multiply-adds, instead of 1 and 4
// for 16. A second draw gathers the R textures into the output (summing the
// parts of a split K on the way). BatchMatMul is one client; the
// convolutions are others, reading A (or B) as an implicit im2col of their
// input, so no window matrix is ever written.
#include <functional>
#include <string>
#include <vector>

#include "src/backends/gl/shader.h"

namespace glint::gl {

/// out[b][i][j] = act_(sum_p A(b, i, p) B(b, p, j) + bias_(j)): b < batches,
/// i < m, j < n, p < k; n % 4 == 0, k % 4 == 0. The GLSL pieces read the
/// inputs (the prelude's accessors) and these locals of the fragment:
/// `bi` (batch), `i0` (the block's first row), `c` (column texel: columns
/// 4c..4c+3), `p` (K texel: steps 4p..4p+3, inside the loop).
struct BlockedProduct {
  int64_t batches = 1, m = 0, n = 0, k = 0;
  int rows = 8;  // R: at most the renderer's draw buffers
  /// K split into this many parts, each computed by its own fragments (a
  /// long sum over few outputs: all cores busy); the gather adds the parts.
  /// No bias or activation then.
  int64_t splits = 1;
  std::string funcs;  // declarations: act_(float), bias_(int) and helpers
  std::string setup;  // statements once per fragment (row bases of A...)
  std::string step;   // statements at the top of each K texel p
  /// vec4 expression: row i0 + q's four K values 4p..4p+3. Rows past m (a
  /// ragged last block) may read anything readable: the gather skips them.
  std::function<std::string(int q)> aRow;
  /// Statements declaring vec4 b0..b3: with `dotB`, b_j = column 4c + j's
  /// four K values (B^T read in texels); otherwise b_j = row 4p + j's four
  /// columns.
  std::string bTexels;
  bool dotB = false;
};

/// Fetches from input `input` read as row-major matrix rows of `rowTexels`
/// texels each, the first row starting at texel 0 (a batch's rows follow on).
/// Where a texture row holds a whole number of matrix rows, or a matrix row
/// whole texture rows, the fetches take 2D coordinates that the K loop
/// advances by additions: SwiftShader's shader compiler keeps the flat index's
/// mask and shift in every fetch, about a fifth of a product's time (scratch
/// WebGL2 page, [64,128]x[128,512]). Other widths fall back to flat indices.
class MatrixTexels {
 public:
  MatrixTexels(int input, const Texture& texture, int64_t rowTexels);
  /// A row fixed per fragment, walked along K (texel p of the loop):
  /// statements once per fragment declaring `name` for matrix row `row`...
  std::string rowSetup(const std::string& name, const std::string& row) const;
  /// ...statements at the top of each K step, shared by every such row...
  std::string rowStep() const;
  /// ...and the vec4 of that row at K texel p.
  std::string rowTexel(const std::string& name) const;
  /// Rows first + 4p + j (j < 4, p the loop's K texel; `first` a multiple of
  /// 4) at a column fixed per fragment: statements once per fragment, for
  /// `first` and column `col` (Subzero, SwiftShader's shader compiler, hoists
  /// nothing out of the loop)...
  std::string columnSetup(const std::string& name, const std::string& first,
                          const std::string& col) const;
  /// ...statements at the top of each K step...
  std::string columnStep(const std::string& name) const;
  /// ...and the vec4 of row first + 4p + j, `dx` texels right of the column (the
  /// column + dx must stay inside the row; with whole texture rows per matrix
  /// row, the column must then be even when dx is 1).
  std::string columnTexel(const std::string& name, int j, int dx = 0) const;
  /// True when the fetches take flat indices (rows that do not line up with
  /// texture rows: a row length that is not a power of two).
  bool flat() const { return fit_ == Fit::flat; }

 private:
  enum class Fit { rowsPerTextureRow, textureRowsPerRow, flat };
  std::string in_;
  int64_t rowTexels_, width_, shift_;
  Fit fit_;
  int64_t per_ = 1, perShift_ = 0;  // rows per texture row (or the reverse), log2
};

/// aRow for an A read transposed: step fetched A^T's texels of rows 0-3 of
/// the block at K steps 4p..4p+3 into vec4 l0..l3, rows 4-7 into h0..h3.
std::string transposedRow(int q);

/// Rows per block for a product of m rows (8 where the renderer has 8 draw
/// buffers, else 4), 0 when blocks do not pay (fewer rows than a block).
int productRows(const GlBackend& gl, int64_t m);

/// Draws `p` into `out` (float32 or float16 texture of batches x m x n).
void runBlockedProduct(GlBackend& gl, const BlockedProduct& p, const std::vector<Operand>& inputs,
                       Texture& out);

}  // namespace glint::gl
