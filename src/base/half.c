/*
 * half.c -- binary16 / bfloat16 <-> float conversions (see half.h).
 *
 * float_to_half handles normals, subnormals, overflow to infinity and NaN
 * (kept quiet) with round-to-nearest-even on the dropped mantissa bits.
 */
#include "base/half.h"

#include <string.h>

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f)
        return float_of(sign | 0x7f800000 | (man << 13));
    if (exp == 0) {
        /* Subnormal: value = man * 2^-24. */
        float v = (float)man * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return float_of(sign | ((exp + 112) << 23) | (man << 13));
}

static uint32_t round_shift(uint32_t x, int shift) {
    uint32_t keep = x >> shift, rest = x & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (keep & 1)))
        keep++;
    return keep;
}

uint16_t float_to_half(float f) {
    uint32_t u = bits_of(f), sign = (u >> 16) & 0x8000;
    int32_t exp = (int32_t)((u >> 23) & 0xff);
    uint32_t man = u & 0x7fffff;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
    int32_t e = exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        /* Subnormal: shift the full mantissa (with its hidden bit) into place. */
        return (uint16_t)(sign | round_shift(man | 0x800000, 14 - e));
    }
    /* A carry out of the mantissa correctly bumps the exponent (up to infinity). */
    return (uint16_t)(sign | (((uint32_t)e << 10) + round_shift(man, 13)));
}

float bf16_to_float(uint16_t h) {
    return float_of((uint32_t)h << 16);
}

uint16_t float_to_bf16(float f) {
    uint32_t u = bits_of(f);
    if ((u & 0x7f800000) == 0x7f800000 && (u & 0x7fffff))
        return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)(round_shift(u, 16));
}
