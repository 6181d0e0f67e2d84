#!/usr/bin/python3
"""Reference checked against PyTorch (CPU, float32) where TF.js cannot judge.

    ./build/release/glint_kernel_fuzz --emit calls.jsonl --cases 3000 --seed 1
    node tests/kernel_fuzz/check_tfjs.mjs calls.jsonl --defer deferred.jsonl
    /usr/bin/python3 tests/kernel_fuzz/check_torch.py calls.jsonl [--defer deferred.jsonl] [--show N]

Checks the calls whose spec names torch (ops TF.js lacks: gelu, softmax over
a non-last axis, oneHot of depth 1) and, with --defer, the calls
check_tfjs.mjs handed over because TF.js differs there by design or by its
own bug (check_common.mjs's intended differences): forward, and the
gradients of sum(w * f) through autograd, with the fuzzer's comparison rule
(differential.cpp close). Where torch itself differs from reference by
design, INTENDED names it (docs/TESTING.md). Prints per op: calls compared,
agreed, intended, differed, then each difference with its replay line. Exit
status 1 when one differed.
"""
import json
import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

# ---- the calls in torch -------------------------------------------------------


def tf_same_pads(size, filt, stride, dilation=1):
    """TensorFlow's 'same' padding of one dim: (before, after), the odd one after."""
    eff = (filt - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def padded_nchw(x, a, filt, dilations=(1, 1), value=0.0):
    """x NHWC -> NCHW, padded as TensorFlow pads for a.pad."""
    x = x.permute(0, 3, 1, 2)
    if a["pad"] != "same":
        return x
    ph = tf_same_pads(x.shape[2], filt[0], a["strides"][0], dilations[0])
    pw = tf_same_pads(x.shape[3], filt[1], a["strides"][1], dilations[1])
    return F.pad(x, (pw[0], pw[1], ph[0], ph[1]), value=value)


def nhwc(y):
    return y.permute(0, 2, 3, 1)


def max_pool(x, a):
    xp = padded_nchw(x, a, a["filterSize"], value=-math.inf)
    return nhwc(F.max_pool2d(xp, a["filterSize"], a["strides"]))


def avg_pool(x, a):
    # The mean of the taps inside the input: padding is not counted.
    total = F.avg_pool2d(padded_nchw(x, a, a["filterSize"]), a["filterSize"], a["strides"],
                         divisor_override=1)
    count = F.avg_pool2d(padded_nchw(torch.ones_like(x), a, a["filterSize"]), a["filterSize"],
                         a["strides"], divisor_override=1)
    return nhwc(total / count)


def conv2d(x, f, a):
    d = a["dilations"]
    xp = padded_nchw(x, a, f.shape[:2], d)
    return nhwc(F.conv2d(xp, f.permute(3, 2, 0, 1), stride=a["strides"], dilation=d))


def depthwise_conv2d(x, f, a):
    d = a["dilations"]
    fh, fw, ci, mult = f.shape
    xp = padded_nchw(x, a, (fh, fw), d)
    weight = f.permute(2, 3, 0, 1).reshape(ci * mult, 1, fh, fw)
    return nhwc(F.conv2d(xp, weight, stride=a["strides"], dilation=d, groups=ci))


def axes_of(a, rank):
    axis = a.get("axis")
    if axis is None:
        return list(range(rank))
    return sorted({v % rank for v in (axis if isinstance(axis, list) else [axis])})


def prod(x, a):
    axes = axes_of(a, x.dim())
    rest = [i for i in range(x.dim()) if i not in axes]
    y = x.permute(*rest, *axes).reshape(*[x.shape[i] for i in rest], -1).prod(-1)
    if a["keepDims"]:
        y = y.reshape([1 if i in axes else x.shape[i] for i in range(x.dim())])
    return y


def log_sum_exp(x, a):
    return torch.logsumexp(x, dim=axes_of(a, x.dim()), keepdim=a["keepDims"])


def strided_slice(x, a):
    """Python's slicing per axis (TensorFlow's strided slice semantics)."""
    shrunk = []
    for axis in range(x.dim()):
        b, e, s = a["begin"][axis], a["end"][axis], a["strides"][axis]
        if a["shrinkAxisMask"] >> axis & 1:
            index = [b % x.shape[axis]]
            shrunk.append(axis)
        else:
            b = None if a["beginMask"] >> axis & 1 else b
            e = None if a["endMask"] >> axis & 1 else e
            index = list(range(x.shape[axis]))[slice(b, e, s)]
        x = x.index_select(axis, torch.tensor(index, dtype=torch.long))
    for axis in reversed(shrunk):
        x = x.squeeze(axis)
    return x


def unstack_concat(x, a):
    parts = torch.unbind(x, a["axis"])
    return torch.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(parts)])


def one_hot(indices, a):
    hit = indices.long().unsqueeze(-1) == torch.arange(a["depth"])
    return torch.where(hit, torch.tensor(a["onValue"]), torch.tensor(a["offValue"]))


def t_matmul(x, a):
    p, q = x
    if a["transposeA"]:
        p = p.transpose(-1, -2)
    if a["transposeB"]:
        q = q.transpose(-1, -2)
    return torch.matmul(p, q)


def numpy_op(f, x):
    """A NumPy function of the inputs, float32; no gradient (the callers' ops
    have none, or their gradient is checked on TF.js)."""
    with np.errstate(all="ignore"):  # NaN where the op defines NaN
        return torch.from_numpy(np.asarray(f(*[t.detach().numpy() for t in x]), dtype=np.float32))


# TF.js op names (deferred calls) and torch names (the spec's "torch").
OPS = {
    "maxPool": lambda x, a: max_pool(x[0], a),
    "avgPool": lambda x, a: avg_pool(x[0], a),
    "conv2d": lambda x, a: conv2d(x[0], x[1], a),
    "depthwiseConv2d": lambda x, a: depthwise_conv2d(x[0], x[1], a),
    "matMul": t_matmul,
    # where, not torch.maximum: at ties TensorFlow's gradient goes to a, torch's splits
    "maximum": lambda x, a: torch.where(x[0] >= x[1], x[0], x[1]),
    "minimum": lambda x, a: torch.where(x[0] <= x[1], x[0], x[1]),
    "squaredDifference": lambda x, a: (x[0] - x[1]) ** 2,
    # NumPy's: torch.remainder is a - floor(a / b) * b, NaN where a / b overflows
    # (a tiny divisor); np.mod is exact (fmod corrected to b's sign).
    "mod": lambda x, a: numpy_op(np.mod, x),
    # floor(a / b) of the exact quotient, as reference (and TF.js, in doubles):
    # in float64, since a float32 quotient can underflow to -0 (1e-40 / -1e30);
    # torch.floor_divide is Python's // (-1 for 1 // -inf). A step function:
    # its gradient is zero.
    "floorDiv": lambda x, a: torch.floor(x[0].detach().double() / x[1].detach().double()).float(),
    # NumPy's: torch 1.13's sign(NaN) is 0
    "sign": lambda x, a: numpy_op(np.sign, x),
    "acosh": lambda x, a: torch.acosh(x[0]),
    "abs": lambda x, a: torch.abs(x[0]),
    "logSumExp": lambda x, a: log_sum_exp(x[0], a),
    "prod": lambda x, a: prod(x[0], a),
    "tile": lambda x, a: x[0].repeat(a["reps"]),
    "reverse": lambda x, a: torch.flip(x[0], a["axis"] if a["axis"] is not None
                                       else list(range(x[0].dim()))),
    "stridedSlice": lambda x, a: strided_slice(x[0], a),
    "unstack": lambda x, a: unstack_concat(x[0], a),
    # TF.js lacks these
    "gelu": lambda x, a: F.gelu(x[0], approximate=a["approximate"]),
    "softmax": lambda x, a: F.softmax(x[0], dim=a["dim"]),
    "log_softmax": lambda x, a: F.log_softmax(x[0], dim=a["dim"]),
    "logSoftmax": lambda x, a: F.log_softmax(x[0], dim=a["dim"]),
    "oneHot": lambda x, a: one_hot(x[0], a),
}

# ---- comparison ---------------------------------------------------------------


def decode(v):
    return float(v) if isinstance(v, str) else v


def close(got, want, rtol, atol):
    """differential.cpp's close(): NaN only matches NaN, an infinity only itself."""
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    if math.isinf(got) or math.isinf(want):
        return got == want
    return abs(got - want) <= atol + rtol * max(abs(got), abs(want))


DTYPES = {"float32": torch.float32, "int32": torch.int32, "bool": torch.bool}
NAMES = {torch.float32: "float32", torch.int32: "int32", torch.int64: "int32", torch.bool: "bool"}


def tensor_of(t, grad):
    values = [decode(v) for v in t["values"]]
    x = torch.tensor(values, dtype=torch.float32).reshape(t["shape"])
    if t["dtype"] != "float32":
        x = x.to(DTYPES[t["dtype"]])
    return x.requires_grad_(grad)


def op_of(c):
    return c["spec"].get("torch") or c["spec"]["op"]


def holds(c, test):
    return any(test(decode(v)) for v in c["inputs"][0]["values"])


class Intended(Exception):
    pass


# Where torch differs from reference by design, each narrow (docs/TESTING.md's
# table): name, why, and applies(call, what, element, got, want).
INTENDED = [
    ("maxPool and NaN",
     "torch's max_pool2d propagates any NaN in a window; reference (every Glint backend) takes "
     "the first maximal tap by v > best, so NaN wins only as a window's first tap",
     lambda c, what, i, got, want: op_of(c) == "maxPool" and what == "forward" and
     math.isnan(got) and holds(c, math.isnan)),
    ("acosh gradient at -1",
     "outside acosh's domain (forward NaN) the gradient's infinity takes the sign of a zero: "
     "reference divides by sqrt((x - 1)(x + 1)) = -0 at x = -1, torch by rsqrt(x^2 - 1) = +inf",
     lambda c, what, i, got, want: op_of(c) == "acosh" and what != "forward" and
     decode(c["inputs"][0]["values"][i]) == -1 and math.isinf(got) and math.isinf(want)),
    ("logSoftmax of a row holding +Inf",
     "torch (and TF.js) compute x - max first: NaN for a whole row holding +Inf; reference "
     "computes x - logSumExp(row): -Inf for the finite entries (their limit)",
     lambda c, what, i, got, want: op_of(c) in ("log_softmax", "logSoftmax") and what == "forward" and
     math.isnan(got) and want == -math.inf and holds(c, lambda v: v == math.inf)),
]


def compare_values(c, what, got, want, rtol, atol):
    got = got.detach().to(torch.float64).reshape(-1).tolist()
    for i, w in enumerate(want):
        if not close(got[i], decode(w), rtol, atol):
            for name, _, applies in INTENDED:
                if applies(c, what, i, got[i], decode(w)):
                    raise Intended(name)
            return f"{what} element {i}: torch {got[i]!r} vs reference {decode(w)!r}"
    return None


def compare_call(c):
    spec = c["spec"]
    name = spec.get("torch") or spec["op"]
    f = OPS.get(name)
    if f is None:
        return name, f"no torch form for {name}"
    attrs = spec.get("attrs", {})
    grads = c["checkGrad"]
    xs = [tensor_of(t, grads and i in c["gradInputs"]) for i, t in enumerate(c["inputs"])]
    y = f(xs, attrs)
    if list(y.shape) != c["output"]["shape"]:
        return name, f"shape {list(y.shape)} vs reference {c['output']['shape']}"
    if NAMES.get(y.dtype) != c["output"]["dtype"]:
        return name, f"dtype {y.dtype} vs reference {c['output']['dtype']}"
    problem = compare_values(c, "forward", y, c["output"]["values"], c["rtol"], c["atol"])
    if problem or not grads:
        return name, problem
    w = torch.tensor([decode(v) for v in c["w"]], dtype=torch.float32).reshape(y.shape)
    which = [xs[k] for k in c["gradInputs"]]
    gs = (torch.autograd.grad((y * w).sum(), which, allow_unused=True) if y.requires_grad
          else [None] * len(which))
    for k, x, g, want in zip(c["gradInputs"], which, gs, c["grads"]):
        if g is None:  # f does not depend on x
            g = torch.zeros_like(x)
        problem = compare_values(c, f"gradient of input {k}", g, want, c["rtol"] * c["gradScale"],
                                 c["atol"] * c["gradScale"])
        if problem:
            return name, problem
    return name, None


def main():
    args = sys.argv[1:]
    show = int(args[args.index("--show") + 1]) if "--show" in args else 20
    defer_file = args[args.index("--defer") + 1] if "--defer" in args else None
    files = [a for i, a in enumerate(args)
             if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--show", "--defer"))]
    if len(files) != 1:
        sys.exit(__doc__)
    deferred = {}
    if defer_file:
        with open(defer_file) as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    deferred[d["replay"]] = d["intended"]
    torch.set_num_threads(1)
    per_op, differences, intended_count = {}, [], {}
    with open(files[0]) as f:
        for line in f:
            if not line.strip():
                continue
            c = json.loads(line)
            why = deferred.get(c["replay"])
            if not c["spec"].get("torch") and why is None:
                continue
            intended = None
            try:
                name, problem = compare_call(c)
            except Intended as e:
                name, problem, intended = op_of(c), None, str(e)
            except Exception as e:  # torch refused: a difference to look at
                name, problem = op_of(c), f"torch refused: {e}"
            key = name if why is None else f"{name} ({why})"
            row = per_op.setdefault(key, [0, 0, 0, 0])
            row[0] += 1
            row[2 if intended else 1 if problem is None else 3] += 1
            if intended:
                intended_count[intended] = intended_count.get(intended, 0) + 1
            if problem:
                differences.append((key, problem, c))
    print(f"PyTorch {torch.__version__} (CPU, float32) against Glint's reference: {files[0]}")
    head = ["compared", "agreed", "intended", "differed"]
    print(f"{'op (the TF.js difference it judges)':<72}" + "".join(f" {h:>8}" for h in head))
    total = [0, 0, 0, 0]
    for key in sorted(per_op):
        r = per_op[key]
        print(f"{key:<72}" + "".join(f" {v:>8}" for v in r))
        total = [t + v for t, v in zip(total, r)]
    print(f"{'(every op)':<72}" + "".join(f" {v:>8}" for v in total))
    for name, n in intended_count.items():
        print(f"intended difference '{name}': {n} calls")
    for key, problem, c in differences[:show]:
        print(f"DIFF {key}: {problem}\n  call: {c['describe']}\n  replay: --replay {c['replay']}")
    if len(differences) > show:
        print(f"... and {len(differences) - show} more differences")
    print("check_torch: DIFFERED" if differences else "check_torch: agreed")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
