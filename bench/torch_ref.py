"""torch_ref.py -- PyTorch (eager and torch.compile) on the benchmarks' problems,
in the same run as weft's benchmarks, so that their ratios to copy bandwidth can
be compared: each line is "RESULT torch <what>: <us> us <GB/s>; ratio to D2D".
Timings: CUDA events around REPS launches after WARMUP, median of 5 rounds.
Skips (exit 0) without torch or a GPU."""
import statistics
import sys

try:
    import torch
except ImportError:
    print("skipped: PyTorch is not installed")
    sys.exit(0)
if not torch.cuda.is_available():
    print("skipped: no CUDA device")
    sys.exit(0)

WARMUP, REPS = 3, 10


def time_us(fn):
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(REPS):
            fn()
        b.record()
        b.synchronize()
        rounds.append(a.elapsed_time(b) * 1000.0 / REPS)
    return statistics.median(rounds)


def report(what, us, nbytes, d2d_gbs):
    gbs = nbytes / us / 1e3
    print(f"RESULT torch {what}: {us:.1f} us {gbs:.1f} GB/s; ratio to D2D {100.0 * gbs / d2d_gbs:.1f}%")


N = 16384
x = torch.randn(N, N, device="cuda", dtype=torch.float32)
y = torch.empty_like(x)
d2d_us = time_us(lambda: y.copy_(x))
d2d = 2 * x.numel() * 4 / d2d_us / 1e3
print(f"RESULT torch D2D copy 1GiB: {d2d_us:.1f} us {d2d:.1f} GB/s")
nb = x.numel() * 4

inner = time_us(lambda: torch.sum(x, dim=1))
report("sum inner 16384^2 f32", inner, nb, d2d)
outer = time_us(lambda: torch.sum(x, dim=0))
report("sum outer 16384^2 f32", outer, nb, d2d)
assert torch.allclose(torch.sum(x, dim=1).double(), x.double().sum(dim=1), rtol=1e-4, atol=1e-2)

tr = torch.compile(lambda t: t.t().contiguous())
tr(x)
report("compile transpose 16384^2 f32", time_us(lambda: tr(x)), 2 * nb, d2d)
report("eager transpose 16384^2 f32", time_us(lambda: x.t().contiguous()), 2 * nb, d2d)

s = torch.randn(4096, 4096, device="cuda", dtype=torch.float32)
report("softmax 4096^2 f32", time_us(lambda: torch.softmax(s, dim=1)), 2 * s.numel() * 4, d2d)

a = torch.randn(1 << 28, device="cuda")
b = torch.randn(1 << 28, device="cuda")
report("add 3x1GiB", time_us(lambda: torch.add(a, b)), 3 * a.numel() * 4, d2d)
