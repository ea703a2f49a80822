/*
 * fpref.h - float helpers of the reference tools (lnref.c, attnref.c),
 * written here independently of the simulator's dtype code.
 */
#ifndef NPU_FPREF_H
#define NPU_FPREF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../util/npy.h"

/* v rounded to p significant bits, ties to even (the generators' values
 * are normal in every type used). */
static inline float round_bits(float v, int p)
{
	int e;
	double m = frexp(v, &e);

	return (float)ldexp(nearbyint(ldexp(m, p)), e - p);
}

/* Element i of a float tensor (fp32, bf16 or fp16). */
static inline double elem(const struct npy *t, uint64_t i)
{
	float f;
	uint32_t u;
	uint16_t h;

	if (t->dtype == DT_FP32) {
		memcpy(&f, t->data + 4 * i, 4);
		return f;
	}
	memcpy(&h, t->data + 2 * i, 2);
	if (t->dtype == DT_BF16) {
		u = (uint32_t)h << 16;	/* bf16: the upper half of fp32 */
		memcpy(&f, &u, 4);
		return f;
	}
	{
		/* fp16: 1 sign, 5 exponent (bias 15), 10 mantissa */
		int ex = (h >> 10) & 31, mant = h & 1023;
		double v = ex == 0 ? ldexp(mant, -24) :
			   ex == 31 ? (mant ? NAN : INFINITY) : ldexp(1024 + mant, ex - 25);

		return (h & 0x8000) ? -v : v;
	}
}

/* Significant bits of a float type (its rounding: half an ulp is 2^-P of
 * the value at most). */
static inline int sig_bits(enum npu_dtype t)
{
	return t == DT_BF16 ? 8 : t == DT_FP16 ? 11 : 24;
}

#endif
