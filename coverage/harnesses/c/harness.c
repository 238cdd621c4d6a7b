/*
 * The harness arbor links with a C library under test. It calls the
 * libFuzzer entry point LLVMFuzzerTestOneInput once per input and
 * speaks the ARBOR2 protocol (see coverage.HarnessTarget) on fds 3
 * (requests), 4 (replies) and 5 (end-of-file when the parent is gone).
 *
 * The recorded sources are compiled with -finstrument-functions: every
 * function entry calls __cyg_profile_func_enter, which counts the entry
 * in a table keyed by the function's address. The addresses come from
 * a table the builder wrote (argv[1]) from the binary's symbols and
 * debug information, as offsets from arbor_anchor, so that the binary
 * may be position-independent. Nothing here is instrumented.
 *
 * A crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) is answered with a
 * panic reply naming the innermost frames; the harness then executes
 * itself again on the same descriptors, without the start lines, so
 * that the next request is served by a fresh process and the parent
 * never sees a death it would blame on the next input. Requests are
 * read exactly, never ahead, so that none is lost in the exec.
 *
 * A request is its kind byte, a 16-byte token, a uint32 length and the
 * input; a reply starts with its request's token, which the subject
 * never sees, so that bytes the subject writes to the reply pipe are
 * told from replies. Before the subject runs, the descriptors move to
 * numbers above 100 and /dev/null takes 3, 4 and 5, so that a subject
 * that writes to fd 4 writes to nothing (restart moves them back).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NOINSTR __attribute__((no_instrument_function))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

NOINSTR void arbor_anchor(void) {}

/* A function of the binary, for naming frames; id >= 0 if recorded. */
struct func {
	uintptr_t off, size;
	int32_t id;
	char *name;
};

static struct func *funcs; /* sorted by off */
static size_t nfuncs;
static char *names; /* the recorded functions' names, one per line */
static size_t nameslen;
static uint32_t nnames;

/* The open-addressing table from address offset to id. */
static uintptr_t *slot_key; /* offset + 1; 0 is empty */
static uint32_t *slot_id;
static uintptr_t slot_mask;
static uintptr_t base;

static uint32_t *counts;   /* per id: entries in this run */
static uint32_t *touched;  /* ids with a nonzero count, in order of first entry */
static uint32_t ntouched;

static volatile sig_atomic_t running; /* an input is being run */
static volatile char kind;            /* of the request being run */
static unsigned char token[16];       /* of the request being run */
static int req_fd = 3, rep_fd = 4, par_fd = 5; /* where the protocol's pipes are */
static struct timespec started;

static char **self_argv;
static char *self_path;

NOINSTR static uintptr_t hash(uintptr_t k)
{
	k ^= k >> 17;
	k *= (uintptr_t)0x9E3779B97F4A7C15ull;
	return k ^ (k >> 29);
}

NOINSTR void __cyg_profile_func_enter(void *fn, void *site)
{
	uintptr_t k, h;
	(void)site;
	if (slot_key == NULL) {
		return; /* a constructor, before the table is read */
	}
	k = (uintptr_t)fn - base + 1;
	for (h = hash(k) & slot_mask; slot_key[h] != k; h = (h + 1) & slot_mask) {
		if (slot_key[h] == 0) {
			return;
		}
	}
	uint32_t id = slot_id[h];
	if (counts[id] == 0) {
		touched[ntouched++] = id;
	}
	if (counts[id] != UINT32_MAX) {
		counts[id]++;
	}
}

NOINSTR void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

NOINSTR static void fail(const char *what)
{
	/* Before the start lines: the parent reads this as the status. */
	dprintf(4, "ARBOR2\n%s\n", what);
	_exit(1);
}

/* readtable reads the builder's table:
 *   names <n>         then n lines, the recorded functions' names
 *   funcs <m>         then m lines "<offset hex> <size hex> <id> <name>"
 */
NOINSTR static void readtable(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, i, size = 0;
	ssize_t len;
	FILE *blob;
	unsigned long n;
	if (f == NULL || getline(&line, &cap, f) < 0 || sscanf(line, "names %lu", &n) != 1) {
		fail("the harness's function table is missing or damaged");
	}
	blob = open_memstream(&names, &size);
	for (i = 0; i < n; i++) {
		if ((len = getline(&line, &cap, f)) <= 0) {
			fail("the harness's function table is damaged");
		}
		fwrite(line, 1, (size_t)len, blob);
	}
	fclose(blob);
	nameslen = size;
	nnames = (uint32_t)n;
	if (getline(&line, &cap, f) < 0 || sscanf(line, "funcs %lu", &n) != 1) {
		fail("the harness's function table is damaged");
	}
	funcs = calloc(n + 1, sizeof *funcs);
	for (nfuncs = 0; nfuncs < n; nfuncs++) {
		struct func *fn = &funcs[nfuncs];
		long id;
		int at = 0;
		if ((len = getline(&line, &cap, f)) <= 0 ||
		    sscanf(line, "%lx %lx %ld %n", (unsigned long *)&fn->off, (unsigned long *)&fn->size, &id, &at) != 3 || at == 0 ||
		    id >= (long)nnames) {
			fail("the harness's function table is damaged");
		}
		line[len - 1] = '\0';
		fn->id = (int32_t)id;
		fn->name = strdup(line + at);
	}
	free(line);
	fclose(f);

	uintptr_t slots = 16;
	while (slots < 2 * (uintptr_t)nfuncs) {
		slots *= 2;
	}
	counts = calloc(nnames + 1, sizeof *counts);
	touched = calloc(nnames + 1, sizeof *touched);
	slot_id = calloc(slots, sizeof *slot_id);
	slot_mask = slots - 1;
	uintptr_t *keys = calloc(slots, sizeof *keys);
	for (i = 0; i < nfuncs; i++) {
		uintptr_t k = funcs[i].off + 1, h;
		if (funcs[i].id < 0) {
			continue;
		}
		for (h = hash(k) & slot_mask; keys[h] != 0 && keys[h] != k; h = (h + 1) & slot_mask) {
		}
		keys[h] = k;
		slot_id[h] = (uint32_t)funcs[i].id;
	}
	base = (uintptr_t)&arbor_anchor;
	slot_key = keys;
}

/* A growable reply buffer; the crash path uses its own static one. */
struct buf {
	char *p;
	size_t len, cap;
};

NOINSTR static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->len + n) {
			c *= 2;
		}
		b->p = realloc(b->p, c);
		if (b->p == NULL) {
			_exit(2);
		}
		b->cap = c;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

NOINSTR static void put32(struct buf *b, uint32_t v)
{
	unsigned char x[4] = {v, v >> 8, v >> 16, v >> 24};
	put(b, x, 4);
}

NOINSTR static void put64(struct buf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

NOINSTR static void putblob(struct buf *b, const void *p, size_t n)
{
	put32(b, (uint32_t)n);
	put(b, p, n);
}

NOINSTR static int writeall(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

NOINSTR static int readall(int fd, void *p, size_t n)
{
	char *c = p;
	while (n > 0) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			return -1;
		}
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

NOINSTR static uint64_t since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)(t1.tv_sec - t0->tv_sec) * 1000000000u + (uint64_t)(t1.tv_nsec - t0->tv_nsec);
}

/* putcounts adds the (id, calls) pairs of the run and clears them. */
NOINSTR static void putcounts(struct buf *b, int send)
{
	uint32_t i;
	put32(b, send ? ntouched * 8 : 0);
	for (i = 0; i < ntouched; i++) {
		uint32_t id = touched[i];
		if (send) {
			put32(b, id);
			put32(b, counts[id]);
		}
		counts[id] = 0;
	}
	ntouched = 0;
}

/* lookup finds the function of the binary an address is in. */
NOINSTR static const struct func *lookup(uintptr_t pc)
{
	uintptr_t off = pc - base;
	size_t lo = 0, hi = nfuncs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (funcs[mid].off <= off) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo == 0) {
		return NULL;
	}
	const struct func *f = &funcs[lo - 1];
	return off < f->off + (f->size ? f->size : 1) ? f : NULL;
}

static struct buf crash; /* preallocated at start, used by the handler */

/* frame appends a frame's name: the binary's name for it, or the
 * shared library's symbol, or the library and offset. It reports
 * whether the frame belongs to the subject (the binary, or a library
 * function other than the ones abort raises its signal through). */
NOINSTR static int frame(struct buf *b, void *pc, int sig)
{
	const struct func *f = lookup((uintptr_t)pc);
	Dl_info info;
	char hex[32];
	if (f != NULL) {
		put(b, f->name, strnlen(f->name, 160));
		return 1;
	}
	if (dladdr(pc, &info) == 0 || info.dli_fname == NULL) {
		return 0;
	}
	if (sig == SIGABRT) {
		return 0; /* raise, abort and the like: the caller is the subject */
	}
	if (info.dli_sname != NULL) {
		put(b, info.dli_sname, strnlen(info.dli_sname, 160));
	} else {
		const char *lib = strrchr(info.dli_fname, '/');
		lib = lib ? lib + 1 : info.dli_fname;
		put(b, lib, strnlen(lib, 120));
		snprintf(hex, sizeof hex, "+0x%lx", (unsigned long)((char *)pc - (char *)info.dli_fbase));
		put(b, hex, strlen(hex));
	}
	return 1;
}

NOINSTR static const char *signame(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGILL:
		return "SIGILL";
	case SIGFPE:
		return "SIGFPE";
	case SIGABRT:
		return "SIGABRT";
	}
	return "signal";
}

NOINSTR static int harnessframe(void *pc)
{
	const struct func *f = lookup((uintptr_t)pc);
	return f != NULL && strncmp(f->name, "arbor_", 6) == 0;
}

NOINSTR static void restart(void);

NOINSTR static void oncrash(int sig, siginfo_t *si, void *uc)
{
	void *pcs[64];
	int n, i, top = 0, past = 0;
	struct buf frames = {0};
	char fb[1024];
	(void)si;
	(void)uc;
	if (!running) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	running = 0;
	n = backtrace(pcs, 64);
	frames.p = fb;
	frames.cap = sizeof fb;
	/* The handler's own frames, then the kernel's signal trampoline. */
	for (i = 0; i < n && (harnessframe(pcs[i]) || !past); i++) {
		if (harnessframe(pcs[i])) {
			past = 1;
		}
	}
	int first = ++i;
	for (; i < n && top < 3; i++) {
		size_t mark = frames.len;
		if (harnessframe(pcs[i])) {
			break;
		}
		if (top > 0) {
			put(&frames, "\n", 1);
		}
		/* Outer frames are return addresses, which may be the first byte
		 * after a call at the end of a function: look up the call. */
		void *pc = i > first ? (char *)pcs[i] - 1 : pcs[i];
		if (frames.len + 200 > frames.cap || !frame(&frames, pc, sig)) {
			frames.len = mark;
			continue;
		}
		top++;
	}
	const char *msg = signame(sig);
	crash.len = 0;
	put(&crash, token, sizeof token);
	put(&crash, "\2", 1);
	put64(&crash, since(&started));
	putblob(&crash, msg, strlen(msg));
	putblob(&crash, frames.p, frames.len);
	putcounts(&crash, kind == 'R');
	writeall(rep_fd, crash.p, crash.len);
	restart();
}

/* restart executes the harness again, to serve the next request in a
 * process whose memory the crash did not touch. */
NOINSTR static void restart(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (req_fd != 3) {
		dup2(req_fd, 3);
		dup2(rep_fd, 4);
		dup2(par_fd, 5);
	}
	fcntl(3, F_SETFD, 0);
	fcntl(4, F_SETFD, 0);
	fcntl(5, F_SETFD, 0);
	setenv("ARBOR_HARNESS_RESTARTED", "1", 1);
	execv(self_path, self_argv);
	_exit(2);
}

NOINSTR static void *watch(void *arg)
{
	char b;
	(void)arg;
	while (read(par_fd, &b, 1) < 0 && errno == EINTR) {
	}
	_exit(3);
	return NULL;
}

/* hide moves the protocol's descriptors above 100, closed on exec, and
 * puts /dev/null on 3, 4 and 5. Where it cannot, they stay. */
NOINSTR static void hide(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int hi[3], i;
	if (null < 0) {
		return;
	}
	for (i = 0; i < 3; i++) {
		hi[i] = fcntl(3 + i, F_DUPFD_CLOEXEC, 100);
		if (hi[i] < 0) {
			while (i-- > 0) {
				close(hi[i]);
			}
			close(null);
			return;
		}
	}
	for (i = 0; i < 3; i++) {
		dup2(null, 3 + i);
	}
	close(null);
	req_fd = hi[0];
	rep_fd = hi[1];
	par_fd = hi[2];
}

NOINSTR int main(int argc, char **argv)
{
	static char altstack[1 << 16];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
	struct sigaction sa;
	int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
	pthread_t watcher;
	struct buf reply = {0};
	unsigned char *data = NULL;
	size_t cap = 0;
	size_t i;
	void *warm[2];
	static char exe[4096];
	ssize_t len;

	/* Programs the subject starts must not hold the protocol open
	 * (restart lets the harness itself keep it). */
	for (i = 3; i <= 5; i++) {
		fcntl((int)i, F_SETFD, FD_CLOEXEC);
	}
	if (argc < 2) {
		fail("usage: harness <function table>");
	}
	self_argv = argv;
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	self_path = len > 0 ? (exe[len] = '\0', exe) : argv[0];
	{
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	const char *mem = getenv("ARBOR_HARNESS_MEMORY");
	if (mem != NULL && *mem != '\0') {
		long long n = atoll(mem);
		if (n > 0) {
			struct rlimit rl = {(rlim_t)n, (rlim_t)n};
			setrlimit(RLIMIT_DATA, &rl);
		}
	}
	readtable(argv[1]);
	/* fail() is done with fd 4: from here on the pipes are out of the
	 * subject's way. */
	hide();
	/* The first backtrace loads the unwinder: not in a signal handler. */
	backtrace(warm, 2);
	crash.cap = 64 + 8 * (size_t)nnames + 4096;
	crash.p = malloc(crash.cap);
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = oncrash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		sigaction(sigs[i], &sa, NULL);
	}
	pthread_create(&watcher, NULL, watch, NULL);

	if (getenv("ARBOR_HARNESS_RESTARTED") == NULL) {
		if (LLVMFuzzerInitialize != NULL) {
			LLVMFuzzerInitialize(&argc, &argv);
		}
		put(&reply, "ARBOR2\nok\n", 10);
		putblob(&reply, names, nameslen);
		if (writeall(rep_fd, reply.p, reply.len) < 0) {
			return 1;
		}
	} else if (LLVMFuzzerInitialize != NULL) {
		LLVMFuzzerInitialize(&argc, &argv);
	}
	unsetenv("ARBOR_HARNESS_RESTARTED");
	/* What the initialisation ran is nobody's input's. */
	putcounts(&reply, 0);

	for (;;) {
		unsigned char hdr[21]; /* kind, token, length */
		uint32_t n;
		int r;
		if (readall(req_fd, hdr, sizeof hdr) < 0 || hdr[0] == 'Q') {
			return 0;
		}
		memcpy(token, hdr + 1, sizeof token);
		n = hdr[17] | hdr[18] << 8 | hdr[19] << 16 | (uint32_t)hdr[20] << 24;
		if ((size_t)n + 1 > cap) {
			free(data);
			cap = (size_t)n + 1;
			data = malloc(cap);
			if (data == NULL) {
				return 2;
			}
		}
		if (readall(req_fd, data, n) < 0) {
			return 0;
		}
		kind = (char)hdr[0];
		reply.len = 0;
		putcounts(&reply, 0);
		clock_gettime(CLOCK_MONOTONIC, &started);
		running = 1;
		r = LLVMFuzzerTestOneInput(data, n);
		running = 0;
		uint64_t d = since(&started);
		reply.len = 0;
		put(&reply, token, sizeof token);
		put(&reply, r == 0 ? "\0" : "\1", 1);
		put64(&reply, d);
		if (r == 0) {
			putblob(&reply, "", 0);
		} else {
			char msg[64];
			snprintf(msg, sizeof msg, "LLVMFuzzerTestOneInput returned %d", r);
			putblob(&reply, msg, strlen(msg));
		}
		putblob(&reply, "", 0);
		putcounts(&reply, kind == 'R');
		if (writeall(rep_fd, reply.p, reply.len) < 0) {
			return 0;
		}
	}
}
