/*
 * prelude.c -- the device-side helpers every generated kernel starts with.
 *
 * Kept small and free of includes so that NVRTC compiles it without a CUDA
 * installation's headers: an index type, the Tensor argument struct (data
 * pointer, logical sizes, allocation strides in elements), half and bfloat16
 * storage types converting through PTX cvt instructions, vector copies and
 * the math wrappers the op table uses. Arithmetic on 16-bit types happens in
 * float, like nvFuser; integer arithmetic wraps, integer division by zero
 * and float-to-integer conversion have defined results (below) that the CPU
 * reference executor models bit for bit (runtime/interp_ops.c).
 *
 * The inline PTX sits under `#ifdef __CUDA_ARCH__` (NVRTC always defines
 * it, so the device sees exactly these instructions); the `#else` branch
 * calls wf_host_f2h / wf_host_h2f / wf_host_f2bf, which only the host-CUDA
 * test oracle defines (tests/hostcuda/shim.h): it compiles this source with
 * the host C++ compiler to check the generated operators without a GPU.
 */
#include "codegen/codegen.h"

/* In pieces: C11 compilers need only support 4095-character literals. */
/* Markers in prelude[] where the f32 exp and log go: accurate (expf, logf) or,
   with wf_compile_options.fast_math, the intrinsics (__expf, __logf). */
static const char exp_f32[] = "exp", log_f32[] = "log";

static const char *const prelude[] = {
    "typedef long long wf_index;\n"
    "template <typename T, int N> struct Tensor {\n"
    "  T *data;\n"
    "  wf_index size[N];\n"
    "  wf_index stride[N];\n"
    "  __device__ T &operator[](wf_index i) { return data[i]; }\n"
    "};\n"
    /* A 0-D tensor (a scalar) is its data pointer alone: no zero-length arrays. */
    "template <typename T> struct Tensor<T, 0> {\n"
    "  T *data;\n"
    "  __device__ T &operator[](wf_index i) { return data[i]; }\n"
    "};\n"
    "struct __align__(2) wf_half {\n"
    "  unsigned short bits;\n"
    "  wf_half() = default;\n"
    "#ifdef __CUDA_ARCH__\n"
    "  __device__ wf_half(float f) { asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(bits) : \"f\"(f)); }\n"
    "  __device__ operator float() const {\n"
    "    float f;\n"
    "    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(bits));\n"
    "    return f;\n"
    "  }\n"
    "#else\n"
    "  wf_half(float f) : bits(wf_host_f2h(f)) {}\n"
    "  operator float() const { return wf_host_h2f(bits); }\n"
    "#endif\n"
    "};\n"
    "struct __align__(2) wf_bfloat {\n"
    "  unsigned short bits;\n"
    "  wf_bfloat() = default;\n"
    "#ifdef __CUDA_ARCH__\n"
    "  __device__ wf_bfloat(float f) { asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(bits) : \"f\"(f)); "
    "}\n"
    "#else\n"
    "  wf_bfloat(float f) : bits(wf_host_f2bf(f)) {}\n"
    "#endif\n"
    "  __device__ operator float() const { return __uint_as_float(((unsigned)bits) << 16); }\n"
    "};\n"
    /* two 16-bit elements as one 32-bit register, the first in the low half
       (tensor-core operands: codegen/mma.c) */
    "template <typename T> __device__ inline unsigned wf_pack2(T lo, T hi) {\n"
    "  return (unsigned)lo.bits | ((unsigned)hi.bits << 16);\n"
    "}\n"
    /* a wgmma shared-memory matrix descriptor (PTX ISA "Matrix Descriptor"):
       the address and the byte offsets in 16-byte units, the 128-byte swizzle */
    "#ifdef __CUDA_ARCH__\n"
    "__device__ inline unsigned long long wf_wgmma_desc(const void *p, unsigned lbo, "
    "unsigned sbo) {\n"
    "  unsigned a = (unsigned)__cvta_generic_to_shared(p);\n"
    "  return (unsigned long long)((a & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) "
    "|\n"
    "         ((unsigned long long)(sbo >> 4) << 32) | (1ull << 62);\n"
    "}\n"
    "#endif\n"
    "template <typename T, int N> struct __align__(sizeof(T) * N) wf_vec { T v[N]; };\n"
    "template <typename T, int N> __device__ inline void wf_vec_copy(T *dst, const T *src) {\n"
    "  *reinterpret_cast<wf_vec<T, N> *>(dst) = *reinterpret_cast<const wf_vec<T, N> *>(src);\n"
    "}\n"
    /* ceil(a / b) without the overflow of (a + b - 1) / b near INT64_MAX */
    "__device__ inline wf_index wf_ceildiv(wf_index a, wf_index b) {\n"
    "    return a / b + (a % b != 0 && (a > 0) == (b > 0));\n"
    "}\n",
    /* NaN propagates, as in torch.maximum / minimum (x != x only for NaN) */
    "template <typename T> __device__ inline T wf_max(T a, T b) {\n"
    "  return a != a ? a : b != b ? b : a > b ? a : b;\n"
    "}\n"
    "template <typename T> __device__ inline T wf_min(T a, T b) {\n"
    "  return a != a ? a : b != b ? b : a < b ? a : b;\n"
    "}\n"
    "template <typename T> __device__ inline T wf_abs(T a) { return a < T(0) ? -a : a; }\n"
    "template <typename T> __device__ inline T wf_relu(T a) { return a > T(0) ? a : T(0); }\n",
    exp_f32,
    "__device__ inline double wf_exp(double x) { return exp(x); }\n",
    log_f32,
    ""
    "__device__ inline double wf_log(double x) { return log(x); }\n"
    "__device__ inline float wf_sqrt(float x) { return sqrtf(x); }\n"
    "__device__ inline double wf_sqrt(double x) { return sqrt(x); }\n"
    "__device__ inline float wf_rsqrt(float x) { return rsqrtf(x); }\n"
    "__device__ inline double wf_rsqrt(double x) { return rsqrt(x); }\n"
    "__device__ inline float wf_sin(float x) { return sinf(x); }\n"
    "__device__ inline double wf_sin(double x) { return sin(x); }\n"
    "__device__ inline float wf_cos(float x) { return cosf(x); }\n"
    "__device__ inline double wf_cos(double x) { return cos(x); }\n"
    "__device__ inline float wf_tanh(float x) { return tanhf(x); }\n"
    "__device__ inline double wf_tanh(double x) { return tanh(x); }\n"
    "__device__ inline float wf_pow(float x, float y) { return powf(x, y); }\n"
    "__device__ inline double wf_pow(double x, double y) { return pow(x, y); }\n"
    "template <typename T> __device__ inline T wf_sigmoid(T x) { return T(1) / (T(1) + "
    "wf_exp(-x)); }\n"
    "template <typename T> __device__ inline T wf_reciprocal(T x) { return T(1) / x; }\n",
    /* Integer arithmetic wraps (two's complement, in unsigned: C++ leaves signed
       overflow undefined); x / 0 is -1, all bits set, as the GPU's 32-bit
       division gives (its 64-bit routine's answer depends on the operands);
       MIN / -1 wraps to MIN. runtime/interp_ops.c models exactly these. */
    "typedef unsigned long long wf_u64;\n"
    "template <typename T> __device__ inline T wf_iadd(T a, T b) { return T(wf_u64(a) + "
    "wf_u64(b)); }\n"
    "template <typename T> __device__ inline T wf_isub(T a, T b) { return T(wf_u64(a) - "
    "wf_u64(b)); }\n"
    "template <typename T> __device__ inline T wf_imul(T a, T b) { return T(wf_u64(a) * "
    "wf_u64(b)); }\n"
    "template <typename T> __device__ inline T wf_ineg(T a) { return T(0ull - wf_u64(a)); }\n"
    "template <typename T> __device__ inline T wf_iabs(T a) { return a < T(0) ? wf_ineg(a) : a; }\n"
    "template <typename T> __device__ inline T wf_idiv(T a, T b) {\n"
    "  return b == T(0) ? T(-1) : (T(-1) < T(0) && b == T(-1)) ? wf_ineg(a) : T(a / b);\n"
    "}\n"
    /* a^b by squaring, wrapping; b < 0 is 1 / a^-b in integer division. */
    "template <typename T> __device__ inline T wf_ipow(T a, T b) {\n"
    "  wf_u64 r = 1, x = wf_u64(a), e = wf_u64(b);\n"
    "  while (b >= T(0) && e) {\n"
    "    r *= (e & 1) ? x : 1ull;\n"
    "    e >>= 1;\n"
    "    x *= x;\n"
    "  }\n"
    "  return b >= T(0) ? T(r) : a == T(1) ? T(1) : a == T(0) ? T(-1) : a == T(-1) ? "
    "((wf_u64(b) & 1) ? T(-1) : T(1)) : T(0);\n"
    "}\n"
    /* Float to integer: truncate toward zero, saturating at the type's range,
       NaN -> 0 (PTX cvt.rzi.sat at every width). To bool: x != 0. */
    "template <typename T> struct wf_ilim;\n"
    "template <> struct wf_ilim<char> { static constexpr long long lo = -128, hi = 127; };\n"
    "template <> struct wf_ilim<short> { static constexpr long long lo = -32768, hi = 32767; "
    "};\n"
    "template <> struct wf_ilim<int> { static constexpr long long lo = -2147483647ll - 1, hi = "
    "2147483647; };\n"
    "template <> struct wf_ilim<long long> { static constexpr long long lo = "
    "-9223372036854775807ll - 1, hi = 9223372036854775807ll; };\n"
    "template <> struct wf_ilim<unsigned char> { static constexpr long long lo = 0, hi = 255; "
    "};\n"
    "template <typename T, typename F> __device__ inline T wf_f2i(F x) {\n"
    "  return x != x ? T(0) : x <= F(wf_ilim<T>::lo) ? T(wf_ilim<T>::lo) : x >= "
    "F(wf_ilim<T>::hi) ? T(wf_ilim<T>::hi) : T(x);\n"
    "}\n",
};

void cg_emit_prelude(sbuf *b, bool fast_math) {
    for (size_t i = 0; i < sizeof prelude / sizeof *prelude; i++)
        if (prelude[i] == exp_f32 || prelude[i] == log_f32)
            sbuf_printf(b, "__device__ inline float wf_%s(float x) { return %s%sf(x); }\n",
                        prelude[i], fast_math ? "__" : "", prelude[i]);
        else
            sbuf_puts(b, prelude[i]);
}
