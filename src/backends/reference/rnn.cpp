// Recurrent-cell kernels (LSTMCell, GRUCell, GRUResetState and their Grad
// kernels) and Unpack, as plain loops in double: the oracle of the fused cpu
// kernels. The cell equations are in include/glint/rnn_ops.h; the backward
// kernels recompute the gates from the forward inputs.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "src/backends/reference/kernels.h"
#include "src/backends/reference/loops.h"
#include "src/backends/stepwise_rnn.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::reference {

namespace {

/// A cell activation by its canonical name, and its derivative.
class Activation {
 public:
  explicit Activation(const std::string& name)
      : kind_(name == "sigmoid"       ? kSigmoid
              : name == "hardSigmoid" ? kHardSigmoid
                                      : kTanh) {}

  double operator()(double x) const {
    switch (kind_) {
      case kSigmoid:
        return 1.0 / (1.0 + std::exp(-x));
      case kHardSigmoid:
        return std::clamp(kSlope * x + 0.5, 0.0, 1.0);
      case kTanh:
        break;
    }
    return std::tanh(x);
  }

  /// d act(x) / dx, given y = act(x). hardSigmoid's ends count as inside, as
  /// the gradient of clipByValue does.
  double derivative(double x, double y) const {
    switch (kind_) {
      case kSigmoid:
        return y * (1.0 - y);
      case kHardSigmoid: {
        double p = kSlope * x + 0.5;
        return p >= 0.0 && p <= 1.0 ? kSlope : 0.0;
      }
      case kTanh:
        break;
    }
    return 1.0 - y * y;
  }

 private:
  static constexpr double kSlope = static_cast<double>(0.2f);  // TF.js's float32 0.2
  enum Kind { kSigmoid, kHardSigmoid, kTanh } kind_;
};

struct Cell {
  Activation ract, act;
  int64_t batch, units;
  explicit Cell(const KernelArgs& args)
      : ract(kernel_attrs::Recurrent::read(args.attrs).recurrentActivation),
        act(kernel_attrs::Recurrent::read(args.attrs).activation),
        batch(args.inputs[0].shape()[0]),
        units(args.inputs.back().shape()[1]) {}
};

const float* in(const KernelArgs& args, size_t i) { return hostData<float>(args.inputs[i]); }
float* out(const KernelArgs& args, size_t i) { return hostData<float>(args.outputs[i]); }

/// inputs xz, hz [b, 4u], cPrev [b, u]; outputs h, c.
void lstmCellKernel(KernelArgs& args) {
  Cell cell(args);
  const int64_t u = cell.units, g = 4 * u;
  const float *xz = in(args, 0), *hz = in(args, 1), *cPrev = in(args, 2);
  float *h = out(args, 0), *c = out(args, 1);
  for (int64_t n = 0; n < cell.batch; ++n)
    for (int64_t j = 0; j < u; ++j) {
      auto z = [&](int gate) {
        return double(xz[n * g + gate * u + j]) + hz[n * g + gate * u + j];
      };
      double i = cell.ract(z(0)), f = cell.ract(z(1)), cc = cell.act(z(2)), o = cell.ract(z(3));
      float cNew = static_cast<float>(f * cPrev[n * u + j] + i * cc);
      c[n * u + j] = cNew;
      h[n * u + j] = static_cast<float>(o * cell.act(cNew));
    }
}

/// inputs xz, hz, cPrev, c, dh, dc; outputs dz [b, 4u], dcPrev.
void lstmCellGradKernel(KernelArgs& args) {
  Cell cell(args);
  const int64_t u = cell.units, g = 4 * u;
  const float *xz = in(args, 0), *hz = in(args, 1), *cPrev = in(args, 2), *c = in(args, 3);
  const float *dh = in(args, 4), *dc = in(args, 5);
  float *dz = out(args, 0), *dcPrev = out(args, 1);
  for (int64_t n = 0; n < cell.batch; ++n)
    for (int64_t j = 0; j < u; ++j) {
      const int64_t s = n * u + j;
      double z[4], a[4];
      for (int gate = 0; gate < 4; ++gate) {
        z[gate] = double(xz[n * g + gate * u + j]) + hz[n * g + gate * u + j];
        a[gate] = gate == 2 ? cell.act(z[gate]) : cell.ract(z[gate]);
      }
      double tc = cell.act(c[s]);
      double dct = dc[s] + dh[s] * a[3] * cell.act.derivative(c[s], tc);
      float* d = dz + n * g + j;
      d[0] = static_cast<float>(dct * a[2] * cell.ract.derivative(z[0], a[0]));
      d[u] = static_cast<float>(dct * cPrev[s] * cell.ract.derivative(z[1], a[1]));
      d[2 * u] = static_cast<float>(dct * a[0] * cell.act.derivative(z[2], a[2]));
      d[3 * u] = static_cast<float>(dh[s] * tc * cell.ract.derivative(z[3], a[3]));
      dcPrev[s] = static_cast<float>(dct * a[1]);
    }
}

/// The GRU gates of one unit: pre-activations and values of z, r and the candidate.
struct GruUnit {
  double zPre, z, rPre, r, aPre, a;
};

GruUnit gruUnit(const Cell& cell, bool resetAfter, const float* xz, const float* hzr,
                const float* hc, int64_t n, int64_t j) {
  const int64_t u = cell.units;
  GruUnit v;
  v.zPre = double(xz[n * 3 * u + j]) + hzr[n * 2 * u + j];
  v.rPre = double(xz[n * 3 * u + u + j]) + hzr[n * 2 * u + u + j];
  v.z = cell.ract(v.zPre);
  v.r = cell.ract(v.rPre);
  double rec = hc ? hc[n * u + j] : 0.0;
  v.aPre = xz[n * 3 * u + 2 * u + j] + (resetAfter ? v.r * rec : rec);
  v.a = cell.act(v.aPre);
  return v;
}

/// inputs xz [b, 3u], hzr [b, 2u], hc, hPrev; output h.
void gruCellKernel(KernelArgs& args) {
  Cell cell(args);
  const bool resetAfter = kernel_attrs::Recurrent::read(args.attrs).resetAfter;
  const int64_t u = cell.units;
  const float *xz = in(args, 0), *hzr = in(args, 1), *hc = in(args, 2), *hPrev = in(args, 3);
  float* h = out(args, 0);
  for (int64_t n = 0; n < cell.batch; ++n)
    for (int64_t j = 0; j < u; ++j) {
      GruUnit v = gruUnit(cell, resetAfter, xz, hzr, hc, n, j);
      h[n * u + j] = static_cast<float>(v.a + v.z * (hPrev[n * u + j] - v.a));
    }
}

/// inputs xz, hzr, hc, hPrev, dh; outputs dxz, dhzr, dhc, dhPrev.
void gruCellGradKernel(KernelArgs& args) {
  Cell cell(args);
  const bool resetAfter = kernel_attrs::Recurrent::read(args.attrs).resetAfter;
  const int64_t u = cell.units;
  const float *xz = in(args, 0), *hzr = in(args, 1), *hc = in(args, 2), *hPrev = in(args, 3);
  const float* dh = in(args, 4);
  float *dxz = out(args, 0), *dhzr = out(args, 1), *dhc = out(args, 2), *dhPrev = out(args, 3);
  for (int64_t n = 0; n < cell.batch; ++n)
    for (int64_t j = 0; j < u; ++j) {
      const int64_t s = n * u + j;
      GruUnit v = gruUnit(cell, resetAfter, xz, hzr, hc, n, j);
      double dzPre = dh[s] * (hPrev[s] - v.a) * cell.ract.derivative(v.zPre, v.z);
      double daPre = dh[s] * (1.0 - v.z) * cell.act.derivative(v.aPre, v.a);
      double drPre = resetAfter ? daPre * hc[s] * cell.ract.derivative(v.rPre, v.r) : 0.0;
      dxz[n * 3 * u + j] = dhzr[n * 2 * u + j] = static_cast<float>(dzPre);
      dxz[n * 3 * u + u + j] = dhzr[n * 2 * u + u + j] = static_cast<float>(drPre);
      dxz[n * 3 * u + 2 * u + j] = static_cast<float>(daPre);
      dhc[s] = static_cast<float>(resetAfter ? daPre * v.r : daPre);
      dhPrev[s] = static_cast<float>(dh[s] * v.z);
    }
}

/// inputs xz, hzr, hPrev; output r * hPrev.
void gruResetStateKernel(KernelArgs& args) {
  Cell cell(args);
  const int64_t u = cell.units;
  const float *xz = in(args, 0), *hzr = in(args, 1), *hPrev = in(args, 2);
  float* y = out(args, 0);
  for (int64_t n = 0; n < cell.batch; ++n)
    for (int64_t j = 0; j < u; ++j) {
      GruUnit v = gruUnit(cell, false, xz, hzr, nullptr, n, j);
      y[n * u + j] = static_cast<float>(v.r * hPrev[n * u + j]);
    }
}

/// inputs xz, hzr, hPrev, dy; outputs dxz, dhzr (non-zero in the r part only), dhPrev.
void gruResetStateGradKernel(KernelArgs& args) {
  Cell cell(args);
  const int64_t u = cell.units;
  const float *xz = in(args, 0), *hzr = in(args, 1), *hPrev = in(args, 2), *dy = in(args, 3);
  float *dxz = out(args, 0), *dhzr = out(args, 1), *dhPrev = out(args, 2);
  std::fill(dxz, dxz + args.outputs[0].size(), 0.0f);
  std::fill(dhzr, dhzr + args.outputs[1].size(), 0.0f);
  for (int64_t n = 0; n < cell.batch; ++n)
    for (int64_t j = 0; j < u; ++j) {
      const int64_t s = n * u + j;
      GruUnit v = gruUnit(cell, false, xz, hzr, nullptr, n, j);
      float drPre = static_cast<float>(dy[s] * hPrev[s] * cell.ract.derivative(v.rPre, v.r));
      dxz[n * 3 * u + u + j] = dhzr[n * 2 * u + u + j] = drPre;
      dhPrev[s] = static_cast<float>(dy[s] * v.r);
    }
}

/// The LSTM time loop (see lstmSequence in include/glint/rnn_ops.h): step s of
/// row n, its pre-activations z (4u, gates i f c o) in double from the
/// float h of the step before (as the stored outputs hold it).
struct LstmLoop {
  Cell cell;
  int64_t time, u;
  bool backwards;
  const float *xw, *wr, *mask;
  const float* hs;  // [time, batch, u] outputs, processing order
  bool given;       // input 0 holds the pre-activations z, processing order
  explicit LstmLoop(const KernelArgs& args, const float* hsIn, const float* maskIn)
      : cell(args),
        time(args.inputs[0].shape()[0]),
        u(args.inputs[1].shape()[0]),
        backwards(kernel_attrs::Recurrent::read(args.attrs).goBackwards),
        xw(in(args, 0)),
        wr(in(args, 1)),
        mask(maskIn),
        hs(hsIn),
        given(kernel_attrs::Recurrent::read(args.attrs).preActivations) {
    cell.batch = args.inputs[0].shape()[1];
    cell.units = u;
  }
  /// The masked previous output h_{s-1} * mask of row n (0 at s = 0).
  double hIn(int64_t s, int64_t n, int64_t k) const {
    if (s == 0) return 0.0;
    double h = hs[((s - 1) * cell.batch + n) * u + k];
    return mask ? h * mask[n * u + k] : h;
  }
  void preActivations(int64_t s, int64_t n, double* z) const {
    const int64_t t = backwards && !given ? time - 1 - s : s;
    const float* x = xw + (t * cell.batch + n) * 4 * u;
    for (int64_t m = 0; m < 4 * u; ++m) z[m] = x[m];
    if (given) return;
    for (int64_t k = 0; k < u; ++k) {
      const double h = hIn(s, n, k);
      if (h != 0.0)
        for (int64_t m = 0; m < 4 * u; ++m) z[m] += h * wr[k * 4 * u + m];
    }
  }
};

/// inputs xw [t, b, 4u], wr [u, 4u][, mask [b, u]]; outputs H, C [t, b, u][, Z [t, b, 4u]].
void lstmSequenceKernel(KernelArgs& args) {
  float *hs = out(args, 0), *cs = out(args, 1);
  float* zs = args.outputs.size() > 2 ? out(args, 2) : nullptr;  // pre-activations, kept
  LstmLoop loop(args, hs, args.inputs.size() > 2 ? in(args, 2) : nullptr);
  const int64_t u = loop.u, b = loop.cell.batch;
  std::vector<double> z(static_cast<size_t>(4 * u));
  for (int64_t s = 0; s < loop.time; ++s)
    for (int64_t n = 0; n < b; ++n) {
      loop.preActivations(s, n, z.data());
      if (zs)
        for (int64_t m = 0; m < 4 * u; ++m) zs[(s * b + n) * 4 * u + m] = static_cast<float>(z[m]);
      for (int64_t j = 0; j < u; ++j) {
        double i = loop.cell.ract(z[j]), f = loop.cell.ract(z[u + j]);
        double cc = loop.cell.act(z[2 * u + j]), o = loop.cell.ract(z[3 * u + j]);
        double cPrev = s == 0 ? 0.0 : cs[((s - 1) * b + n) * u + j];
        float c = static_cast<float>(f * cPrev + i * cc);
        cs[(s * b + n) * u + j] = c;
        hs[(s * b + n) * u + j] = static_cast<float>(o * loop.cell.act(c));
      }
    }
}

/// inputs xw (or Z: preActivations), wr, H, C, dH, dC[, mask]; output dZ [t, b, 4u] (processing order).
void lstmSequenceGradKernel(KernelArgs& args) {
  LstmLoop loop(args, in(args, 2), args.inputs.size() > 6 ? in(args, 6) : nullptr);
  const float *cs = in(args, 3), *dH = in(args, 4), *dC = in(args, 5);
  float* dz = out(args, 0);
  const int64_t u = loop.u, b = loop.cell.batch, g = 4 * u;
  const Cell& cell = loop.cell;
  std::vector<double> z(static_cast<size_t>(g)), dzRow(static_cast<size_t>(g));
  for (int64_t n = 0; n < b; ++n) {
    // What flows back into step s from step s + 1, through h_s and c_s.
    std::vector<double> dhRec(static_cast<size_t>(u), 0.0), dcRec(static_cast<size_t>(u), 0.0);
    for (int64_t s = loop.time - 1; s >= 0; --s) {
      loop.preActivations(s, n, z.data());
      for (int64_t j = 0; j < u; ++j) {
        const int64_t e = (s * b + n) * u + j;
        double a[4];
        for (int gate = 0; gate < 4; ++gate)
          a[gate] = gate == 2 ? cell.act(z[gate * u + j]) : cell.ract(z[gate * u + j]);
        double c = cs[e], cPrev = s == 0 ? 0.0 : cs[e - b * u];
        double dh = dH[e] + dhRec[j], tc = cell.act(c);
        double dct = dC[e] + dcRec[j] + dh * a[3] * cell.act.derivative(c, tc);
        dzRow[j] = dct * a[2] * cell.ract.derivative(z[j], a[0]);
        dzRow[u + j] = dct * cPrev * cell.ract.derivative(z[u + j], a[1]);
        dzRow[2 * u + j] = dct * a[0] * cell.act.derivative(z[2 * u + j], a[2]);
        dzRow[3 * u + j] = dh * tc * cell.ract.derivative(z[3 * u + j], a[3]);
        dcRec[j] = dct * a[1];
      }
      for (int64_t m = 0; m < g; ++m) dz[(s * b + n) * g + m] = static_cast<float>(dzRow[m]);
      // dz reached h_{s-1} through its matMul and the mask.
      for (int64_t k = 0; k < u; ++k) {
        double d = 0.0;
        for (int64_t m = 0; m < g; ++m) d += dzRow[m] * loop.wr[k * g + m];
        dhRec[k] = loop.mask ? d * loop.mask[n * u + k] : d;
      }
    }
  }
}

/// x viewed as [outer, n, inner]; output k is x[:, k, :].
void unpackKernel(KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const int axis = static_cast<int>(kernel_attrs::Axis::read(args.attrs).axis);
  int64_t outer = 1, inner = 1, n = x.shape()[axis];
  for (int d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  dispatchDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = hostData<T>(x);
    for (int64_t k = 0; k < n; ++k) {
      T* po = hostData<T>(args.outputs[k]);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) po[o * inner + i] = px[(o * n + k) * inner + i];
    }
  });
}

}  // namespace

void registerRnnKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "LSTMCell", backend, lstmCellKernel);
  GLINT_REGISTER(registerKernel, "LSTMCellGrad", backend, lstmCellGradKernel);
  GLINT_REGISTER(registerKernel, "GRUCell", backend, gruCellKernel);
  GLINT_REGISTER(registerKernel, "GRUCellGrad", backend, gruCellGradKernel);
  GLINT_REGISTER(registerKernel, "GRUResetState", backend, gruResetStateKernel);
  GLINT_REGISTER(registerKernel, "GRUResetStateGrad", backend, gruResetStateGradKernel);
  GLINT_REGISTER(registerKernel, "LSTMSequence", backend, lstmSequenceKernel);
  GLINT_REGISTER(registerKernel, "LSTMSequenceGrad", backend, lstmSequenceGradKernel);
  GLINT_REGISTER(registerKernel, "Unpack", backend, unpackKernel);
}

}  // namespace glint::reference
