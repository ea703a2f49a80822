/*
 * test_hazard.c - the schedule hazard checker (sim/core/hazard.c), driven
 * through whole programs with chip_opts.check_hazards.
 *
 * Each race kind gets a small program that has exactly one unordered pair
 * of tile instructions touching the same bytes; the test checks that the
 * pair is reported exactly once, with the right kind, memory, byte range
 * (the bytes both touch) and both instructions' pcs, found here from the
 * assembled code.  The same programs with the ordering a kernel engineer
 * would write (sig/wait, fence, barrier, rsig) must report nothing, and so
 * must programs whose instructions touch disjoint bytes or only read.
 * Which of two racing instructions starts first follows from dispatch
 * order (each program dispatches the "earlier" one first), so the kind is
 * predictable: the checker names the later-starting access's kind.
 * Remote scratchpad (rspm) races are not modelled yet and not tested.
 */
#define _GNU_SOURCE 1 /* open_memstream */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../arch/arch.h"
#include "../../asm/asm.h"
#include "../../asm/obj.h"
#include "../../isa/isa.h"
#include "../../sim/chip.h"
#include "testutil.h"

/* ---- harness --------------------------------------------------------------*/

struct sim {
	struct arch a;         /* defaults + overrides */
	struct diag d;         /* prints into log */
	FILE *fp;              /* memstream behind d */
	char *log;             /* every diagnostic so far */
	size_t log_len;        /* its length */
	struct obj_prog *p;    /* the program */
	struct prog_image *img; /* its image (what the chip runs) */
	struct chip *c;        /* the chip */
	struct chip_result r;  /* outcome */
};

/* The image of the assembled program (made once, freed with the sim). */
static struct prog_image *sim_img(struct sim *s)
{
	if (!s->img)
		ck_assert_int_eq(obj_image(s->p, "t.s", &s->img), 0);
	return s->img;
}

/* Assemble, build with the hazard checker on, run; the run must succeed. */
static void hz_run(struct sim *s, const char *src, const char *const *ov, int n_ov)
{
	struct chip_opts o;
	int rc;

	memset(s, 0, sizeof(*s));
	s->fp = open_memstream(&s->log, &s->log_len);
	ck_assert_ptr_nonnull(s->fp);
	diag_init(&s->d, s->fp);
	ck_assert_msg(arch_load(&s->a, NULL, ov, n_ov, &s->d) == 0, "config: %s",
		      s->d.last);
	ck_assert_msg(asm_assemble_string("t.s", src, strlen(src), NULL, &s->d,
					  &s->p) == 0, "asm: %s", s->d.last);
	memset(&o, 0, sizeof(o));
	o.max_cycles = CYCLE_MAX;
	o.check_hazards = 1;
	s->c = chip_new(&s->a, &o, &s->d);
	ck_assert_ptr_nonnull(s->c);
	ck_assert_int_eq(chip_load_program(s->c, sim_img(s), &s->d), 0);
	rc = chip_run(s->c, &s->r);
	fflush(s->fp);
	ck_assert_msg(rc == 0, "run failed: %s", s->log);
}

static void hz_free(struct sim *s)
{
	chip_free(s->c);
	prog_free(s->img);
	obj_free(s->p);
	arch_free(&s->a);
	fclose(s->fp);
	free(s->log);
}

/* Occurrences of needle in hay. */
static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* Byte address of the nth (from 0) instruction with major opcode op. */
static uint64_t pc_of(const struct obj_prog *p, unsigned op, int nth)
{
	size_t i;

	for (i = 0; i < p->n_code; i++)
		if (p->code[i] >> 24 == op && nth-- == 0)
			return 4 * (uint64_t)i;
	ck_abort_msg("no instruction with opcode 0x%02x", op);
	return 0;
}

/* Major opcodes (docs/isa.md). */
enum { OP_DMA = 0x61, OP_MPRE = 0x71, OP_MMUL = 0x72, OP_VADD = 0x81,
       OP_VMOV = 0x99 };

/* Exactly no hazard. */
static void expect_none(const char *src, const char *const *ov, int n_ov)
{
	struct sim s;

	hz_run(&s, src, ov, n_ov);
	ck_assert_msg(s.r.n_hazards == 0 && !strstr(s.log, "hazard"),
		      "unexpected hazard(s): %s", s.log);
	hz_free(&s);
}

/*
 * Exactly one hazard: its text starts with head ("read-after-write on
 * core0.scratchpad [0x0, 0x10)"), names first (unit, mnemonic, access)
 * at pc1 and then second at pc2.
 */
static void expect_one(const char *src, const char *const *ov, int n_ov,
		       const char *head, const char *first, unsigned op1,
		       int nth1, const char *second, unsigned op2, int nth2)
{
	struct sim s;
	char a[160], b[160], h[200];
	const char *pa, *pb, *f1, *f2;
	uint64_t pc1, pc2;
	int l1, l2;

	hz_run(&s, src, ov, n_ov);
	pc1 = pc_of(s.p, op1, nth1);
	pc2 = pc_of(s.p, op2, nth2);
	/* Each side names its source line, as the assembler recorded it. */
	ck_assert_int_eq(prog_src_line(s.img, pc1, &f1, &l1), 0);
	ck_assert_int_eq(prog_src_line(s.img, pc2, &f2, &l2), 0);
	snprintf(h, sizeof(h), "warning: hazard: %s: ", head);
	snprintf(a, sizeof(a), "%s (pc 0x%" PRIx64 " %s:%d, started cycle ", first,
		 pc1, f1, l1);
	snprintf(b, sizeof(b), "), then %s (pc 0x%" PRIx64 " %s:%d, started cycle ",
		 second, pc2, f2, l2);
	ck_assert_msg(s.r.n_hazards == 1, "%d hazards: %s", s.r.n_hazards, s.log);
	ck_assert_msg(count_str(s.log, "hazard:") == 1, "log: %s", s.log);
	ck_assert_msg(strstr(s.log, h) != NULL, "no '%s' in: %s", h, s.log);
	pa = strstr(s.log, a);
	pb = strstr(s.log, b);
	ck_assert_msg(pa && pb && pa < pb, "no '%s' ... '%s' in: %s", a, b, s.log);
	ck_assert_ptr_nonnull(strstr(s.log, "with no semaphore, fence or barrier ordering them"));
	/* The first instruction started no later than the second. */
	ck_assert_uint_le(strtoull(pa + strlen(a), NULL, 10),
			  strtoull(pb + strlen(b), NULL, 10));
	hz_free(&s);
}

/* ---- program pieces ---------------------------------------------------------*/

/* Matrix configuration: WS int8 -> int32, 4 x 4 x 4 tiles (A and B 16
 * bytes, C 64 bytes, all dense). */
#define MTX_SETUP                                                        \
	"\tli t0, ws\n\tmset df, t0\n\tli t0, int8\n\tmset itype, t0\n"  \
	"\tli t0, int32\n\tmset atype, t0\n\tli t0, 4\n\tmset m, t0\n"   \
	"\tmset k, t0\n\tmset n, t0\n"

/* Vector configuration: int8 rows of 16, one row. */
#define VEC_SETUP                                                        \
	"\tli t0, int8\n\tvset type, t0\n\tli t0, 16\n\tvset len, t0\n"  \
	"\tli t0, 1\n\tvset rows, t0\n"

/* dma ENG: N bytes from SRC in SMEM to DST in DMEM. */
#define DMA(eng, smem, src, dmem, dst, n)                                \
	"\tli t0, " #smem "\n\tdset smem, t0\n\tli t0, " #dmem "\n"      \
	"\tdset dmem, t0\n\tli t0, " #src "\n\tdset src, t0\n"           \
	"\tli t0, " #dst "\n\tdset dst, t0\n\tli t0, " #n "\n"           \
	"\tdset n0, t0\n\tdma " #eng "\n"

/* mpre of the B tile at spm 0x40 (nobody writes it). */
#define MPRE_B "\tli t1, 0x40\n\tmpre t1\n"
/* mmul C(acc 0) = A(spm 0) * resident B. */
#define MMUL_A0 "\tli t2, 0\n\tmmul zero, t2, zero\n"
#define END "\tfence all\n\thalt\n"

/* ---- one race per kind -------------------------------------------------------*/

/* DMA fills A while the matrix engine reads it. */
static const char raw_dma_mtx[] =
	MTX_SETUP MPRE_B
	DMA(0, dram, 0, spm, 0, 16)
	MMUL_A0 END;
static const char raw_dma_mtx_sig[] =
	MTX_SETUP MPRE_B
	DMA(0, dram, 0, spm, 0, 16)
	"\tsig dma0, 0\n\twait mtx, 0, 1\n"
	MMUL_A0 END;
static const char raw_dma_mtx_fence[] =
	MTX_SETUP MPRE_B
	DMA(0, dram, 0, spm, 0, 16)
	"\tfence dma0\n"
	MMUL_A0 END;

START_TEST(hazard_raw_dma_then_mtx)
{
	expect_one(raw_dma_mtx, NULL, 0,
		   "read-after-write on core0.scratchpad [0x0, 0x10)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core0.mtx mmul reads", OP_MMUL, 0);
	expect_none(raw_dma_mtx_sig, NULL, 0);
	expect_none(raw_dma_mtx_fence, NULL, 0);
}
END_TEST

/* The matrix engine reads A; DMA overwrites it with the next tile. */
static const char war_mtx_dma[] =
	MTX_SETUP MPRE_B MMUL_A0
	DMA(0, dram, 0x100, spm, 0, 16)
	END;
static const char war_mtx_dma_sig[] =
	MTX_SETUP MPRE_B MMUL_A0
	"\tsig mtx, 1\n\twait dma0, 1, 1\n"
	DMA(0, dram, 0x100, spm, 0, 16)
	END;

START_TEST(hazard_war_mtx_then_dma)
{
	expect_one(war_mtx_dma, NULL, 0,
		   "write-after-read on core0.scratchpad [0x0, 0x10)",
		   "core0.mtx mmul reads", OP_MMUL, 0,
		   "core0.dma0 dma writes", OP_DMA, 0);
	expect_none(war_mtx_dma_sig, NULL, 0);
}
END_TEST

/* Two DMA engines write overlapping scratchpad bytes: [0, 64) and
 * [32, 96) share [32, 64). */
static const char waw_dma_dma[] =
	DMA(0, dram, 0, spm, 0, 64)
	DMA(1, dram, 0x1000, spm, 32, 64)
	END;
static const char waw_dma_dma_sig[] =
	DMA(0, dram, 0, spm, 0, 64)
	"\tsig dma0, 3\n\twait dma1, 3, 1\n"
	DMA(1, dram, 0x1000, spm, 32, 64)
	END;
/* The same race on DRAM: both engines store to [0x2010, 0x2040). */
static const char waw_dram[] =
	DMA(0, spm, 0, dram, 0x2000, 64)
	DMA(1, spm, 0x100, dram, 0x2010, 64)
	END;

START_TEST(hazard_waw_two_dma_engines)
{
	expect_one(waw_dma_dma, NULL, 0,
		   "write-after-write on core0.scratchpad [0x20, 0x40)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core0.dma1 dma writes", OP_DMA, 1);
	expect_none(waw_dma_dma_sig, NULL, 0);
	expect_one(waw_dram, NULL, 0,
		   "write-after-write on dram [0x2010, 0x2040)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core0.dma1 dma writes", OP_DMA, 1);
}
END_TEST

/* The vector unit writes a tile that DMA stores to DRAM, and reads a
 * tile that DMA loads. */
static const char vec_dma_raw[] =
	VEC_SETUP
	"\tli t1, 0x100\n\tli t2, 0\n\tli t3, 0x40\n\tvadd t1, t2, t3\n"
	DMA(0, spm, 0x100, dram, 0, 16)
	END;
static const char vec_dma_raw_sig[] =
	VEC_SETUP
	"\tli t1, 0x100\n\tli t2, 0\n\tli t3, 0x40\n\tvadd t1, t2, t3\n"
	"\tsig vec, 2\n\twait dma0, 2, 1\n"
	DMA(0, spm, 0x100, dram, 0, 16)
	END;
static const char dma_vec_raw[] =
	VEC_SETUP
	DMA(1, dram, 0, spm, 0x44, 8)
	"\tli t1, 0x100\n\tli t2, 0\n\tli t3, 0x40\n\tvadd t1, t2, t3\n"
	END;

START_TEST(hazard_vector_vs_dma)
{
	expect_one(vec_dma_raw, NULL, 0,
		   "read-after-write on core0.scratchpad [0x100, 0x110)",
		   "core0.vec vadd writes", OP_VADD, 0,
		   "core0.dma0 dma reads", OP_DMA, 0);
	expect_none(vec_dma_raw_sig, NULL, 0);
	/* Only source 2's bytes [0x44, 0x4c) are shared. */
	expect_one(dma_vec_raw, NULL, 0,
		   "read-after-write on core0.scratchpad [0x44, 0x4c)",
		   "core0.dma1 dma writes", OP_DMA, 0,
		   "core0.vec vadd reads", OP_VADD, 0);
}
END_TEST

START_TEST(hazard_matrix_outputs)
{
	/* mmul writes C = acc [0, 64) (4 x 4 int32); DMA loads acc [32, 96). */
	expect_one(MTX_SETUP MPRE_B MMUL_A0
		   DMA(0, dram, 0, acc, 32, 64)
		   END, NULL, 0,
		   "write-after-write on core0.accumulator [0x20, 0x40)",
		   "core0.mtx mmul writes", OP_MMUL, 0,
		   "core0.dma0 dma writes", OP_DMA, 0);
	/* mout writes the int8 tile spm [0x200, 0x210); DMA stores it. */
	expect_one(MTX_SETUP MPRE_B MMUL_A0
		   "\tli t1, 0x200\n\tli t2, 0\n\tmout t1, t2\n"
		   DMA(1, spm, 0x200, dram, 0, 16)
		   END, NULL, 0,
		   "read-after-write on core0.scratchpad [0x200, 0x210)",
		   "core0.mtx mout writes", 0x74, 0,
		   "core0.dma1 dma reads", OP_DMA, 0);
	/* ... ordered by sig/wait: nothing. */
	expect_none(MTX_SETUP MPRE_B MMUL_A0
		    "\tli t1, 0x200\n\tli t2, 0\n\tmout t1, t2\n"
		    "\tsig mtx, 4\n\twait dma1, 4, 1\n"
		    DMA(1, spm, 0x200, dram, 0, 16)
		    END, NULL, 0);
}
END_TEST

/* ---- what is not a race --------------------------------------------------------*/

START_TEST(hazard_disjoint_and_read_only)
{
	/* DMA writes [0x10, 0x40) around A at [0, 0x10): adjacent, disjoint. */
	expect_none(MTX_SETUP MPRE_B
		    DMA(0, dram, 0, spm, 0x10, 0x30)
		    MMUL_A0 END, NULL, 0);
	/* DMA writes right below A... */
	expect_none(MTX_SETUP
		    "\tli t1, 0x40\n\tmpre t1\n\tli t2, 0x20\n\tmmul zero, t2, zero\n"
		    DMA(0, dram, 0, spm, 0, 0x20)
		    DMA(1, dram, 0, spm, 0x30, 0x10)
		    END, NULL, 0);
	/* Two engines reading the same scratchpad bytes; two writing
	 * adjacent DRAM ranges. */
	expect_none(DMA(0, spm, 0, dram, 0x1000, 64)
		    DMA(1, spm, 0, dram, 0x1040, 64)
		    END, NULL, 0);
	/* The matrix engine and DMA read the same tile. */
	expect_none(MTX_SETUP MPRE_B MMUL_A0
		    DMA(0, spm, 0, dram, 0, 16)
		    END, NULL, 0);
	/* Same bytes, different memories: accumulator vs scratchpad. */
	expect_none(MTX_SETUP MPRE_B MMUL_A0
		    DMA(0, dram, 0, spm, 0x80, 64)
		    END, NULL, 0);
	/* One unit, in order: the queue orders its own instructions. */
	expect_none(DMA(0, dram, 0, spm, 0, 64)
		    DMA(0, spm, 0, dram, 0x1000, 64)
		    DMA(0, dram, 0x2000, spm, 0, 64)
		    END, NULL, 0);
}
END_TEST

START_TEST(hazard_wait_orders_one_producer_only)
{
	/*
	 * dma0 fills A and dma1 fills B; the matrix engine waits only for
	 * dma0's semaphore: its mpre of B still races with dma1, and that is
	 * the one report.
	 */
	expect_one(MTX_SETUP
		   DMA(0, dram, 0, spm, 0, 16)
		   DMA(1, dram, 0x100, spm, 0x40, 16)
		   "\tsig dma0, 0\n\tsig dma1, 1\n\twait mtx, 0, 1\n"
		   MPRE_B MMUL_A0 END, NULL, 0,
		   "read-after-write on core0.scratchpad [0x40, 0x50)",
		   "core0.dma1 dma writes", OP_DMA, 1,
		   "core0.mtx mpre reads", OP_MPRE, 0);
	/* Waiting for both: nothing. */
	expect_none(MTX_SETUP
		    DMA(0, dram, 0, spm, 0, 16)
		    DMA(1, dram, 0x100, spm, 0x40, 16)
		    "\tsig dma0, 0\n\tsig dma1, 1\n\twait mtx, 0, 1\n\twait mtx, 1, 1\n"
		    MPRE_B MMUL_A0 END, NULL, 0);
	/* A fence on the wrong engine orders nothing. */
	expect_one(MTX_SETUP MPRE_B
		   DMA(0, dram, 0, spm, 0, 16)
		   "\tfence dma1|vec\n"
		   MMUL_A0 END, NULL, 0,
		   "read-after-write on core0.scratchpad [0x0, 0x10)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core0.mtx mmul reads", OP_MMUL, 0);
}
END_TEST

START_TEST(hazard_wait_on_ctl_orders_dispatch)
{
	/*
	 * The control unit waits for dma0's semaphore and only then
	 * dispatches the mmul: the dispatch edge carries the ordering.
	 */
	expect_none(MTX_SETUP MPRE_B
		    DMA(0, dram, 0, spm, 0, 16)
		    "\tsig dma0, 0\n\twait ctl, 0, 1\n"
		    MMUL_A0 END, NULL, 0);
}
END_TEST

START_TEST(hazard_sig_from_idle_unit_carries_ctl_order)
{
	/*
	 * The vector unit waits for semaphore 0 and then reads spm [0, 16).
	 * Later in program order, DMA fills those bytes, the control unit
	 * fences dma0, and only then queues sig on the (idle) matrix engine,
	 * which fires semaphore 0.  So the read starts after the write has
	 * completed: sig vec's entry was queued after the fence, and what
	 * the control unit knew then comes with it.
	 */
	expect_none(VEC_SETUP
		    "\twait vec, 0, 1\n"
		    "\tli t1, 0x100\n\tli t2, 0\n\tvmov t1, t2\n"
		    DMA(0, dram, 0, spm, 0, 16)
		    "\tfence dma0\n"
		    "\tsig mtx, 0\n"
		    END, NULL, 0);
	/* Without the fence the sig says nothing about the DMA: reported. */
	expect_one(VEC_SETUP
		   "\twait vec, 0, 1\n"
		   "\tli t1, 0x100\n\tli t2, 0\n\tvmov t1, t2\n"
		   DMA(0, dram, 0, spm, 0, 16)
		   "\tsig mtx, 0\n"
		   END, NULL, 0,
		   "read-after-write on core0.scratchpad [0x0, 0x10)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core0.vec vmov reads", OP_VMOV, 0);
}
END_TEST

/* ---- across cores (shared DRAM) ---------------------------------------------------*/

static const char *const ov_2c[] = { "chip.cores=2", "noc.cols=3", "noc.rows=1" };

/*
 * Core 0 stores 64 bytes of its scratchpad to DRAM 0x1000; core 1 loads
 * them.  Core 1 first spins so that core 0's store starts first.
 * SYNC0 is what core 0 does after its store, SYNC1 what core 1 does
 * before its load.
 */
#define XCORE(sync0, sync1)                                              \
	"\tcsrr s0, coreid\n\tbnez s0, c1\n"                             \
	DMA(0, spm, 0, dram, 0x1000, 64)                                 \
	sync0                                                            \
	"\tj done\n"                                                     \
	"c1:\tli t1, 20\nspin:\tdbnz t1, spin\n"                         \
	sync1                                                            \
	DMA(0, dram, 0x1000, spm, 0, 64)                                 \
	"done:\n" END

START_TEST(hazard_cross_core_dram)
{
	/* No ordering at all. */
	expect_one(XCORE("", ""), ov_2c, 3,
		   "read-after-write on dram [0x1000, 0x1040)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core1.dma0 dma reads", OP_DMA, 1);
	/* fence + barrier on both sides: ordered. */
	expect_none(XCORE("\tfence dma0\n\tbarrier\n", "\tbarrier\n"), ov_2c, 3);
	/* A barrier does not wait for the units: without the fence the
	 * store may still be running. */
	expect_one(XCORE("\tbarrier\n", "\tbarrier\n"), ov_2c, 3,
		   "read-after-write on dram [0x1000, 0x1040)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core1.dma0 dma reads", OP_DMA, 1);
	/* fence + rsig to core 1, whose DMA queue waits for it. */
	expect_none(XCORE("\tfence dma0\n\tli t1, 1\n\trsig t1, 3\n",
			  "\twait dma0, 3, 1\n"), ov_2c, 3);
	/* rsig without the fence: the store is not ordered. */
	expect_one(XCORE("\tli t1, 1\n\trsig t1, 3\n", "\twait dma0, 3, 1\n"), ov_2c, 3,
		   "read-after-write on dram [0x1000, 0x1040)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core1.dma0 dma reads", OP_DMA, 1);
	/* The scratchpads are per core: the same spm address on two cores
	 * is two different places. */
	expect_none(DMA(0, dram, 0, spm, 0, 64) END, ov_2c, 3);
}
END_TEST


/* Core 0 multicasts 64 bytes into spm 0x100 of cores 0 and 1 (dmask 3);
 * core 1 then reads its copy. */
#define MCAST(sync0, sync1)                                              \
	"\tcsrr s0, coreid\n\tbnez s0, c1\n"                             \
	"\tli t0, 3\n\tdset dmask, t0\n"                                   \
	DMA(0, dram, 0, rspm, 0x100, 64)                                 \
	sync0                                                            \
	"\tj done\n"                                                     \
	"c1:\tli t1, 20\nspin:\tdbnz t1, spin\n"                         \
	sync1                                                            \
	DMA(0, spm, 0x100, dram, 0x1000, 64)                             \
	"done:\n" END

START_TEST(hazard_multicast_writes_every_core)
{
	/* The write lands in core 1's scratchpad as well as core 0's. */
	expect_one(MCAST("\tbarrier\n", "\tbarrier\n"), ov_2c, 3,
		   "read-after-write on core1.scratchpad [0x100, 0x140)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core1.dma0 dma reads", OP_DMA, 1);
	expect_none(MCAST("\tfence dma0\n\tbarrier\n", "\tbarrier\n"), ov_2c, 3);
}
END_TEST

START_TEST(hazard_rsig_orders_only_when_delivered)
{
	/*
	 * Core 0 stores to DRAM, fences, and sends rsig 3 to core 1 over a
	 * slow NoC (two hops: 1 + 3 * 4 + 2 * 60 + 1 = 134 cycles, docs/noc.md).  Core 1 signals
	 * semaphore 3 itself while the rsig is still in flight, so its wait
	 * passes on its own signal: its load is not ordered after core 0's
	 * store, and the checker must not borrow the in-flight signal's
	 * history.  Waiting for both signals (count 2) orders it.
	 */
	static const char *const slow[] = { "chip.cores=2", "noc.cols=3", "noc.rows=1",
					    "noc.core_nodes=[0,2]", "noc.dram_nodes=[1]",
					    "noc.link_latency=60" };
	/* Core 1 spins ~250 cycles: past core 0's send (its store crosses
	 * the slow network twice), before delivery. */
#define RSIG_RACE(cnt)                                                     \
	"\tcsrr s0, coreid\n\tbnez s0, c1\n"                                \
	DMA(0, spm, 0, dram, 0x1000, 64)                                    \
	"\tfence dma0\n\tcsrr a0, cycle\n\tli t1, 1\n\trsig t1, 3\n"          \
	"\tj done\n"                                                        \
	"c1:\tli t1, 120\nspin:\tdbnz t1, spin\n"                            \
	"\tsig ctl, 3\n\twait ctl, 3, " #cnt "\n\tcsrr a1, cycle\n"            \
	DMA(0, dram, 0x1000, spm, 0, 64)                                    \
	"done:\n" END
	struct sim s;

	hz_run(&s, RSIG_RACE(1), slow, 6);
	/* The premise: core 1 waited after the send, before the delivery. */
	ck_assert_uint_gt(chip_reg(s.c, 1, 11), chip_reg(s.c, 0, 10) + 1);
	ck_assert_uint_lt(chip_reg(s.c, 1, 11), chip_reg(s.c, 0, 10) + 1 + 134);
	hz_free(&s);
	expect_one(RSIG_RACE(1), slow, 6,
		   "read-after-write on dram [0x1000, 0x1040)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core1.dma0 dma reads", OP_DMA, 1);
	expect_none(RSIG_RACE(2), slow, 6);
#undef RSIG_RACE
}
END_TEST

START_TEST(hazard_report_limit)
{
	/*
	 * 25 independent races: DMA fills 16-byte region i (64 bytes apart)
	 * while the vector unit copies region i, with no ordering.  Each
	 * pair is one report; 20 are printed, then a note, and all 25 are
	 * counted.
	 */
	struct sim s;

	hz_run(&s, VEC_SETUP
	       "\tli t0, 16\n\tdset n0, t0\n\tli s1, 25\n\tli s2, 0\n"
	       "L1:\tdset dst, s2\n\tdma 0\n\taddi s2, s2, 64\n\tdbnz s1, L1\n"
	       "\tli s1, 25\n\tli s2, 0\n\tli s3, 0x4000\n"
	       "L2:\tvmov s3, s2\n\taddi s2, s2, 64\n\taddi s3, s3, 64\n\tdbnz s1, L2\n"
	       END, NULL, 0);
	ck_assert_int_eq(s.r.n_hazards, 25);
	ck_assert_int_eq(count_str(s.log, "warning: hazard:"), 20);
	ck_assert_int_eq(count_str(s.log, "note: further hazards are counted but not printed"), 1);
	/* Every printed report pairs the DMA and the copy of one region. */
	ck_assert_int_eq(count_str(s.log, "core0.dma0 dma writes"), 20);
	ck_assert_int_eq(count_str(s.log, "core0.vec vmov reads"), 20);
	hz_free(&s);
}
END_TEST

/*
 * hazard.footprints.every_tile_op: every matrix, vector and DMA row of
 * isa/opcodes.def touches scratchpad bytes its operands name (with the
 * setup below: int8 vector rows of 16, 4 x 4 WS matrix tiles, addresses
 * under 0x400), so a DMA that writes the scratchpad [0, 0x400) with no
 * ordering against it is reported, naming the op.  The checker thus has
 * a footprint for every tile op; the operands come from the op's format,
 * so a new row is checked without touching this file.
 */
START_TEST(hazard_footprint_every_tile_op)
{
	int i, n = 0;

	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *o = &isa_op_info[i];
		char src[1024], who[48], un[16];
		const char *opnds;
		struct sim s;

		if (o->unit != ISA_UNIT_MTX && o->unit != ISA_UNIT_VEC &&
		    o->unit != ISA_UNIT_DMA)
			continue;
		switch (o->fmt) {
		/* t0 = 0: mpre's tile, dmar's engine */
		case ISA_FMT_R1: opnds = "t0"; break;
		case ISA_FMT_R2: opnds = "t1, t2"; break;
		/* mmul/mmacc: rs2 = t3 is the preloaded (resident) tile */
		case ISA_FMT_R3: opnds = "t1, t2, t3"; break;
		case ISA_FMT_R4: opnds = "t1, t2, t3, t4"; break;
		case ISA_FMT_ENG: opnds = "0"; break;
		default:
			ck_abort_msg("%s: format %s has no operands here; add them",
				     o->name, isa_fmt_info[o->fmt].id);
			return;
		}
		/* The mpre of the resident tile is fenced before the DMA, so
		 * only the op under test can race with it. */
		snprintf(src, sizeof(src),
			 MTX_SETUP VEC_SETUP
			 "\tli t1, 0x100\n\tli t2, 0x200\n\tli t3, 0x300\n"
			 "\tli t4, 0x380\n\tmpre t3\n\tfence mtx\n"
			 DMA(1, dram, 0, spm, 0, 0x400)
			 "\tli t0, 0\n\t%s %s\n" END, o->name, opnds);
		hz_run(&s, src, NULL, 0);
		snprintf(who, sizeof(who), "core0.%s %s ",
			 o->unit == ISA_UNIT_DMA ? "dma0" :
			 isa_unit_id_name(o->unit == ISA_UNIT_MTX ? ISA_UID_MTX :
					  ISA_UID_VEC, un, sizeof(un)),
			 o->name);
		ck_assert_msg(s.r.n_hazards >= 1 && strstr(s.log, who),
			      "%s: no hazard reported with the DMA: %s", o->name,
			      s.log);
		hz_free(&s);
		n++;
	}
	ck_assert_int_gt(n, 40);
}
END_TEST

/*
 * vscatter's index tile is int32 whatever the data type (names.def VKIND
 * scatter: s2 TILE(INT32)): with int8 rows of 16 it spans 64 bytes, so a
 * DMA writing its last indices races with it.
 */
START_TEST(hazard_scatter_index_tile)
{
	expect_one(VEC_SETUP
		   DMA(0, dram, 0, spm, 0x230, 8)
		   "\tli t1, 0x100\n\tli t2, 0x300\n\tli t3, 0x200\n"
		   "\tvscatter t1, t2, t3\n" END, NULL, 0,
		   "read-after-write on core0.scratchpad [0x230, 0x238)",
		   "core0.dma0 dma writes", OP_DMA, 0,
		   "core0.vec vscatter reads", 0xba, 0);
}
END_TEST

static Suite *suite_hazard(void)
{
	Suite *s = suite_create("hazard");

	TEST_ADD(s, hazard_raw_dma_then_mtx);
	TEST_ADD(s, hazard_war_mtx_then_dma);
	TEST_ADD(s, hazard_waw_two_dma_engines);
	TEST_ADD(s, hazard_vector_vs_dma);
	TEST_ADD(s, hazard_matrix_outputs);
	TEST_ADD(s, hazard_disjoint_and_read_only);
	TEST_ADD(s, hazard_wait_orders_one_producer_only);
	TEST_ADD(s, hazard_wait_on_ctl_orders_dispatch);
	TEST_ADD(s, hazard_sig_from_idle_unit_carries_ctl_order);
	TEST_ADD(s, hazard_cross_core_dram);
	TEST_ADD(s, hazard_multicast_writes_every_core);
	TEST_ADD(s, hazard_rsig_orders_only_when_delivered);
	TEST_ADD(s, hazard_report_limit);
	TEST_ADD(s, hazard_footprint_every_tile_op);
	TEST_ADD(s, hazard_scatter_index_tile);
	return s;
}

TEST_MAIN(suite_hazard)
