/*
 * arch_asm.c - the resolved config as assembler symbols (arch.h,
 * arch_asm_defines), so a kernel assembled for a chip reads its array
 * size, memory sizes and DMA engines instead of repeating them in -D.
 *
 * Names come from the key table (params.def), never from a list kept
 * here: core.matrix.rows -> CFG_CORE_MATRIX_ROWS.  Integers and booleans
 * (0/1) are their values; an enum key is the assembler's name of the
 * value when it is a data type (core.matrix.in_type -> int8, which the
 * assembler evaluates to the dtype id), otherwise the value's index in the
 * key's list (core.matrix.dataflow: ws 0, os 1, is 2, which are also the
 * assembler's ws/os/is).  Floats, strings and lists have no symbol, except
 * the clock, given as CFG_CHIP_CLOCK_MHZ (rounded).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/dtype.h"
#include "arch_int.h"

/* "CFG_" + key with '.' -> '_' and letters upper-cased. */
static void sym_name(char *buf, size_t n, const char *key)
{
	size_t k = (size_t)snprintf(buf, n, "CFG_");

	for (; *key && k + 1 < n; key++)
		buf[k++] = *key == '.' ? '_' : (char)toupper((unsigned char)*key);
	buf[k] = '\0';
}

/* One "NAME=VALUE" into d (grown as needed); 0 or NPU_ENOMEM. */
static int push(struct arch_defs *d, const char *name, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 2;
	char **v, *s;

	if (!(s = malloc(len)))
		return NPU_ENOMEM;
	snprintf(s, len, "%s=%s", name, value);
	if (!(v = realloc(d->v, (d->n + 1) * sizeof(*v)))) {
		free(s);
		return NPU_ENOMEM;
	}
	d->v = v;
	d->v[d->n++] = s;
	return 0;
}

int arch_asm_defines(const struct arch *a, struct arch_defs *out)
{
	char name[ARCH_PATH_MAX + 8], value[64];
	int i, rc = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < P_N && !rc; i++) {
		const struct param_info *p = &param_info[i];

		sym_name(name, sizeof(name), p->key);
		switch (p->type) {
		case PT_INT:
		case PT_BOOL:
			snprintf(value, sizeof(value), "%lld", (long long)a->v[i].i);
			break;
		case PT_ENUM: {
			const char *vn = arch_enum_at((enum param_id)i, (int)a->v[i].i);

			if (dtype_from_name(vn) >= 0)
				snprintf(value, sizeof(value), "%s", vn);
			else
				snprintf(value, sizeof(value), "%lld", (long long)a->v[i].i);
			break;
		}
		case PT_FLT:
		case PT_STR:
		case PT_LIST:
			continue;
		}
		rc = push(out, name, value);
	}
	if (!rc) {
		snprintf(value, sizeof(value), "%lld",
			 (long long)llround(ARCH_F(a, CHIP_CLOCK_GHZ) * 1000.0));
		rc = push(out, "CFG_CHIP_CLOCK_MHZ", value);
	}
	if (rc)
		arch_defs_free(out);
	return rc;
}

void arch_defs_free(struct arch_defs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
	memset(d, 0, sizeof(*d));
}
