/*
 * half.h -- IEEE binary16 and bfloat16 conversions on the CPU, with the
 * rounding the GPU's cvt.rn instructions use (round to nearest, ties to even),
 * so that the CPU reference executor produces the same bits as the device.
 */
#ifndef WF_BASE_HALF_H
#define WF_BASE_HALF_H

#include <stdint.h>

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);

#endif
