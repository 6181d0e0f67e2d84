# Expected output of a Keras GRU with reset_after=True (sigmoid, tanh) from
# PyTorch nn.GRU, whose formula is reset-after: the constants in
# tests/unit/layers_masks_rnn_test.cpp (GRUResetAfterMatchesPyTorch). Run: /usr/bin/python3 this.py
import math, torch
torch.set_default_dtype(torch.float64)
u, f, T, B = 3, 2, 4, 2
def vals(n, k): return [math.sin(0.37 * i + k) * 0.8 for i in range(n)]
kernel = torch.tensor(vals(f * 3 * u, 1)).reshape(f, 3 * u)      # Keras [in, 3u], gates z, r, h
rk = torch.tensor(vals(u * 3 * u, 2)).reshape(u, 3 * u)
bias = torch.tensor(vals(2 * 3 * u, 3)).reshape(2, 3 * u)         # [input; recurrent]
x = torch.tensor(vals(B * T * f, 4)).reshape(B, T, f)
g = torch.nn.GRU(f, u, batch_first=True)
def torch_order(m):  # Keras z, r, h columns -> torch r, z, n rows
    z, r, h = m[..., :u], m[..., u:2*u], m[..., 2*u:]
    return torch.cat([r, z, h], -1)
with torch.no_grad():
    g.weight_ih_l0.copy_(torch_order(kernel).T)
    g.weight_hh_l0.copy_(torch_order(rk).T)
    g.bias_ih_l0.copy_(torch_order(bias[0]))
    g.bias_hh_l0.copy_(torch_order(bias[1]))
    y, h = g(x)
print(torch.__version__)
print(', '.join('%.9f' % v for v in y.flatten().tolist()))
