/*
 * dtype.h - numeric element types, named the same everywhere (ISA operands,
 * config keys, .npy files, docs).
 */
#ifndef NPU_DTYPE_H
#define NPU_DTYPE_H

/* DT(id, "name", bits, is_float) */
#define NPU_DTYPES(DT)                 \
	DT(INT4,    "int4",    4,  0)  \
	DT(INT8,    "int8",    8,  0)  \
	DT(INT16,   "int16",   16, 0)  \
	DT(INT32,   "int32",   32, 0)  \
	DT(FP8E4M3, "fp8e4m3", 8,  1)  \
	DT(FP8E5M2, "fp8e5m2", 8,  1)  \
	DT(FP16,    "fp16",    16, 1)  \
	DT(BF16,    "bf16",    16, 1)  \
	DT(FP32,    "fp32",    32, 1)

enum npu_dtype {
#define DT_ENUM(id, name, bits, fl) DT_##id,
	NPU_DTYPES(DT_ENUM)
#undef DT_ENUM
	DT_N
};

/* Storage: int4 packs two per byte (low nibble first); others are whole
 * little-endian bytes. */
int dtype_bits(enum npu_dtype t);
int dtype_is_float(enum npu_dtype t);
const char *dtype_name(enum npu_dtype t);
/* Look a name up; returns -1 if unknown. */
int dtype_from_name(const char *name);
/* Bytes occupied by n elements (int4 rounds up). */
unsigned long long dtype_bytes(enum npu_dtype t, unsigned long long n);

#endif
