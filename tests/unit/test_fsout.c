/*
 * test_fsout.c - atomic output files (util/fsout.h).
 *
 *   fsout.unique_tmp       two outputs of one path get distinct temporaries;
 *                          the last commit wins whole, nothing left over
 *   fsout.mode             a new file gets 0666 & ~umask, a replaced file
 *                          keeps its mode (mkstemp's 0600 is not leaked)
 *   fsout.same             same file by inode, by directory + name; stdout;
 *                          /dev/null never clashes
 *   fsout.distinct         the clash message names both options
 *   fsout.write_error      /dev/full: "cannot write: No space left on
 *                          device", for a file output and for fsout_check
 *   fsout.signal_die       SIGTERM while a temporary is open: removed, and
 *                          the process dies by SIGTERM
 *   fsout.signal_flag      flag mode: the first SIGINT is only a flag, the
 *                          output can still be committed, fsout_die then
 *                          dies by SIGINT
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../util/fsout.h"
#include "testutil.h"

/* A fresh empty directory under /tmp (the path is static storage). */
static const char *tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/npusim_fsout_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

/* Entries of dir other than . and .. */
static int n_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void slurp(const char *path, char *buf, size_t n)
{
	FILE *fp = fopen(path, "r");
	size_t got;

	ck_assert_ptr_nonnull(fp);
	got = fread(buf, 1, n - 1, fp);
	buf[got] = '\0';
	fclose(fp);
}

static void rm_dir(const char *dir, const char *file)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	remove(p);
	rmdir(dir);
}

START_TEST(fsout_unique_tmp)
{
	const char *dir = tmpdir();
	char path[128], buf[64];
	struct fsout a, b;
	struct diag d;

	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/x.json", dir);
	/* Regression: both used "<path>.tmp.<pid>", so the second open
	 * truncated the first one's file and the first rename stole it. */
	ck_assert_int_eq(fsout_open(&a, path, &d), 0);
	ck_assert_int_eq(fsout_open(&b, path, &d), 0);
	ck_assert_str_ne(a.tmp, b.tmp);
	ck_assert_ptr_nonnull(strstr(a.tmp, "x.json.tmp."));
	fputs("first", a.fp);
	fputs("second", b.fp);
	ck_assert_int_eq(fsout_commit(&a, &d), 0);
	ck_assert_int_eq(fsout_commit(&b, &d), 0);
	slurp(path, buf, sizeof(buf));
	ck_assert_str_eq(buf, "second");
	ck_assert_int_eq(n_entries(dir), 1);
	rm_dir(dir, "x.json");
}
END_TEST

START_TEST(fsout_mode)
{
	const char *dir = tmpdir();
	char path[128];
	struct fsout o;
	struct diag d;
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/new.txt", dir);
	ck_assert_int_eq(fsout_open(&o, path, &d), 0);
	ck_assert_int_eq(fsout_commit(&o, &d), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0666 & ~mask);
	/* Replacing keeps the replaced file's mode, as fopen "w" would. */
	ck_assert_int_eq(chmod(path, 0640), 0);
	ck_assert_int_eq(fsout_open(&o, path, &d), 0);
	ck_assert_int_eq(fsout_commit(&o, &d), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);
	rm_dir(dir, "new.txt");
}
END_TEST

START_TEST(fsout_same_file)
{
	const char *dir = tmpdir();
	char a[128], b[128], c[128];
	FILE *fp;

	snprintf(a, sizeof(a), "%s/y.json", dir);
	snprintf(b, sizeof(b), "%s/./y.json", dir);
	snprintf(c, sizeof(c), "%s/z.json", dir);
	/* Neither exists yet: same directory, same name. */
	ck_assert_int_eq(fsout_same(a, b), 1);
	ck_assert_int_eq(fsout_same(a, c), 0);
	/* Existing: by inode, also through a hard link. */
	fp = fopen(a, "w");
	fclose(fp);
	ck_assert_int_eq(fsout_same(a, b), 1);
	ck_assert_int_eq(link(a, c), 0);
	ck_assert_int_eq(fsout_same(a, c), 1);
	ck_assert_int_eq(fsout_same("-", "-"), 1);
	ck_assert_int_eq(fsout_same("-", a), 0);
	ck_assert_int_eq(fsout_same("/dev/null", "/dev/null"), 0);
	ck_assert_int_eq(fsout_same("/nonexistent/q", "/nonexistent/q"), 1);
	remove(c);
	rm_dir(dir, "y.json");
}
END_TEST

START_TEST(fsout_distinct_msg)
{
	const char *paths[] = { "t.json", "c.csv", "./t.json" };
	const char *labels[] = { "--trace ", "--counters ", "--output C=" };
	struct diag d;

	diag_init(&d, NULL);
	ck_assert_int_eq(fsout_distinct(paths, labels, 2, &d), 0);
	ck_assert_int_eq(fsout_distinct(paths, labels, 3, &d), NPU_EUSAGE);
	ck_assert_ptr_nonnull(strstr(d.last, "--trace t.json and --output C=./t.json name the same file"));
}
END_TEST

START_TEST(fsout_write_error)
{
	struct fsout o;
	struct diag d;
	FILE *fp;
	char big[8192];

	diag_init(&d, NULL);
	memset(big, 'x', sizeof(big));
	/* A device written in place: the error used to be silent. */
	ck_assert_int_eq(fsout_open(&o, "/dev/full", &d), 0);
	fwrite(big, 1, sizeof(big), o.fp);
	ck_assert_int_eq(fsout_commit(&o, &d), NPU_EIO);
	ck_assert_str_eq(d.last, "/dev/full: error: cannot write: No space left on device");
	/* Any stream, reported once: the flag is cleared by the report. */
	fp = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(fp);
	fputs("lost", fp);
	ck_assert_int_eq(fsout_check(fp, "<stdout>", &d), NPU_EIO);
	ck_assert_str_eq(d.last, "<stdout>: error: cannot write: No space left on device");
	ck_assert_int_eq(fsout_check(fp, "<stdout>", &d), 0);
	fclose(fp);
}
END_TEST

/* Child: open an output in dir, then get sig; the parent checks what is
 * left.  flag: flag mode, commit after the first signal, then fsout_die. */
static void child(const char *dir, int sig, int flag)
{
	char path[128];
	struct fsout o;
	struct diag d;

	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/out.npy", dir);
	/* inherited ignored (the suite under nohup), it would stay ignored:
	 * fsout keeps an ignored signal ignored */
	signal(sig, SIG_DFL);
	fsout_catch_signals(flag ? FSOUT_SIG_FLAG : FSOUT_SIG_DIE);
	if (fsout_open(&o, path, &d) != 0)
		_exit(10);
	fputs("data", o.fp);
	fflush(o.fp);
	raise(sig);
	if (!flag)
		_exit(11); /* must have died */
	if (fsout_interrupted() != sig)
		_exit(12);
	if (fsout_commit(&o, &d) != 0)
		_exit(13);
	fsout_die();
	_exit(14);
}

static void signal_case(int sig, int flag, int want_entries)
{
	const char *dir = tmpdir();
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		child(dir, sig, flag);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig,
		      "child status 0x%x", status);
	/* No temporary: nothing at all, or the committed file alone. */
	ck_assert_int_eq(n_entries(dir), want_entries);
	rm_dir(dir, "out.npy");
}

START_TEST(fsout_signal_die)
{
	signal_case(SIGTERM, 0, 0);
	signal_case(SIGHUP, 0, 0);
}
END_TEST

START_TEST(fsout_signal_flag)
{
	signal_case(SIGINT, 1, 1);
}
END_TEST

static Suite *suite_fsout(void)
{
	Suite *s = suite_create("fsout");

	TEST_ADD(s, fsout_unique_tmp);
	TEST_ADD(s, fsout_mode);
	TEST_ADD(s, fsout_same_file);
	TEST_ADD(s, fsout_distinct_msg);
	TEST_ADD(s, fsout_write_error);
	TEST_ADD(s, fsout_signal_die);
	TEST_ADD(s, fsout_signal_flag);
	return s;
}

TEST_MAIN(suite_fsout)
