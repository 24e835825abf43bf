"""gemm.py -- weft's tensor-core GEMMs (mma.sync.m16n8k16 and Hopper's wgmma,
the schedules of examples/gemm_mma_sync.py) against cuBLAS (torch.matmul) and, where Triton is
installed, Triton's tutorial matmul, in one process, on the same torch CUDA
tensors: bf16 8192^3 and 4096^3, f16 4096^3, a skinny 16384 x 1024 x 16384,
and the bias + relu epilogue fused at 4096^3 and 8192^3 (against
torch.relu(A @ B + bias), and against weft's plain GEMM of the same schedule).

Each weft kernel is launched on the torch tensors themselves (k.run(a, b,
outputs=c)); its result is checked against torch.matmul in f32 (the largest
error over the largest |C|, < 1e-2 for 16-bit inputs summed in f32) before
and after timing. Timings: back-to-back launches between two CUDA events
after warm-up, median of rounds (bench/ldstmatrix.py's time_us). Prints per
problem

    RESULT gemm <what>: weft <us> us <TFLOP/s>; cuBLAS <us> us <TFLOP/s>; ratio <x>[; triton ...]

(ratio: weft's speed over cuBLAS's). An argument runs only the problems
whose names contain it (`bench/gemm.py bias`). The schedule tried per shape is a short
list of block / warp tiles (TILES, WGMMA_TILES); the best is timed again
against cuBLAS in alternating rounds, and those times are the RESULT. Skips (exit 0,
saying why) without PyTorch, a CUDA device or the weft package's driver.
"""

import importlib.util
import os
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("gemm_mma_sync", os.path.join(ROOT, "examples", "gemm_mma_sync.py"))
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)  # imports weft (from python/ if not installed)
weft = example.weft
if not weft.cuda_available():
    print("skipped: weft finds no CUDA driver or device")
    sys.exit(0)

WARMUP, REPS, ROUNDS = 2, 10, 5

# gemm()'s choices: warps (M, N), 16 x 8 tiles per warp (M, N), 16s of K per
# shared-memory step, TMA stages (0: the tiles fetched by all threads)
TILES = [dict(warps=(2, 2), frags=(4, 8), kt=4, stages=3)]
# gemm_wgmma()'s: warp groups per block (64 rows each), N of the instruction, K step / 16, TMA stages;
# out16: C in the inputs' type, as cuBLAS writes it (else f32)
# raster: column blocks in groups of that many (blockIdx.x), for L2 reuse
WGMMA_TILES = [dict(groups=2, bn=128, kt=4, stages=4, out16=True), dict(groups=2, bn=256, kt=4, stages=4),
               dict(groups=2, bn=256, kt=4, stages=4, raster=4), dict(groups=2, bn=256, kt=4, stages=3, out16=True),
               dict(groups=2, bn=256, kt=4, stages=4, out16=True),
               dict(groups=2, bn=256, kt=4, stages=4, out16=True, raster=4),
               dict(groups=2, bn=256, kt=4, stages=4, out16=True, raster=2)]

PROBLEMS = [  # (name, M, N, K, dtype, epilogue)
    ("bf16 8192^3", 8192, 8192, 8192, torch.bfloat16, False),
    ("bf16 4096^3", 4096, 4096, 4096, torch.bfloat16, False),
    ("f16 4096^3", 4096, 4096, 4096, torch.float16, False),
    ("bf16 16384x1024x16384", 16384, 1024, 16384, torch.bfloat16, False),
    ("bf16 4096^3 + bias + relu", 4096, 4096, 4096, torch.bfloat16, True),
    ("bf16 8192^3 + bias + relu", 8192, 8192, 8192, torch.bfloat16, True),
]


def round_us(fn):
    """One round: REPS back-to-back launches between two events, per launch."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(REPS):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1000.0 / REPS


def time_us(fn):
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    return statistics.median(round_us(fn) for _ in range(ROUNDS))


def time_pair_us(fn_a, fn_b, rounds=7):
    """Medians of rounds that alternate fn_a and fn_b: clock and temperature
    drift during a long run then moves both the same way, which a ratio
    needs."""
    ta, tb = [], []
    for _ in range(rounds):
        for fn, ts in ((fn_a, ta), (fn_b, tb)):
            fn()
            torch.cuda.synchronize()
            ts.append(round_us(fn))
    return statistics.median(ta), statistics.median(tb)


def triton_matmul():
    """Triton's tutorial matmul (autotuned over a few configs), or None."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    configs = [triton.Config({"BM": 128, "BN": 256, "BK": 64, "G": 8}, num_stages=3, num_warps=8),
               triton.Config({"BM": 128, "BN": 128, "BK": 64, "G": 8}, num_stages=4, num_warps=4),
               triton.Config({"BM": 64, "BN": 256, "BK": 32, "G": 8}, num_stages=4, num_warps=4)]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, G: tl.constexpr):
        pid = tl.program_id(0)
        npm, npn = tl.cdiv(M, BM), tl.cdiv(N, BN)
        group = pid // (G * npn)
        first = group * G
        size = min(npm - first, G)
        pm = first + (pid % (G * npn)) % size
        pn = (pid % (G * npn)) // size
        rm = (pm * BM + tl.arange(0, BM)) % M
        rn = (pn * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * sam + rk[None, :] * sak
        pb = b + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, tl.cdiv(K, BK)):
            x = tl.load(pa, mask=rk[None, :] < K - k0 * BK, other=0.0)
            y = tl.load(pb, mask=rk[:, None] < K - k0 * BK, other=0.0)
            acc = tl.dot(x, y, acc)
            pa += BK * sak
            pb += BK * sbk
        cm = pm * BM + tl.arange(0, BM)
        cn = pn * BN + tl.arange(0, BN)
        tl.store(c + cm[:, None] * scm + cn[None, :] * scn, acc, mask=(cm[:, None] < M) & (cn[None, :] < N))

    def run(x, y, out):
        M, K = x.shape
        N = y.shape[1]
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)  # noqa: E731
        kernel[grid](x, y, out, M, N, K, x.stride(0), x.stride(1), y.stride(0), y.stride(1), out.stride(0),
                     out.stride(1))

    return run


def weft_gemm(m, n, k, wdt, epi, tile):
    """The compiled kernel of the example's schedule `tile` (TILES or WGMMA_TILES)."""
    if "groups" in tile:
        opts = {key: v for key, v in tile.items() if key != "out16"}
        f, _, _ = example.gemm_wgmma(m, n, k, wdt, epilogue=epi, out=wdt if tile.get("out16") else weft.f32, **opts)
    else:
        f, _, _ = example.gemm(m, n, k, wdt, epilogue=epi, **tile)
    return f.compile()


def error(c, want):
    return ((c.float() - want).abs().max() / want.abs().max()).item()


def main():
    torch.manual_seed(23)
    tri = triton_matmul()
    failed = False
    only = sys.argv[1] if len(sys.argv) > 1 else ""  # bench/gemm.py [part of a problem's name]
    for name, m, n, k, dt, epi in PROBLEMS:
        if only not in name:
            continue
        a = torch.randn(m, k, dtype=dt, device="cuda")
        b = torch.randn(k, n, dtype=dt, device="cuda")
        bias = torch.randn(n, dtype=torch.float32, device="cuda") if epi else None
        c32 = torch.empty(m, n, dtype=torch.float32, device="cuda")
        c16 = torch.empty(m, n, dtype=dt, device="cuda")
        want = a.float() @ b.float()
        if epi:
            want = torch.relu(want + bias)
            torch_fn = lambda: torch.relu(torch.addmm(bias.to(dt), a, b))  # noqa: E731
        else:
            torch_fn = lambda: torch.matmul(a, b)  # noqa: E731
        torch_us = time_us(torch_fn)
        flops = 2.0 * m * n * k
        best = None
        wdt = weft.bf16 if dt == torch.bfloat16 else weft.f16
        for tile in TILES + WGMMA_TILES:
            wg = "groups" in tile
            out16 = tile.get("out16", False)
            c = c16 if out16 else c32
            kern = weft_gemm(m, n, k, wdt, epi, tile)
            args = (a, b, bias) if epi else (a, b)
            c.zero_()
            kern.run(*args, outputs=c)
            torch.cuda.synchronize()
            e = error(c, want)
            if not e < 1e-2:
                print("FAIL: %s, tile %s: error %.2e" % (name, tile, e))
                failed = True
                continue
            us = time_us(lambda: kern.run(*args, outputs=c))
            e = error(c, want)
            if not e < 1e-2:
                print("FAIL: %s after timing: error %.2e" % (name, e))
                failed = True
                continue
            if wg:
                how = "wgmma, block %d x %d (%d warp groups), K step %d, TMA %d stages, C in %s%s" % (
                    64 * tile["groups"], tile["bn"], tile["groups"], 16 * tile["kt"], tile["stages"],
                    str(dt).split(".")[-1] if out16 else "f32",
                    ", blocks in groups of %d columns" % tile["raster"] if tile.get("raster") else "")
            else:
                warps, frags, kt = tile["warps"], tile["frags"], tile["kt"]
                bm, bn = 16 * warps[0] * frags[0], 8 * warps[1] * frags[1]
                how = "mma.sync, block %d x %d, warps %s, K step %d, %s" % (
                    bm, bn, warps, 16 * kt, "TMA %d stages" % tile["stages"] if tile["stages"] else "all threads fetch")
            print("%s: %s: %.1f us, %.1f TFLOP/s, %.2f of cuBLAS (error %.1e)"
                  % (name, how, us, flops / us / 1e6, torch_us / us, e))
            if best is None or us < best[0]:
                best = (us, how, tile)
        if best is None:
            continue
        # the best schedule and cuBLAS again, in alternating rounds (the ratio reported)
        kern = weft_gemm(m, n, k, wdt, epi, best[2])
        c = c16 if best[2].get("out16", False) else c32
        args = (a, b, bias) if epi else (a, b)
        us, torch_us = time_pair_us(lambda: kern.run(*args, outputs=c), torch_fn)
        best = (us, best[1], best[2])
        line = "RESULT gemm %s (%s): weft %.1f us %.1f TFLOP/s; cuBLAS %.1f us %.1f TFLOP/s; ratio %.2f" % (
            name, best[1], best[0], flops / best[0] / 1e6, torch_us, flops / torch_us / 1e6, torch_us / best[0])
        if tri is not None and not epi:
            tri_out = torch.empty(m, n, dtype=dt, device="cuda")
            tri(a, b, tri_out)
            torch.cuda.synchronize()
            tri_us = time_us(lambda: tri(a, b, tri_out))
            line += "; triton %.1f us %.1f TFLOP/s" % (tri_us, flops / tri_us / 1e6)
        print(line)
        if epi:  # the plain GEMM with the same schedule, timed on the same operands
            plain = weft_gemm(m, n, k, wdt, False, best[2])
            fused_us, plain_us = time_pair_us(lambda: kern.run(a, b, bias, outputs=c),
                                              lambda: plain.run(a, b, outputs=c))
            print("RESULT gemm epilogue %s: the fused bias + relu costs %+.1f%% over the plain GEMM of the "
                  "same schedule (%.1f us vs %.1f us, alternating rounds)"
                  % (name, 100.0 * (fused_us / plain_us - 1), fused_us, plain_us))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
