"""ldstmatrix.py -- seed 002's LdStMatrixSet copy (TMA load with the 128-byte
swizzle -> ldmatrix.x4 -> registers -> stmatrix.x4 -> TMA store, the schedule
of examples/ldstmatrix_set.py) at 8192 x 8192 bf16 against PyTorch's clone of
the same tensor, in one process: the weft kernel is launched on the torch
CUDA tensors themselves through the Python package (k.run(x, outputs=y): the
tensors' memory is used in place, the launch is enqueued on the default
stream, which torch's events are recorded on too). Timings as
bench/torch_ref.py's time_us: back-to-back launches between two CUDA events
after warm-up, median of rounds; each round starts one launch before its
first event, so that the timed launches queue up behind it and the host's
per-call cost (Python) is not counted while it stays below the kernel's
time (the host time per call is printed too). Prints

    RESULT ldstmatrix D2D copy 8192^2 bf16: <us> us <GB/s>
    RESULT ldstmatrix 8192^2 bf16: weft <us> us <GB/s>; torch clone <us> us; ratio <x>

(ratio: weft's speed over the clone's, clone time / weft time; GB/s counts
the bytes read and written). The output is checked bit for bit against the
input. Skips (exit 0, saying why) without PyTorch, a CUDA device or the
weft package's CUDA driver.
"""

import importlib.util
import os
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("skipped: PyTorch is not installed")
    sys.exit(0)
if not torch.cuda.is_available():
    print("skipped: no CUDA device")
    sys.exit(0)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("ldstmatrix_set", os.path.join(ROOT, "examples", "ldstmatrix_set.py"))
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)  # imports weft (from python/ if not installed)
weft = example.weft
if not weft.cuda_available():
    print("skipped: weft finds no CUDA driver or device")
    sys.exit(0)

WARMUP, REPS, ROUNDS = 3, 20, 5
M = N = 8192


def time_us(fn):
    """Median over ROUNDS of the device time per launch of REPS back-to-back
    launches between two events; and the host's time per call of fn."""
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    rounds, host = [], []
    for _ in range(ROUNDS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        fn()  # in flight while the timed launches are issued behind it
        a.record()
        t0 = time.perf_counter()
        for _ in range(REPS):
            fn()
        host.append((time.perf_counter() - t0) * 1e6 / REPS)
        b.record()
        b.synchronize()
        rounds.append(a.elapsed_time(b) * 1000.0 / REPS)
    return statistics.median(rounds), statistics.median(host)


def bits_equal(y, x):
    return torch.equal(y.view(torch.int16), x.view(torch.int16))


def main():
    f, _ = example.ldstmatrix_set(M, N)
    k = f.compile()
    src = k.source
    for want in ("ldmatrix.sync.aligned.x4.m8n8.shared.b16", "stmatrix.sync.aligned.x4.m8n8.shared.b16"):
        if want not in src:
            print("FAIL: the kernel lacks %s" % want)
            return 1
    torch.manual_seed(22)
    x = torch.randn(M, N, dtype=torch.bfloat16, device="cuda")
    y = torch.empty_like(x)
    nbytes = 2 * x.numel() * x.element_size()  # read and written

    k.run(x, outputs=y)
    torch.cuda.synchronize()
    if not bits_equal(y, x):
        print("FAIL: the weft copy is not bit-exact")
        return 1

    d2d_us, _ = time_us(lambda: y.copy_(x))
    print("RESULT ldstmatrix D2D copy %d^2 bf16: %.1f us %.1f GB/s" % (M, d2d_us, nbytes / d2d_us / 1e3))
    clone_us, _ = time_us(lambda: x.clone())
    y.fill_(0)
    weft_us, host_us = time_us(lambda: k.run(x, outputs=y))
    torch.cuda.synchronize()
    exact = bits_equal(y, x)
    print(
        "weft: %.1f us of host time per k.run call (%s the kernel's %.1f us)"
        % (host_us, "below" if host_us < weft_us else "NOT below: host-bound,", weft_us)
    )
    print(
        "clone: %.1f GB/s, %.2f of the D2D copy; weft: %.2f of the D2D copy"
        % (nbytes / clone_us / 1e3, d2d_us / clone_us, d2d_us / weft_us)
    )
    print(
        "RESULT ldstmatrix %d^2 bf16: weft %.1f us %.1f GB/s; torch clone %.1f us; ratio %.2f%s"
        % (M, weft_us, nbytes / weft_us / 1e3, clone_us, clone_us / weft_us, "" if exact else " (WRONG)")
    )
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
