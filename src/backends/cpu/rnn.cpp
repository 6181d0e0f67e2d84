// Fused recurrent-cell kernels for the cpu backend: each walks the gate
// columns of a batch row once, in float, with the branch-free exp/sigmoid/tanh
// of vecmath_util.h so the unit loop vectorises; rows are shared out over the
// thread pool when there are enough of them. Same equations as
// src/backends/reference/rnn.cpp (the oracle).
#include <algorithm>
#include <string>

#include "glint/backend.h"
#include "src/backends/cpu/cpu_isa.h"
#include "src/backends/cpu/kernels.h"
#include "src/backends/cpu/thread_pool.h"
#include "src/backends/cpu/vecmath_util.h"
#include "src/backends/stepwise_rnn.h"
#include "src/core/kernel_attrs.h"
#include "src/core/kernel_selection.h"

namespace glint::cpu {

namespace {

struct Sigmoid {
  static float f(float x) { return vsigmoid(x); }
  static float df(float, float y) { return y * (1.0f - y); }
};

/// clip(0.2x + 0.5, 0, 1), rounded as the composed mul, add and clip round.
struct HardSigmoid {
  static float pre(float x) { return x * 0.2f + 0.5f; }
  static float f(float x) {
    float p = pre(x);
    return vselect(p > 0.0f, vselect(p < 1.0f, p, 1.0f), 0.0f);
  }
  static float df(float x, float) {
    float p = pre(x);
    return vselect((p >= 0.0f) & (p <= 1.0f), 0.2f, 0.0f);  // & keeps the loop branch-free
  }
};

struct Tanh {
  static float f(float x) { return vtanh(x); }
  static float df(float, float y) { return 1.0f - y * y; }
};

/// Runs rows(lo, hi) over [0, batch), on several threads when each gets enough units.
template <class Rows>
void forRows(int64_t batch, int64_t units, const Rows& rows) {
  constexpr int64_t kUnitsPerTask = 4096;  // below this, waking workers costs more than it saves
  ThreadPool& pool = ThreadPool::shared();
  int64_t tasks = std::min<int64_t>({pool.threads(), batch, batch * units / kUnitsPerTask});
  if (tasks <= 1) return rows(0, batch);
  pool.parallelFor(tasks, [&](int64_t t) { rows(batch * t / tasks, batch * (t + 1) / tasks); });
}

/// Calls f(RAct{}) with the recurrent activation the kernel's attrs name.
template <class F>
void withGate(const KernelArgs& args, F&& f) {
  if (kernel_attrs::Recurrent::read(args.attrs).recurrentActivation == "sigmoid") f(Sigmoid{});
  else f(HardSigmoid{});
}

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__EMSCRIPTEN__) && defined(__GNUC__) && \
    !defined(__clang__)
// The cell loops built a second time for AVX-512 (16 units per vector instead
// of SSE2's 4: a one-sample LSTM step spent as long in its 128-unit cell as in
// the 128 x 512 matMul); the body is inlined into both copies.
#define GLINT_RNN_WIDE 1
#define GLINT_RNN_WIDE_TARGET __attribute__((target("avx512f,avx512vl,prefer-vector-width=512")))
bool wideCpu() {
  static const bool yes = cpuRuns("avx512");
  return yes;
}
#endif

/// Defines name<T...>(args), running body<T...> in the widest copy this CPU has.
#if defined(GLINT_RNN_WIDE)
#define GLINT_RNN_ROW(name, body)                 \
  template <class... T, class... A>               \
  GLINT_RNN_WIDE_TARGET void name##Wide(A... a) { \
    body<T...>(a...);                             \
  }                                               \
  template <class... T, class... A>               \
  void name(A... a) {                             \
    if (wideCpu()) name##Wide<T...>(a...);        \
    else body<T...>(a...);                        \
  }
#else
#define GLINT_RNN_ROW(name, body)   \
  template <class... T, class... A> \
  void name(A... a) {               \
    body<T...>(a...);               \
  }
#endif

#define GLINT_RNN_INLINE inline __attribute__((always_inline))

const float* in(const KernelArgs& args, size_t i) { return hostData<float>(args.inputs[i]); }
float* out(const KernelArgs& args, size_t i) { return hostData<float>(args.outputs[i]); }

// ---- LSTM ----------------------------------------------------------------------

/// One batch row: every gate read through its own pointer, so the loop vectorises.
template <class G>
GLINT_RNN_INLINE void lstmRowBody(const float* __restrict xi, const float* __restrict xf,
                                  const float* __restrict xc, const float* __restrict xo,
                                  const float* __restrict ri, const float* __restrict rf,
                                  const float* __restrict rc, const float* __restrict ro,
                                  const float* __restrict cp, float* __restrict h,
                                  float* __restrict c, int64_t u) {
  for (int64_t j = 0; j < u; ++j) {
    float i = G::f(xi[j] + ri[j]), f = G::f(xf[j] + rf[j]);
    float cc = Tanh::f(xc[j] + rc[j]), o = G::f(xo[j] + ro[j]);
    float cNew = f * cp[j] + i * cc;
    c[j] = cNew;
    h[j] = o * Tanh::f(cNew);
  }
}
GLINT_RNN_ROW(lstmRow, lstmRowBody)

void lstmCellKernel(KernelArgs& args) {
  const int64_t batch = args.inputs[0].shape()[0], u = args.inputs[2].shape()[1], g = 4 * u;
  const float *xz = in(args, 0), *hz = in(args, 1), *cPrev = in(args, 2);
  float *hOut = out(args, 0), *cOut = out(args, 1);
  withGate(args, [&](auto gate) {
    using G = decltype(gate);
    forRows(batch, u, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n) {
        const float *x = xz + n * g, *r = hz + n * g;
        lstmRow<G>(x, x + u, x + 2 * u, x + 3 * u, r, r + u, r + 2 * u, r + 3 * u, cPrev + n * u,
                   hOut + n * u, cOut + n * u, u);
      }
    });
  });
}

/// One batch row of the gradient; x*, r* and dz* point at the gates' columns.
template <class G>
GLINT_RNN_INLINE void lstmGradRowBody(const float* __restrict xi, const float* __restrict xf,
                                      const float* __restrict xc, const float* __restrict xo,
                                      const float* __restrict ri, const float* __restrict rf,
                                      const float* __restrict rc, const float* __restrict ro,
                                      const float* __restrict cp, const float* __restrict c,
                                      const float* __restrict dh, const float* __restrict dc,
                                      float* __restrict dzi, float* __restrict dzf,
                                      float* __restrict dzc, float* __restrict dzo,
                                      float* __restrict dcp, int64_t u) {
  for (int64_t j = 0; j < u; ++j) {
    float zi = xi[j] + ri[j], zf = xf[j] + rf[j], zc = xc[j] + rc[j], zo = xo[j] + ro[j];
    float i = G::f(zi), f = G::f(zf), cc = Tanh::f(zc), o = G::f(zo);
    float tc = Tanh::f(c[j]);
    float dct = dc[j] + dh[j] * o * Tanh::df(c[j], tc);
    dzi[j] = dct * cc * G::df(zi, i);
    dzf[j] = dct * cp[j] * G::df(zf, f);
    dzc[j] = dct * i * Tanh::df(zc, cc);
    dzo[j] = dh[j] * tc * G::df(zo, o);
    dcp[j] = dct * f;
  }
}
GLINT_RNN_ROW(lstmGradRow, lstmGradRowBody)

/// inputs xz, hz, cPrev, c, dh, dc; outputs dz, dcPrev.
void lstmCellGradKernel(KernelArgs& args) {
  const int64_t batch = args.inputs[0].shape()[0], u = args.inputs[2].shape()[1], g = 4 * u;
  const float *xz = in(args, 0), *hz = in(args, 1), *cPrev = in(args, 2), *c = in(args, 3);
  const float *dh = in(args, 4), *dc = in(args, 5);
  float *dz = out(args, 0), *dcPrev = out(args, 1);
  withGate(args, [&](auto gate) {
    using G = decltype(gate);
    forRows(batch, u, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n) {
        const float *x = xz + n * g, *r = hz + n * g;
        float* d = dz + n * g;
        const int64_t s = n * u;
        lstmGradRow<G>(x, x + u, x + 2 * u, x + 3 * u, r, r + u, r + 2 * u, r + 3 * u, cPrev + s,
                       c + s, dh + s, dc + s, d, d + u, d + 2 * u, d + 3 * u, dcPrev + s, u);
      }
    });
  });
}

// ---- GRU -----------------------------------------------------------------------

/// One batch row of gruCell: x* and r* point at the gates' columns.
template <class G, bool resetAfter>
void gruRow(const float* __restrict xz, const float* __restrict xr, const float* __restrict xh,
            const float* __restrict rz, const float* __restrict rr, const float* __restrict hc,
            const float* __restrict hp, float* __restrict h, int64_t u) {
  for (int64_t j = 0; j < u; ++j) {
    float z = G::f(xz[j] + rz[j]);
    float a = Tanh::f(xh[j] + (resetAfter ? G::f(xr[j] + rr[j]) * hc[j] : hc[j]));
    h[j] = a + z * (hp[j] - a);
  }
}

/// inputs xz [b, 3u], hzr [b, 2u], hc, hPrev; output h.
void gruCellKernel(KernelArgs& args) {
  const int64_t batch = args.inputs[0].shape()[0], u = args.inputs[3].shape()[1];
  const bool resetAfter = kernel_attrs::Recurrent::read(args.attrs).resetAfter;
  const float *xz = in(args, 0), *hzr = in(args, 1), *hc = in(args, 2), *hPrev = in(args, 3);
  float* h = out(args, 0);
  withGate(args, [&](auto gate) {
    using G = decltype(gate);
    forRows(batch, u, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n) {
        const float *x = xz + n * 3 * u, *r = hzr + n * 2 * u;
        const int64_t s = n * u;
        if (resetAfter) gruRow<G, true>(x, x + u, x + 2 * u, r, r + u, hc + s, hPrev + s, h + s, u);
        else gruRow<G, false>(x, x + u, x + 2 * u, r, r + u, hc + s, hPrev + s, h + s, u);
      }
    });
  });
}

/// One batch row of the gradient of gruCell.
template <class G, bool resetAfter>
void gruGradRow(const float* __restrict xz, const float* __restrict xr, const float* __restrict xh,
                const float* __restrict rz, const float* __restrict rr, const float* __restrict hc,
                const float* __restrict hp, const float* __restrict dh, float* __restrict dxz,
                float* __restrict dxr, float* __restrict dxh, float* __restrict drz,
                float* __restrict drr, float* __restrict dhc, float* __restrict dhp, int64_t u) {
  for (int64_t j = 0; j < u; ++j) {
    float zPre = xz[j] + rz[j], z = G::f(zPre);
    float rPre = xr[j] + rr[j], r = resetAfter ? G::f(rPre) : 0.0f;
    float aPre = xh[j] + (resetAfter ? r * hc[j] : hc[j]), a = Tanh::f(aPre);
    float dzPre = dh[j] * (hp[j] - a) * G::df(zPre, z);
    float daPre = dh[j] * (1.0f - z) * Tanh::df(aPre, a);
    float drPre = resetAfter ? daPre * hc[j] * G::df(rPre, r) : 0.0f;
    dxz[j] = dzPre;
    drz[j] = dzPre;
    dxr[j] = drPre;
    drr[j] = drPre;
    dxh[j] = daPre;
    dhc[j] = resetAfter ? daPre * r : daPre;
    dhp[j] = dh[j] * z;
  }
}

/// inputs xz, hzr, hc, hPrev, dh; outputs dxz, dhzr, dhc, dhPrev.
void gruCellGradKernel(KernelArgs& args) {
  const int64_t batch = args.inputs[0].shape()[0], u = args.inputs[3].shape()[1];
  const bool resetAfter = kernel_attrs::Recurrent::read(args.attrs).resetAfter;
  const float *xz = in(args, 0), *hzr = in(args, 1), *hc = in(args, 2), *hPrev = in(args, 3);
  const float* dh = in(args, 4);
  float *dxz = out(args, 0), *dhzr = out(args, 1), *dhc = out(args, 2), *dhPrev = out(args, 3);
  withGate(args, [&](auto gate) {
    using G = decltype(gate);
    forRows(batch, u, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n) {
        const float *x = xz + n * 3 * u, *r = hzr + n * 2 * u;
        float *dx = dxz + n * 3 * u, *dr = dhzr + n * 2 * u;
        const int64_t s = n * u;
        auto row = resetAfter ? gruGradRow<G, true> : gruGradRow<G, false>;
        row(x, x + u, x + 2 * u, r, r + u, hc + s, hPrev + s, dh + s, dx, dx + u, dx + 2 * u, dr,
            dr + u, dhc + s, dhPrev + s, u);
      }
    });
  });
}

/// One batch row of gruResetState: xr, rr point at the r columns.
template <class G>
void resetRow(const float* __restrict xr, const float* __restrict rr, const float* __restrict hp,
              float* __restrict y, int64_t u) {
  for (int64_t j = 0; j < u; ++j) y[j] = G::f(xr[j] + rr[j]) * hp[j];
}

/// inputs xz, hzr, hPrev; output r * hPrev.
void gruResetStateKernel(KernelArgs& args) {
  const int64_t batch = args.inputs[0].shape()[0], u = args.inputs[2].shape()[1];
  const float *xz = in(args, 0), *hzr = in(args, 1), *hPrev = in(args, 2);
  float* y = out(args, 0);
  withGate(args, [&](auto gate) {
    using G = decltype(gate);
    forRows(batch, u, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n)
        resetRow<G>(xz + n * 3 * u + u, hzr + n * 2 * u + u, hPrev + n * u, y + n * u, u);
    });
  });
}

template <class G>
void resetGradRow(const float* __restrict xr, const float* __restrict rr,
                  const float* __restrict hp, const float* __restrict dy, float* __restrict dxr,
                  float* __restrict drr, float* __restrict dhp, int64_t u) {
  for (int64_t j = 0; j < u; ++j) {
    float rPre = xr[j] + rr[j], r = G::f(rPre);
    float d = dy[j] * hp[j] * G::df(rPre, r);
    dxr[j] = d;
    drr[j] = d;
    dhp[j] = dy[j] * r;
  }
}

/// inputs xz, hzr, hPrev, dy; outputs dxz, dhzr (zero outside the r part), dhPrev.
void gruResetStateGradKernel(KernelArgs& args) {
  const int64_t batch = args.inputs[0].shape()[0], u = args.inputs[2].shape()[1];
  const float *xz = in(args, 0), *hzr = in(args, 1), *hPrev = in(args, 2), *dy = in(args, 3);
  float *dxz = out(args, 0), *dhzr = out(args, 1), *dhPrev = out(args, 2);
  withGate(args, [&](auto gate) {
    using G = decltype(gate);
    forRows(batch, u, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n) {
        float *dx = dxz + n * 3 * u, *dr = dhzr + n * 2 * u;
        std::fill(dx, dx + u, 0.0f);
        std::fill(dx + 2 * u, dx + 3 * u, 0.0f);
        std::fill(dr, dr + u, 0.0f);
        resetGradRow<G>(xz + n * 3 * u + u, hzr + n * 2 * u + u, hPrev + n * u, dy + n * u, dx + u,
                        dr + u, dhPrev + n * u, u);
      }
    });
  });
}

}  // namespace

void registerRnnKernels(const std::string& backend) {
  GLINT_REGISTER(registerKernel, "LSTMCell", backend, lstmCellKernel);
  GLINT_REGISTER(registerKernel, "LSTMCellGrad", backend, lstmCellGradKernel);
  // The time loop: per step the matMul and the cell above.
  GLINT_REGISTER(registerKernel, "LSTMSequence", backend, lstmSequenceStepwise);
  GLINT_REGISTER(registerKernel, "LSTMSequenceGrad", backend, lstmSequenceGradStepwise);
  GLINT_REGISTER(registerKernel, "GRUCell", backend, gruCellKernel);
  GLINT_REGISTER(registerKernel, "GRUCellGrad", backend, gruCellGradKernel);
  GLINT_REGISTER(registerKernel, "GRUResetState", backend, gruResetStateKernel);
  GLINT_REGISTER(registerKernel, "GRUResetStateGrad", backend, gruResetStateGradKernel);
}

}  // namespace glint::cpu
