/*
 * fsout.c - write to a temporary file, then rename (see fsout.h).
 *
 * Why rename: POSIX rename() within one directory replaces the target
 * atomically, so a reader sees the old file or the complete new one,
 * never a prefix.  The temporary sits next to the target (same directory,
 * hence same file system) because rename cannot cross file systems.  Its
 * name comes from mkstemp, so two outputs of one process that name the
 * same file (refused by fsout_distinct, but a library caller may not ask)
 * and two concurrent runs never share a temporary: each gets its own,
 * and the last commit wins whole.
 *
 * Signals: every live temporary is also in a fixed table (tmp_names /
 * tmp_live) that the handler walks with nothing but unlink(), which is
 * async-signal-safe; no malloc, no stdio, no lock in the handler.  A slot
 * is marked live only after its name is complete and released only after
 * the rename or remove, so the handler sees whole names; SIGINT, SIGTERM
 * and SIGHUP are blocked while a temporary is created and registered, so
 * a signal cannot fall between the two.  Only a SIGKILL (or a crash)
 * leaves "<path>.tmp.XXXXXX" behind.
 *
 * Invariant: after commit or abort fp is NULL and nothing is owned, so a
 * second commit fails with NPU_EIO and a second abort is a no-op.
 */
#include "fsout.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strutil.h"

/* ---- the table of live temporaries (read by the signal handler) ----------*/

/* Outputs open at once: the trace plus one file being written is the most
 * npusim has; 32 leaves room for library callers.  A temporary that finds
 * no free slot (or whose name is longer than a slot) still works; it is
 * only not removed by a signal. */
#define FSOUT_SLOTS 32
#define FSOUT_SLOT_PATH 4096

static char tmp_names[FSOUT_SLOTS][FSOUT_SLOT_PATH];  /* NUL-terminated */
static volatile sig_atomic_t tmp_live[FSOUT_SLOTS];   /* 1: name is live */
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER; /* claims */

static volatile sig_atomic_t sig_mode;    /* enum fsout_sigmode */
static volatile sig_atomic_t sig_caught;  /* first signal in flag mode */
static const int caught_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define N_CAUGHT (int)(sizeof(caught_sigs) / sizeof(caught_sigs[0]))

/* 1 + slot holding name, or 0 when the table is full or name too long. */
static int tmp_register(const char *name)
{
	size_t n = strlen(name);
	int i, got = 0;

	if (n >= FSOUT_SLOT_PATH)
		return 0;
	pthread_mutex_lock(&tmp_lock);
	for (i = 0; i < FSOUT_SLOTS && !got; i++)
		if (!tmp_live[i]) {
			memcpy(tmp_names[i], name, n + 1);
			tmp_live[i] = 1;  /* after the name is complete */
			got = i + 1;
		}
	pthread_mutex_unlock(&tmp_lock);
	return got;
}

static void tmp_release(int slot)
{
	if (slot > 0)
		tmp_live[slot - 1] = 0;
}

/* Async-signal-safe: unlink only. */
static void tmp_unlink_all(void)
{
	int i;

	for (i = 0; i < FSOUT_SLOTS; i++)
		if (tmp_live[i])
			unlink(tmp_names[i]);
}

/* Block the caught signals around create+register and rename+release. */
static void sigs_block(sigset_t *old)
{
	sigset_t s;
	int i;

	sigemptyset(&s);
	for (i = 0; i < N_CAUGHT; i++)
		sigaddset(&s, caught_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &s, old);
}

static void sigs_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void on_signal(int sig)
{
	int saved = errno;

	if (sig_mode == FSOUT_SIG_FLAG && !sig_caught) {
		sig_caught = sig;  /* polled by the run loop */
		errno = saved;
		return;
	}
	tmp_unlink_all();
	/* Die by the same signal, so the parent sees WIFSIGNALED (a shell
	 * prints status 128 + sig and stops a script's loop on ^C).  The
	 * signal is blocked inside its handler: it is delivered, with the
	 * default action, as the handler returns. */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

void fsout_catch_signals(enum fsout_sigmode mode)
{
	struct sigaction sa, old;
	int i;

	sig_mode = mode;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* SA_RESTART: a signal in the middle of a write must not turn into
	 * a spurious EINTR write error; the flag is polled anyway. */
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < N_CAUGHT; i++) {
		if (sigaction(caught_sigs[i], NULL, &old) != 0 ||
		    old.sa_handler == SIG_IGN)
			continue;  /* nohup, or a background job: stay ignored */
		sigaction(caught_sigs[i], &sa, NULL);
	}
}

int fsout_interrupted(void) { return sig_caught; }

void fsout_die(void)
{
	int sig = sig_caught;

	if (!sig)
		return;
	tmp_unlink_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- modes ------------------------------------------------------------------*/

static mode_t create_mask;
static pthread_once_t mask_once = PTHREAD_ONCE_INIT;

/* umask() can only be read by setting it; done once, before any output
 * of this process is created. */
static void read_umask(void)
{
	create_mask = umask(0);
	umask(create_mask);
}

/* ---- open / commit / abort ---------------------------------------------------*/

/* The reason a stream failed: a failing flush gives a fresh errno; an
 * error flag set by an earlier write leaves errno from that write (no
 * later call of ours resets it), else EIO.  0 when all is well. */
static int stream_error(FILE *fp)
{
	if (fflush(fp) != 0)
		return errno ? errno : EIO;
	if (ferror(fp))
		return errno ? errno : EIO;
	return 0;
}

static int cannot_write(struct diag *d, const char *name, int err)
{
	return diag_error(d, diag_at_file(name, 0, 0), NPU_EIO,
			  "cannot write: %s", strerror(err));
}

int fsout_check(FILE *fp, const char *name, struct diag *d)
{
	int err = stream_error(fp);

	if (!err)
		return 0;
	clearerr(fp);
	return cannot_write(d, name, err);
}

/* Create the temporary for path with permission bits mode; registers it
 * with the signal table.  -1 with errno on failure. */
static int make_tmp(struct fsout *o, const char *path, mode_t mode)
{
	static const char suffix[] = ".tmp.XXXXXX";
	sigset_t old;
	size_t n = strlen(path);
	int fd, err;

	o->tmp = malloc(n + sizeof(suffix));
	if (!o->tmp) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(o->tmp, path, n);
	memcpy(o->tmp + n, suffix, sizeof(suffix));
	sigs_block(&old);
	fd = mkstemp(o->tmp);
	if (fd >= 0)
		o->slot = tmp_register(o->tmp);
	err = errno;
	sigs_restore(&old);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		errno = err;
		return -1;
	}
	/* mkstemp creates 0600; give the file the mode a plain create (or
	 * the file it replaces) would have.  A file system without modes
	 * may refuse: the output is still right, so that is not an error. */
	(void)fchmod(fd, mode);
	return fd;
}

int fsout_open(struct fsout *o, const char *path, struct diag *d)
{
	struct stat st;
	mode_t mode;
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	(void)pthread_once(&mask_once, read_umask);
	mode = 0666 & ~create_mask;
	if (stat(path, &st) == 0) {
		/* Devices and pipes: write in place, never rename over them. */
		if (!S_ISREG(st.st_mode)) {
			o->path = str_dup(path);
			if (!o->path)
				return diag_error(d, diag_at_file(path, 0, 0),
						  NPU_ENOMEM, "out of memory");
			o->fp = fopen(path, "wb");
			if (!o->fp) {
				err = errno;
				free(o->path);
				o->path = NULL;
				return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
						  "cannot open output: %s", strerror(err));
			}
			o->direct = 1;
			errno = 0;  /* see stream_error */
			return 0;
		}
		mode = st.st_mode & 0777;
	}
	o->path = str_dup(path);
	if (!o->path)
		return diag_error(d, diag_at_file(path, 0, 0), NPU_ENOMEM,
				  "out of memory");
	fd = make_tmp(o, path, mode);
	if (fd < 0 || !(o->fp = fdopen(fd, "wb"))) {
		err = errno;
		if (fd >= 0) {
			close(fd);
			remove(o->tmp);
		}
		tmp_release(o->slot);
		free(o->path);
		free(o->tmp);
		memset(o, 0, sizeof(*o));
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot create output file: %s", strerror(err));
	}
	errno = 0;  /* so stream_error never blames an older call */
	return 0;
}

int fsout_commit(struct fsout *o, struct diag *d)
{
	sigset_t old;
	int err;

	if (!o->fp)
		return NPU_EIO;
	/* stdout is flushed, not closed: later output may still follow. */
	if (o->fp == stdout) {
		o->fp = NULL;
		return fsout_check(stdout, "<stdout>", d);
	}
	/* A write error anywhere (ferror is sticky) or on the final flush
	 * (fclose) keeps the old file: the temporary is removed instead. */
	err = stream_error(o->fp);
	if (fclose(o->fp) != 0 && !err)
		err = errno ? errno : EIO;
	o->fp = NULL;
	if (!o->direct) {
		sigs_block(&old);
		if (!err && rename(o->tmp, o->path) != 0)
			err = errno;
		if (err)
			remove(o->tmp);
		tmp_release(o->slot);
		sigs_restore(&old);
	}
	if (err)
		(void)cannot_write(d, o->path, err);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return err ? NPU_EIO : 0;
}

/* Discard the output: the target keeps its old contents (or stays
 * absent).  A device or pipe opened directly is only closed. */
void fsout_abort(struct fsout *o)
{
	if (o->direct) {
		fclose(o->fp);
		free(o->path);
		memset(o, 0, sizeof(*o));
		return;
	}
	if (o->fp && o->fp != stdout) {
		fclose(o->fp);
		remove(o->tmp);
	}
	tmp_release(o->slot);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

/* ---- two outputs, one file --------------------------------------------------*/

/* What an output path resolves to, for comparison. */
struct out_key {
	int kind;        /* 0 stdout, 1 existing file, 2 new name, 3 /dev/null,
			    4 new name in a directory that does not exist */
	dev_t dev;       /* existing file, or the new name's directory */
	ino_t ino;
	const char *base; /* new name: last component (points into path) */
	size_t n_base;    /* its length */
	const char *path; /* kind 4: the path as given */
};

static void out_key(const char *path, struct out_key *k)
{
	struct stat st, nul;
	const char *slash;
	char dir[FSOUT_SLOT_PATH];

	memset(k, 0, sizeof(*k));
	k->path = path;
	if (strcmp(path, "-") == 0)
		return;
	if (stat(path, &st) == 0) {
		k->kind = 1;
		k->dev = st.st_dev;
		k->ino = st.st_ino;
		/* Writing twice to /dev/null loses nothing. */
		if (S_ISCHR(st.st_mode) && stat("/dev/null", &nul) == 0 &&
		    nul.st_dev == st.st_dev && nul.st_ino == st.st_ino)
			k->kind = 3;
		return;
	}
	/* Not there yet: the same name in the same directory.  A trailing
	 * component of "." or ".." would exist, so base is a real name. */
	slash = strrchr(path, '/');
	k->base = slash ? slash + 1 : path;
	k->n_base = strlen(k->base);
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) == 0) {
		k->kind = 2;
		k->dev = st.st_dev;
		k->ino = st.st_ino;
	} else {
		k->kind = 4;
	}
}

static int same_key(const struct out_key *a, const struct out_key *b)
{
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case 0:
		return 1;
	case 1:
		return a->dev == b->dev && a->ino == b->ino;
	case 2:
		return a->dev == b->dev && a->ino == b->ino &&
		       a->n_base == b->n_base &&
		       memcmp(a->base, b->base, a->n_base) == 0;
	case 4:
		return strcmp(a->path, b->path) == 0;
	default:
		return 0;
	}
}

int fsout_same(const char *a, const char *b)
{
	struct out_key ka, kb;

	out_key(a, &ka);
	out_key(b, &kb);
	return same_key(&ka, &kb);
}

int fsout_distinct(const char *const *paths, const char *const *labels,
		   int n, struct diag *d)
{
	struct out_key *k;
	int i, j, rc = 0;

	if (n < 2)
		return 0;
	k = malloc((size_t)n * sizeof(*k));
	if (!k)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		out_key(paths[i], &k[i]);
	/* Quadratic, but n is at most a few hundred and each pair is a
	 * few compares: the stat calls above are once per path. */
	for (i = 0; i < n && !rc; i++)
		for (j = i + 1; j < n && !rc; j++)
			if (same_key(&k[i], &k[j]))
				rc = diag_error(d, diag_nowhere(), NPU_EUSAGE,
						"%s%s and %s%s name the same file (each output needs its own)",
						labels[i], paths[i], labels[j],
						paths[j]);
	free(k);
	return rc;
}
