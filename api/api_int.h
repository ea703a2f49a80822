/*
 * api_int.h - what the C API's files share (api/npusim.c: configs and
 * runs; api/model.c: models): the handles' bodies and the helpers that
 * capture messages and turn internal error codes into public ones.  Not
 * installed; nothing outside api/ includes it.
 */
#ifndef NPU_API_INT_H
#define NPU_API_INT_H

#include <stdio.h>

#include "../include/npusim.h"
#include "../run/run.h"

struct npusim_config {
	struct arch a;          /* resolved, validated */
};

struct npusim_run {
	const npusim_config *cfg;
	struct run *r;          /* the chip (NULL before a model's first go) */
	struct diag d;          /* all messages of a call go to fp */
	FILE *fp;               /* open_memstream over mbuf */
	char *mbuf;             /* the messages since the call began */
	size_t mlen;
	char *err;              /* the messages of the last failed call */
	struct ctr_sink sink;   /* counters of the last go */
	int have_sink;          /* sink holds them */
	struct ctr_region *rgn; /* regions of the last go */
	size_t n_rgn;
};

/* NPU_E* -> NPUSIM_E*. */
int api_pub(int rc);
/* Messages into a memory stream: d writes to *fp, the text is *buf. */
int api_cap_open(struct diag *d, FILE **fp, char **buf, size_t *len);
/* The captured text as a malloc'ed string (closes the stream). */
char *api_cap_close(FILE *fp, char **buf);
/* A call on r begins (the last call's messages are forgotten) and ends
 * (a failure keeps the messages written since; returns api_pub(rc)). */
void api_call_begin(npusim_run *r);
int api_call_end(npusim_run *r, int rc);
/* An API misuse, reported like any other error (NPU_EUSAGE). */
int api_misuse(npusim_run *r, const char *what);
/* Forget the last go's counters and regions. */
void api_drop_results(npusim_run *r);
/* Keep the run's counters ("cycles" first, as the counters file) and
 * regions after a go.  0 or NPU_ENOMEM. */
int api_collect(npusim_run *r, uint64_t cycles);

#endif
