/*
 * num.h - bit-exact element numerics: typed buffer access, float format
 * decode/encode, integer saturation, and the multiply-accumulate rule.
 *
 * Every element type of util/dtype.h is handled here and nowhere else, so
 * the matrix engine, the vector unit, the .npy loader and the tests agree
 * on every bit.  docs/numerics.md is the long form of this header.
 *
 * Storage (same as dtype.h): little-endian; int4 packs two elements per
 * byte, element 2k in the low nibble of byte k, element 2k+1 in the high
 * nibble.  An element is moved around as its raw bit pattern in the low
 * dtype_bits(t) bits of a uint32_t ("bits").
 *
 * Values: num_decode() turns bits into a double.  Every value of every
 * type (int32 and fp32 included) is exactly representable in a double, so
 * decode is exact.  num_encode() turns a double into bits with exactly one
 * rounding, round-to-nearest-even (RNE):
 *   - float types: IEEE-754 rounding with subnormals (no flush to zero).
 *     Overflow and infinities follow enum num_ovf.  A NaN stays a NaN: the
 *     result is always quiet, keeps the sign, and keeps the leading payload
 *     bits that fit (E4M3 has a single NaN per sign, so its payload is lost).
 *   - integer types: RNE to an integer, then saturate to the type's range;
 *     NaN converts to 0 (hardware has no integer NaN, 0 is what the common
 *     NPU conversion units produce and it cannot masquerade as a saturated
 *     value); +-inf saturate like any out-of-range value.
 * Rounding is done with integer arithmetic on the double's bits, so it does
 * not depend on the host's floating-point rounding mode.
 *
 * FP8 follows the OCP 8-bit Floating Point Specification (OFP8) rev 1.0
 * (2023-06-20): E4M3 bias 7, no infinities, max +-448, NaN = S.1111.111;
 * E5M2 bias 15, IEEE-like with +-inf, max +-57344, NaN = S.11111.{01,10,11}.
 */
#ifndef NPU_NUM_H
#define NPU_NUM_H

#include <stdint.h>

#include "dtype.h"

/*
 * What a float encode does with a value beyond the largest finite one
 * (after rounding) and with an infinite input.  OFP8 section 5.2:
 *   NUM_OVF_IEEE   (non-saturating) overflow and +-inf give +-inf, or NaN
 *                  for E4M3 which has no infinity.
 *   NUM_OVF_SAT    (saturating) overflow and +-inf give +-max finite.
 * NaN inputs give NaN in both modes.  Integer encodes always saturate.
 */
enum num_ovf {
	NUM_OVF_IEEE = 0, /* overflow -> inf (E4M3: NaN) */
	NUM_OVF_SAT = 1,  /* overflow -> max finite */
};

/* ---- raw element access ------------------------------------------------ */

/* Bits of element i of a buffer of type t (low dtype_bits(t) bits). */
uint32_t num_get_bits(enum npu_dtype t, const uint8_t *buf, uint64_t i);
/* Store bits (only the low dtype_bits(t) bits are used) into element i. */
void num_set_bits(enum npu_dtype t, uint8_t *buf, uint64_t i, uint32_t bits);

/* ---- values ------------------------------------------------------------ */

/* Exact value of an element's bits (integers sign-extended). */
double num_decode(enum npu_dtype t, uint32_t bits);
/* Bits of the nearest value of type t to v (RNE; see header comment). */
uint32_t num_encode(enum npu_dtype t, double v, enum num_ovf ovf);
/* Largest finite value of type t (448 for E4M3, 2^31-1 for int32, ...). */
double num_max(enum npu_dtype t);
/* Smallest (most negative) finite value of type t. */
double num_min(enum npu_dtype t);
/* Nonzero if bits of float type t encode a NaN (always 0 for ints). */
int num_is_nan(enum npu_dtype t, uint32_t bits);

/* Element i of a buffer as a double / stored from a double. */
double num_load(enum npu_dtype t, const uint8_t *buf, uint64_t i);
void num_store(enum npu_dtype t, uint8_t *buf, uint64_t i, double v,
	       enum num_ovf ovf);

/* ---- fp32 shortcuts (the vector datapath's internal type) --------------- */

float num_f32_from_bits(uint32_t bits);
uint32_t num_f32_bits(float f);
/*
 * Value of bits as fp32: exact for every float type and for int4/8/16;
 * int32 values beyond 2^24 are rounded RNE (the int->fp32 converter).
 */
float num_decode_f32(enum npu_dtype t, uint32_t bits);

/* ---- integers ---------------------------------------------------------- */

/* Clamp v to the range of integer type t (int4 -8..7 ... int32). */
int64_t num_sat_int(enum npu_dtype t, int64_t v);
/* Sign-extend the low 'bits' bits of x. */
int64_t num_sext(uint64_t x, int bits);
/* Round a double to the nearest integer, ties to even (finite input). */
double num_rne(double v);

/*
 * ---- multiply-accumulate -----------------------------------------------
 *
 * The accumulation rule every GEMM in the simulator follows (docs/numerics.md
 * "Accumulation"): products are formed exactly and added to the running sum
 * one at a time in increasing K order, as the partial sum moves one PE hop
 * per product through the systolic array:
 *
 *   int:  acc = wrap32(acc + a*b)   (two's complement, modulo 2^32)
 *   fp:   acc = round_fp32(acc + round_fp32(a*b))
 *
 * For fp8, fp16 and bf16 inputs the fp32 product a*b is exact (significands
 * of 4, 11 and 8 bits give products of at most 22 bits <= 24), so each step
 * rounds exactly once; the only exception is bf16 products outside fp32's
 * normal range (|a*b| >= 2^128 overflows to inf, |a*b| < 2^-126 is rounded to
 * an fp32 subnormal).
 */
int32_t num_mac_i32(int32_t acc, int32_t a, int32_t b);
float num_mac_f32(float acc, float a, float b);

#endif
