/*
 * shim.h -- just enough of CUDA for the host C++ compiler to compile the
 * kernels weft generates: the host-CUDA test oracle (tests/hostcuda/).
 *
 * The CPU executor never reads the generated CUDA text, so a wrong operator
 * in codegen (`-` printed for `+`, an inverted relu, a dropped cast) passes
 * every executor test; without a GPU only compiling that text and running it
 * can see it. This header makes the text ordinary C++17: the CUDA qualifiers
 * vanish, __align__ becomes alignas, threadIdx / blockIdx / blockDim /
 * gridDim are globals the driver sets before calling the kernel function
 * once per (block, thread), serially, and the device math library is the
 * host's <cmath>. The prelude's f16 / bf16 conversions take their `#else`
 * branch (no inline PTX) and call the functions below, which do in software
 * what PTX cvt.rn.f16.f32 / cvt.rn.bf16.f32 / cvt.f32.f16 do: round to
 * nearest even, subnormals kept, overflow to infinity, NaN to the canonical
 * quiet NaN 0x7fff. Written independently of the library's base/half.c so
 * that the two can check each other.
 *
 * Not modelled: warps, shared memory, barriers, memory ordering, and the
 * device math library's last-ulp differences from glibc (compare the
 * transcendental ops with a tolerance). The oracle refuses kernels that need
 * the first ones (tests/hostcuda/hostcuda.c).
 */
#ifndef WF_TESTS_HOSTCUDA_SHIM_H
#define WF_TESTS_HOSTCUDA_SHIM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define __global__
#define __launch_bounds__(...)
#define __device__
#define __host__
#define __forceinline__ inline
#define __align__(n) alignas(n)
#define __restrict__

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
};
/* Set by the driver before each call of a kernel function. */
inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;

/* CUDA's math functions that glibc lacks. One rounding more than the device's
   rsqrt: within the tolerance the oracle uses for transcendental ops. */
inline float rsqrtf(float x) {
    return 1.0f / sqrtf(x);
}
inline double rsqrt(double x) {
    return 1.0 / sqrt(x);
}

inline float __uint_as_float(unsigned u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
inline double __longlong_as_double(long long u) {
    double d;
    memcpy(&d, &u, 8);
    return d;
}
inline unsigned __float_as_uint(float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
}

/* Keep the top (32 - drop) bits of a nonnegative magnitude m, rounding the
   dropped bits to nearest, ties to even. */
inline uint32_t wf_host_rne(uint32_t m, int drop) {
    if (drop <= 0)
        return m;
    if (drop > 31)
        return 0;
    uint32_t q = m >> drop, r = m - (q << drop), half = 1u << (drop - 1);
    return q + (r > half || (r == half && (q & 1u)));
}

/* cvt.rn.f16.f32 */
inline unsigned short wf_host_f2h(float f) {
    uint32_t u = __float_as_uint(f), sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return 0x7fff;
    if (mag == 0x7f800000u)
        return (unsigned short)(sign | 0x7c00u);
    int e = (int)(mag >> 23) - 127; /* unbiased; denormal floats are far below f16's range */
    uint32_t sig = (mag & 0x7fffffu) | (mag >= 0x00800000u ? 0x800000u : 0);
    if (e >= 16)
        return (unsigned short)(sign | 0x7c00u);
    uint32_t h;
    if (e >= -14) /* normal: 10 of the 23 fraction bits stay; a carry bumps the exponent */
        h = ((uint32_t)(e + 15) << 10) + wf_host_rne(sig & 0x7fffffu, 13);
    else /* subnormal: units of 2^-24; sig is in units of 2^(e-23) */
        h = wf_host_rne(sig, -24 - (e - 23));
    return (unsigned short)(sign | (h > 0x7c00u ? 0x7c00u : h));
}

/* cvt.f32.f16 (exact) */
inline float wf_host_h2f(unsigned short h) {
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24)
              : e == 31 ? (m ? __uint_as_float(0x7fffffffu) : INFINITY)
                        : ldexpf((float)(1024 + m), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* cvt.rn.bf16.f32 */
inline unsigned short wf_host_f2bf(float f) {
    uint32_t u = __float_as_uint(f), sign = u & 0x80000000u, mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return 0x7fff;
    return (unsigned short)((sign | wf_host_rne(mag, 16) << 16) >> 16);
}

#endif
