/*
 * fsout.c - write to a temporary file, then rename (see fsout.h).
 *
 * Why rename: POSIX rename() within one directory replaces the target
 * atomically, so a reader sees the old file or the complete new one,
 * never a prefix.  The temporary sits next to the target (same directory,
 * hence same file system) because rename cannot cross file systems; the
 * pid in its name keeps two concurrent runs writing the same output from
 * sharing a temporary.  A process killed between open and commit leaves
 * its "<path>.tmp.<pid>" behind; nothing else does.
 *
 * Invariant: after commit or abort fp is NULL and nothing is owned, so a
 * second commit fails with NPU_EIO and a second abort is a no-op.
 */
#include "fsout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strutil.h"

int fsout_open(struct fsout *o, const char *path, struct diag *d)
{
	size_t n;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	{
		struct stat st;

		/* Devices and pipes: write in place, never rename over them. */
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			o->fp = fopen(path, "wb");
			if (!o->fp)
				return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
						  "cannot open output: %s", strerror(errno));
			o->direct = 1;
			return 0;
		}
	}
	/* ".tmp." + a decimal pid (at most 20 digits) + NUL fits in 32. */
	n = strlen(path) + 32;
	o->path = str_dup(path);
	o->tmp = malloc(n);
	if (!o->path || !o->tmp) {
		fsout_abort(o);
		return NPU_ENOMEM;
	}
	snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
	o->fp = fopen(o->tmp, "wb");
	if (!o->fp) {
		int err = errno;

		free(o->path);
		free(o->tmp);
		memset(o, 0, sizeof(*o));
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot create output file: %s", strerror(err));
	}
	return 0;
}

int fsout_commit(struct fsout *o, struct diag *d)
{
	int bad;

	if (!o->fp)
		return NPU_EIO;
	/* stdout is flushed, not closed: later output may still follow. */
	if (o->fp == stdout) {
		bad = fflush(stdout) != 0;
		o->fp = NULL;
		return bad ? NPU_EIO : 0;
	}
	if (o->direct) {
		bad = ferror(o->fp) != 0;
		bad |= fclose(o->fp) != 0;
		memset(o, 0, sizeof(*o));
		return bad ? NPU_EIO : 0;
	}
	/* A write error anywhere (ferror is sticky) or on the final flush
	 * (fclose) keeps the old file: the temporary is removed instead. */
	bad = ferror(o->fp) != 0;
	if (fclose(o->fp) != 0)
		bad = 1;
	o->fp = NULL;
	if (bad || rename(o->tmp, o->path) != 0) {
		/* errno is that of the failing call; after a failed write it
		 * may be stale (the write failed earlier), so the message can
		 * name a less precise reason. */
		int err = errno;

		remove(o->tmp);
		(void)diag_error(d, diag_at_file(o->path, 0, 0), NPU_EIO,
				 "cannot write output file: %s", strerror(err));
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return NPU_EIO;
	}
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return 0;
}

/* Discard the output: the target keeps its old contents (or stays
 * absent).  A device or pipe opened directly is only closed. */
void fsout_abort(struct fsout *o)
{
	if (o->direct) {
		fclose(o->fp);
		memset(o, 0, sizeof(*o));
		return;
	}
	if (o->fp && o->fp != stdout) {
		fclose(o->fp);
		remove(o->tmp);
	}
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}
