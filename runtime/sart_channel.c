/* sart_channel.c — the shared-memory slot between a parent and its FMU host (sart_channel.h):
 * creation, attachment, and the two waits, each a brief spin and then a sleep: on a futex,
 * or on a doorbell pipe when the host is a Windows program under Wine.  The parent's side
 * is POSIX's (Linux's futex and sealed memfd where there, SART_LINUX; growing sleeps and
 * an unlinked shm_open object elsewhere) or Windows' (a win64 wrapper's isolated inners:
 * a nameless section inherited by handle, the host started in a kill-on-close job, the
 * doorbells on its stdin and stdout, the parent's end overlapped); a host built for Windows
 * compiles the portable part and its own side (the mapping by that handle or through Wine's
 * Z: drive, the doorbells on stdin and stdout). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, syscall */
#endif
#if !defined(__linux__) && !defined(_WIN32) && !defined(_DARWIN_C_SOURCE)
#define _DARWIN_C_SOURCE /* macOS: MAP_SHARED and shm_open beside _GNU_SOURCE's names */
#endif

#include "sart_channel.h"

#include <errno.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#else
#include <fcntl.h>
#ifdef SART_LINUX
#include <linux/futex.h>
#include <sys/syscall.h>
#endif
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

/* A sleeping side is woken within this much to look at its peer (death, time limit). */
#define WATCH_SLICE_NS 5000000L

unsigned char *sart_chan_data(const SartChan *ch)
{
	return (unsigned char *)ch->h + SART_CHAN_DATA_OFFSET;
}

unsigned char *sart_chan_log(const SartChan *ch)
{
	return (unsigned char *)ch->h + SART_CHAN_LOG_OFFSET;
}

size_t sart_chan_span(size_t off, size_t n, size_t elem)
{
	size_t start = (off + 7) & ~(size_t)7;
	if (start < off || (elem && n > (SIZE_MAX - start) / elem))
		return 0;
	return start + n * elem;
}

int sart_chan_put_bytes(unsigned char *data, size_t cap, size_t *off, const void *p,
                        size_t size)
{
	uint64_t len = p ? size : 0;
	if (*off > cap || cap - *off < 1 + sizeof len || len > cap - *off - 1 - sizeof len)
		return -1;
	data[(*off)++] = p != NULL;
	memcpy(data + *off, &len, sizeof len);
	*off += sizeof len;
	if (len)
		memcpy(data + *off, p, (size_t)len);
	*off += (size_t)len;
	return 0;
}

int sart_chan_take_bytes(const unsigned char *data, size_t len, size_t *off,
                         const unsigned char **p, size_t *size)
{
	uint64_t n;
	if (*off > len || len - *off < 1 + sizeof n)
		return -1;
	int present = data[(*off)++] != 0;
	memcpy(&n, data + *off, sizeof n);
	*off += sizeof n;
	if (n > len - *off)
		return -1;
	*p = present ? data + *off : NULL;
	*size = (size_t)n;
	*off += (size_t)n;
	return 0;
}

static double now_us(void)
{
#ifdef _WIN32
	LARGE_INTEGER t, f;
	QueryPerformanceCounter(&t);
	QueryPerformanceFrequency(&f);
	return (double)t.QuadPart * 1e6 / (double)f.QuadPart;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
#endif
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static uint32_t load_word(const uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_SEQ_CST);
}

static void store_word(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
}

/* How long to spin next, adapted as adaptive mutexes do: a spin that ended in sleep
 * shortens the next (down to SPIN_FLOOR_US), one that saw the change restores the full
 * spin.  When parent and child share one core, spinning only delays the peer: the spin
 * then shrinks to the floor and the wake-ups are the futex's. */
#define SPIN_FLOOR_US 5.0

static void adapt_spin(SartChan *ch, int seen)
{
	double next = seen ? ch->spin_us : ch->spin_now * 0.75;
	if (next < SPIN_FLOOR_US)
		next = ch->spin_us < SPIN_FLOOR_US ? ch->spin_us : SPIN_FLOOR_US;
	ch->spin_now = next;
}

/* Spins up to spin_us while *w == val; returns whether it changed. */
static int spin_while(const uint32_t *w, uint32_t val, double spin_us)
{
	if (load_word(w) != val)
		return 1;
	if (spin_us <= 0)
		return 0;
	double end = now_us() + spin_us;
	for (unsigned i = 1;; i++) {
		cpu_relax();
		if (load_word(w) != val)
			return 1;
		if ((i & 63) == 0 && now_us() >= end)
			return 0;
	}
}

static void no_chan(SartChan *ch)
{
	memset(ch, 0, sizeof *ch);
	ch->fd = -1;
	ch->bell_wr = -1;
	ch->bell_rd = -1;
}

/* The slot's size for a requested one (0: the default); 0 with errno set when it is too
 * small to hold the header, the log and a usable data area. */
static size_t slot_size(size_t size)
{
	if (!size)
		size = (size_t)4 << 20;
	if (size < SART_CHAN_MIN_SIZE + SART_CHAN_DATA_OFFSET) {
		errno = EINVAL;
		return 0;
	}
	return size;
}

/* The mapping p of size bytes becomes ch's view of the slot. */
static void take_view(SartChan *ch, void *p, size_t size, double spin_us)
{
	ch->h = p;
	ch->size = size;
	ch->data_cap = size - SART_CHAN_DATA_OFFSET;
	ch->spin_us = spin_us;
	ch->spin_now = spin_us;
}

/* The parent's new slot says what it is, for the host to check. */
static void stamp_header(SartChan *ch)
{
	ch->h->magic = SART_CHAN_MAGIC;
	ch->h->version = SART_CHAN_VERSION;
	ch->h->size = ch->size;
}

/* ---- POSIX (Linux's futex and memfd where there): the parent, and the host ----------------- */
#ifndef _WIN32

#ifdef SART_LINUX
/* Sleeps while *w == val, at most ns nanoseconds (0: no limit); shared, not private: the
 * word lives in memory two processes map. */
static void futex_wait(uint32_t *w, uint32_t val, long ns)
{
	struct timespec ts = {0, ns};
	syscall(SYS_futex, w, FUTEX_WAIT, val, ns ? &ts : NULL, NULL, 0);
}

static void futex_wake(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* An unnamed memory file, sealed at its size: a child that shrank it would make the
 * parent's next access to the mapping a SIGBUS. */
static int shared_file(size_t size)
{
	int fd = memfd_create("sacc-fmu-host", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
#else
/* Without futexes: the word is looked at after sleeps that grow from 20 us to 1 ms, so a
 * sleeping side answers within about a millisecond (a spin that sees the change costs
 * what it costs on Linux), at most ns nanoseconds (0: no limit). */
static void futex_wait(uint32_t *w, uint32_t val, long ns)
{
	long slept = 0, nap = 20000L;
	while (load_word(w) == val && (!ns || slept < ns)) {
		struct timespec ts = {0, ns && ns - slept < nap ? ns - slept : nap};
		nanosleep(&ts, NULL);
		slept += ts.tv_nsec;
		if (nap < 1000000L)
			nap *= 2;
	}
}

static void futex_wake(uint32_t *w)
{
	(void)w; /* the sleeper looks by itself */
}

/* A shared memory object unlinked at once, so that it has no name left; not sealed (no
 * seals outside Linux): a host that shrank it could make the parent's next access a
 * SIGBUS, which isolation there does not guard against. */
static int shared_file(size_t size)
{
	char name[64];
	static const char digits[] = "0123456789abcdef";
	struct timespec now;
	for (int attempt = 0; attempt < 16; attempt++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		unsigned long long x = (unsigned long long)now.tv_nsec * 2654435761u ^
		                       (unsigned long long)getpid() << 20 ^ (unsigned)attempt;
		char *p = name + snprintf(name, sizeof name, "/sacc-fmu-host-%ld-", (long)getpid());
		for (int i = 0; i < 8; i++, x >>= 4)
			*p++ = digits[x & 15];
		*p = '\0';
		int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return -1;
		shm_unlink(name);
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || ftruncate(fd, (off_t)size) != 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		return fd;
	}
	errno = EEXIST;
	return -1;
}
#endif

int sart_chan_create(SartChan *ch, size_t size, double spin_us)
{
	no_chan(ch);
	size = slot_size(size);
	if (!size)
		return -1;
	int fd = shared_file(size);
	if (fd < 0)
		return -1;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	take_view(ch, p, size, spin_us);
	ch->fd = fd;
	stamp_header(ch);
	return 0;
}

int sart_chan_attach(SartChan *ch, int fd, double spin_us, const char **why)
{
	struct stat st;
	SartChanHeader hdr;
	no_chan(ch);
	if (fstat(fd, &st) != 0) {
		*why = "the channel descriptor is not open";
		return -1;
	}
	size_t size = (size_t)st.st_size;
	if (st.st_size < 0 || size < SART_CHAN_DATA_OFFSET + SART_CHAN_MIN_SIZE) {
		*why = "the shared memory is too small to be a channel";
		return -1;
	}
	if (pread(fd, &hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr || hdr.magic != SART_CHAN_MAGIC ||
	    hdr.version != SART_CHAN_VERSION) {
		*why = "the shared memory is not a channel of this version";
		return -1;
	}
	if (hdr.size != size) {
		*why = "the shared memory is cut short (its size is not the one announced)";
		return -1;
	}
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		*why = "cannot map the shared memory";
		return -1;
	}
	take_view(ch, p, size, spin_us);
	ch->fd = fd;
	return 0;
}

void sart_chan_set_bells(SartChan *ch, int wr, int rd)
{
	/* never blocked by a full pipe (the host has wake-ups enough pending then), and the
	 * parent drains what is there without waiting */
	fcntl(wr, F_SETFL, fcntl(wr, F_GETFL) | O_NONBLOCK);
	fcntl(rd, F_SETFL, fcntl(rd, F_GETFL) | O_NONBLOCK);
	ch->bell_wr = wr;
	ch->bell_rd = rd;
}

void sart_chan_close(SartChan *ch)
{
	if (ch->h)
		munmap(ch->h, ch->size);
	if (ch->fd >= 0)
		close(ch->fd);
	if (ch->bell_wr >= 0)
		close(ch->bell_wr);
	if (ch->bell_rd >= 0)
		close(ch->bell_rd);
	ch->h = NULL;
	ch->fd = -1;
	ch->bell_wr = -1;
	ch->bell_rd = -1;
}

/* Wakes a Wine host: one byte on its stdin.  A host that died leaves the pipe without a
 * reader: the write's SIGPIPE is held back in this thread and taken, never delivered to a
 * process that did not ask for it (the death itself is seen by the wait). */
static void ring_host(SartChan *ch)
{
	sigset_t pipe_only, old;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	int pending_before = 0;
	sigset_t pend;
	if (sigpending(&pend) == 0)
		pending_before = sigismember(&pend, SIGPIPE);
	char b = 1;
	ssize_t n = write(ch->bell_wr, &b, 1);
	if (n < 0 && errno == EPIPE && !pending_before) {
		struct timespec zero = {0, 0};
		sigtimedwait(&pipe_only, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The parent's sleep of at most one watch slice while the answer word is 0: on the futex,
 * or on the Wine host's doorbell (its bytes drained; an ended pipe sleeps the slice). */
static void parent_sleep(SartChan *ch)
{
	SartChanHeader *h = ch->h;
	if (ch->bell_rd < 0) {
		futex_wait(&h->ans_seq, 0, WATCH_SLICE_NS);
		return;
	}
	struct pollfd p = {ch->bell_rd, POLLIN, 0};
	if (poll(&p, 1, (int)(WATCH_SLICE_NS / 1000000L)) <= 0)
		return;
	char buf[64];
	ssize_t n = read(ch->bell_rd, buf, sizeof buf);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		struct timespec slice = {0, WATCH_SLICE_NS};
		nanosleep(&slice, NULL);
	}
}

/* Kills the child (a hang) and reaps it. */
static void kill_and_reap(SartChan *ch, long pid, int *wstatus)
{
	(void)ch;
	kill((pid_t)pid, SIGKILL);
	while (waitpid((pid_t)pid, wstatus, 0) < 0 && errno == EINTR)
		;
}

/* Wakes a sleeping host: its doorbell, or the futex. */
static void wake_host(SartChan *ch)
{
	if (ch->bell_wr >= 0)
		ring_host(ch);
	else
		futex_wake(&ch->h->req_seq);
}

/* Whether the child is still there to wait for (SART_WAIT_ANSWERED), or how it is not:
 * DIED with its wait status (reaped), GONE, ERROR. */
static SartChanWait watch_child(SartChan *ch, long pid, int *wstatus)
{
	(void)ch;
	pid_t r = waitpid((pid_t)pid, wstatus, WNOHANG);
	if (r == (pid_t)pid)
		return SART_WAIT_DIED;
	/* an importer that ignores SIGCHLD has its children reaped at once: then only
	 * whether the process is still there can be known */
	if (r < 0 && errno == ECHILD && kill((pid_t)pid, 0) != 0)
		return SART_WAIT_GONE;
	if (r < 0 && errno != EINTR && errno != ECHILD)
		return SART_WAIT_ERROR;
	return SART_WAIT_ANSWERED;
}

/* The host's sleep while the request word is last; 0 when the parent is gone. */
static int child_sleep(SartChan *ch, uint32_t last)
{
	futex_wait(&ch->h->req_seq, last, 0);
	return 1;
}

static void wake_parent(SartChan *ch)
{
	futex_wake(&ch->h->ans_seq);
}
#else
/* ---- Windows: the parent of a host (a win64 wrapper's isolated inners), and the host ------ */

/* The parent's read of the host's doorbell, overlapped so that a wait can also watch the
 * host's process and a time limit; one stays pending from one sleep to the next. */
typedef struct WinBell {
	OVERLAPPED ov;
	char buf[64];
	int pending;
} WinBell;

#define WATCH_SLICE_MS ((DWORD)(WATCH_SLICE_NS / 1000000L))

int sart_chan_create(SartChan *ch, size_t size, double spin_us)
{
	no_chan(ch);
	size = slot_size(size);
	if (!size)
		return -1;
	/* backed by the paging file and nameless: only the handle the host inherits reaches it,
	 * and a section cannot be shrunk under the parent's view */
	uint64_t size64 = size;
	HANDLE map = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE,
	                                (DWORD)(size64 >> 32), (DWORD)size64, NULL);
	void *p = map ? MapViewOfFile(map, FILE_MAP_ALL_ACCESS, 0, 0, size) : NULL;
	if (!p) {
		if (map)
			CloseHandle(map);
		errno = ENOMEM;
		return -1;
	}
	take_view(ch, p, size, spin_us);
	ch->win_map = map;
	stamp_header(ch);
	return 0;
}

/* Host: maps the section map and checks it is a channel of this version (its announced
 * size within the view), then takes stdin and stdout as its doorbells. */
static int attach_map(SartChan *ch, HANDLE map, double spin_us, const char **why)
{
	void *p = MapViewOfFile(map, FILE_MAP_ALL_ACCESS, 0, 0, 0);
	MEMORY_BASIC_INFORMATION mi;
	if (!p || VirtualQuery(p, &mi, sizeof mi) != sizeof mi) {
		if (p)
			UnmapViewOfFile(p);
		CloseHandle(map);
		*why = "cannot map the shared memory";
		return -1;
	}
	SartChanHeader hdr;
	memcpy(&hdr, p, sizeof hdr);
	if (mi.RegionSize < SART_CHAN_DATA_OFFSET + SART_CHAN_MIN_SIZE ||
	    hdr.magic != SART_CHAN_MAGIC || hdr.version != SART_CHAN_VERSION ||
	    hdr.size < SART_CHAN_DATA_OFFSET + SART_CHAN_MIN_SIZE || hdr.size > mi.RegionSize) {
		UnmapViewOfFile(p);
		CloseHandle(map);
		*why = "the shared memory is not a channel of this version";
		return -1;
	}
	take_view(ch, p, (size_t)hdr.size, spin_us);
	ch->win_map = map;
	/* the doorbells are the standard handles as the parent made them; what the FMU writes
	 * to stdout goes to stderr from now on, and it reads nothing of the parent's */
	ch->win_in = GetStdHandle(STD_INPUT_HANDLE);
	/* a handle of its own: the C library's stdout is then pointed at stderr, which closes
	 * the handle it had */
	HANDLE self = GetCurrentProcess(), out = NULL;
	if (!DuplicateHandle(self, GetStdHandle(STD_OUTPUT_HANDLE), self, &out, 0, FALSE,
	                     DUPLICATE_SAME_ACCESS)) {
		sart_chan_close(ch);
		*why = "cannot take the doorbell (standard output)";
		return -1;
	}
	ch->win_out = out;
	SetStdHandle(STD_OUTPUT_HANDLE, GetStdHandle(STD_ERROR_HANDLE));
	fflush(stdout);
	_dup2(2, 1);
	return 0;
}

int sart_chan_attach_path(SartChan *ch, const char *path, double spin_us, const char **why)
{
	no_chan(ch);
	HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE,
	                       FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
	if (f == INVALID_HANDLE_VALUE) {
		*why = "cannot open the shared memory (the parent's descriptor through Z:)";
		return -1;
	}
	LARGE_INTEGER size;
	/* a file shorter than the header would map as a view the header runs past */
	if (!GetFileSizeEx(f, &size) ||
	    size.QuadPart < (LONGLONG)(SART_CHAN_DATA_OFFSET + SART_CHAN_MIN_SIZE)) {
		CloseHandle(f);
		*why = "the shared memory is not a channel of this version";
		return -1;
	}
	HANDLE map = CreateFileMappingA(f, NULL, PAGE_READWRITE, 0, 0, NULL);
	CloseHandle(f); /* the mapping keeps the file */
	if (!map) {
		*why = "cannot map the shared memory";
		return -1;
	}
	return attach_map(ch, map, spin_us, why);
}

int sart_chan_attach_handle(SartChan *ch, unsigned long long handle, double spin_us,
                            const char **why)
{
	no_chan(ch);
	/* a handle that is no section the parent gave fails to map */
	return attach_map(ch, (HANDLE)(uintptr_t)handle, spin_us, why);
}

void sart_chan_set_bells(SartChan *ch, int wr, int rd)
{
	(void)ch;
	(void)wr;
	(void)rd;
}

/* Parent: a pipe name no other process uses (the first instance is this one's, or making
 * it fails and another name is tried). */
static HANDLE bell_pipe(char *name, size_t size)
{
	for (unsigned attempt = 0; attempt < 16; attempt++) {
		LARGE_INTEGER t;
		QueryPerformanceCounter(&t);
		snprintf(name, size, "\\\\.\\pipe\\sacc-fmu-host-%lu-%llx-%u",
		         (unsigned long)GetCurrentProcessId(),
		         (unsigned long long)t.QuadPart * 2654435761ull, attempt);
		HANDLE h = CreateNamedPipeA(name, PIPE_ACCESS_INBOUND | FILE_FLAG_OVERLAPPED |
		                                      FILE_FLAG_FIRST_PIPE_INSTANCE,
		                            PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT |
		                                PIPE_REJECT_REMOTE_CLIENTS,
		                            1, 4096, 4096, 0, NULL);
		if (h != INVALID_HANDLE_VALUE || GetLastError() != ERROR_ACCESS_DENIED)
			return h;
	}
	return INVALID_HANDLE_VALUE;
}

/* Starts host in its own process, given only these handles (PROC_THREAD_ATTRIBUTE_
 * HANDLE_LIST, so that hosts other threads start at once get none of each other's): the
 * section, its stdin (our doorbell to it), its stdout (its doorbell to us), stderr.  0, or
 * -1 with the call that failed in err. */
static int create_host(SartChan *ch, char *cmd, HANDLE inherit[4], PROCESS_INFORMATION *pi,
                       char *err, size_t errsize)
{
	SIZE_T attr_size = 0;
	InitializeProcThreadAttributeList(NULL, 1, 0, &attr_size);
	LPPROC_THREAD_ATTRIBUTE_LIST attrs = malloc(attr_size);
	STARTUPINFOEXA si;
	memset(&si, 0, sizeof si);
	si.StartupInfo.cb = sizeof si;
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = inherit[1];
	si.StartupInfo.hStdOutput = inherit[2];
	si.StartupInfo.hStdError = inherit[3];
	int ok = attrs && InitializeProcThreadAttributeList(attrs, 1, 0, &attr_size);
	if (ok && !UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit,
	                                     4 * sizeof(HANDLE), NULL, NULL)) {
		DeleteProcThreadAttributeList(attrs);
		ok = 0;
	}
	si.lpAttributeList = ok ? attrs : NULL;
	/* suspended until it is in the job: it runs nothing that could outlive us */
	ok = CreateProcessA(NULL, cmd, NULL, NULL, TRUE,
	                    CREATE_SUSPENDED | CREATE_NO_WINDOW |
	                        (ok ? EXTENDED_STARTUPINFO_PRESENT : 0),
	                    NULL, NULL, &si.StartupInfo, pi);
	DWORD code = GetLastError();
	if (si.lpAttributeList)
		DeleteProcThreadAttributeList(attrs);
	free(attrs);
	if (!ok) {
		snprintf(err, errsize, "CreateProcess failed (error %lu)", (unsigned long)code);
		return -1;
	}
	/* a job that kills the host when its last handle closes: ours, closed at the latest
	 * when this process ends however it ends.  Where jobs do not nest (an importer already
	 * in a job, before Windows 8) the host's watchdog on this process ends it instead. */
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
	memset(&li, 0, sizeof li);
	li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	HANDLE job = CreateJobObjectA(NULL, NULL);
	if (job && (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li,
	                                     sizeof li) ||
	            !AssignProcessToJobObject(job, pi->hProcess))) {
		CloseHandle(job);
		job = NULL;
	}
	ch->win_job = job;
	ResumeThread(pi->hThread);
	CloseHandle(pi->hThread);
	return 0;
}

int sart_chan_start_host(SartChan *ch, const char *host, const char *spin, long *pid,
                         char *err, size_t errsize)
{
	HANDLE self = GetCurrentProcess();
	/* the child's ends, inheritable: section, stdin, stdout, stderr */
	HANDLE inherit[4] = {NULL, NULL, INVALID_HANDLE_VALUE, NULL};
	HANDLE to_host = NULL, from_host = INVALID_HANDLE_VALUE;
	SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
	char name[96];
	int rc = -1;
	WinBell *bell = calloc(1, sizeof *bell);
	if (!bell || !(bell->ov.hEvent = CreateEventA(NULL, TRUE, FALSE, NULL))) {
		snprintf(err, errsize, "out of memory");
		goto done;
	}
	if (!DuplicateHandle(self, ch->win_map, self, &inherit[0], 0, TRUE, DUPLICATE_SAME_ACCESS) ||
	    !CreatePipe(&inherit[1], &to_host, NULL, 0) ||
	    !SetHandleInformation(inherit[1], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT) ||
	    (from_host = bell_pipe(name, sizeof name)) == INVALID_HANDLE_VALUE ||
	    (inherit[2] = CreateFileA(name, GENERIC_WRITE, 0, &sa, OPEN_EXISTING, 0, NULL)) ==
	        INVALID_HANDLE_VALUE) {
		snprintf(err, errsize, "cannot make the shared handles (error %lu)",
		         (unsigned long)GetLastError());
		goto done;
	}
	/* the host's stderr is ours, or NUL when we have none */
	HANDLE mine = GetStdHandle(STD_ERROR_HANDLE);
	if (!mine || mine == INVALID_HANDLE_VALUE ||
	    !DuplicateHandle(self, mine, self, &inherit[3], 0, TRUE, DUPLICATE_SAME_ACCESS))
		inherit[3] = CreateFileA("NUL", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
		                         OPEN_EXISTING, 0, NULL);
	if (inherit[3] == INVALID_HANDLE_VALUE)
		inherit[3] = NULL;
	size_t len = strlen(host) + strlen(spin) + 96;
	char *cmd = malloc(len);
	if (!cmd) {
		snprintf(err, errsize, "out of memory");
		goto done;
	}
	/* what the Linux host gets in its argv; the section by the handle's number, which an
	 * inherited handle keeps in the child */
	snprintf(cmd, len, "\"%s\" sart-host handle=%llu %lu %s", host,
	         (unsigned long long)(uintptr_t)inherit[0], (unsigned long)GetCurrentProcessId(),
	         spin);
	PROCESS_INFORMATION pi;
	rc = create_host(ch, cmd, inherit, &pi, err, errsize);
	free(cmd);
	if (rc == 0) {
		ch->win_proc = pi.hProcess;
		ch->win_out = to_host;
		ch->win_in = from_host;
		ch->win_bell = bell;
		to_host = NULL;
		from_host = INVALID_HANDLE_VALUE;
		bell = NULL;
		*pid = (long)pi.dwProcessId;
	}
done:
	for (int i = 0; i < 4; i++)
		if (inherit[i] && inherit[i] != INVALID_HANDLE_VALUE)
			CloseHandle(inherit[i]);
	if (to_host)
		CloseHandle(to_host);
	if (from_host != INVALID_HANDLE_VALUE)
		CloseHandle(from_host);
	if (bell && bell->ov.hEvent)
		CloseHandle(bell->ov.hEvent);
	free(bell);
	return rc;
}

int sart_chan_host_ended(SartChan *ch, unsigned ms)
{
	return !ch->win_proc || WaitForSingleObject(ch->win_proc, ms) == WAIT_OBJECT_0;
}

void sart_chan_end_host(SartChan *ch)
{
	if (!ch->win_proc)
		return;
	if (WaitForSingleObject(ch->win_proc, 0) != WAIT_OBJECT_0) {
		TerminateProcess(ch->win_proc, 1);
		WaitForSingleObject(ch->win_proc, INFINITE);
	}
}

void sart_chan_close(SartChan *ch)
{
	WinBell *bell = ch->win_bell;
	if (bell) {
		/* the pending read writes into bell until it is cancelled and done */
		if (bell->pending) {
			DWORD n;
			CancelIo(ch->win_in);
			GetOverlappedResult(ch->win_in, &bell->ov, &n, TRUE);
		}
		CloseHandle(bell->ov.hEvent);
		free(bell);
		CloseHandle(ch->win_in); /* the parent's own: the host's stdin is not closed */
	}
	if (ch->h)
		UnmapViewOfFile(ch->h);
	if (ch->win_map)
		CloseHandle(ch->win_map);
	if (ch->win_out)
		CloseHandle(ch->win_out);
	if (ch->win_job)
		CloseHandle(ch->win_job); /* kills a host still in it */
	if (ch->win_proc)
		CloseHandle(ch->win_proc);
	ch->h = NULL;
	ch->win_map = ch->win_out = ch->win_in = ch->win_job = ch->win_proc = ch->win_bell = NULL;
}

/* Parent: one byte on the host's stdin.  A host that died leaves a broken pipe, and the
 * write fails (Windows has no SIGPIPE); the wait sees the death. */
static void wake_host(SartChan *ch)
{
	char b = 1;
	DWORD n;
	WriteFile(ch->win_out, &b, 1, &n, NULL);
}

/* The parent's sleep of at most one watch slice while the answer word is 0: on the host's
 * doorbell and its process at once (a doorbell's bytes are drained; an ended pipe sleeps
 * on the process alone). */
static void parent_sleep(SartChan *ch)
{
	WinBell *b = ch->win_bell;
	if (!b->pending) {
		DWORD n;
		if (ReadFile(ch->win_in, b->buf, sizeof b->buf, &n, &b->ov))
			return;
		if (GetLastError() != ERROR_IO_PENDING) {
			WaitForSingleObject(ch->win_proc, WATCH_SLICE_MS);
			return;
		}
		b->pending = 1;
	}
	HANDLE w[2] = {b->ov.hEvent, ch->win_proc};
	if (WaitForMultipleObjects(2, w, FALSE, WATCH_SLICE_MS) == WAIT_OBJECT_0) {
		DWORD n;
		GetOverlappedResult(ch->win_in, &b->ov, &n, FALSE);
		b->pending = 0;
	}
}

/* Kills the host (a hang) and waits for its end; *wstatus its exit code. */
static void kill_and_reap(SartChan *ch, long pid, int *wstatus)
{
	DWORD code = 1;
	(void)pid;
	sart_chan_end_host(ch);
	GetExitCodeProcess(ch->win_proc, &code);
	*wstatus = (int)code;
}

/* SART_WAIT_ANSWERED while the host runs; DIED with its exit code once it ended. */
static SartChanWait watch_child(SartChan *ch, long pid, int *wstatus)
{
	DWORD code = 0;
	(void)pid;
	if (WaitForSingleObject(ch->win_proc, 0) != WAIT_OBJECT_0)
		return SART_WAIT_ANSWERED;
	if (!GetExitCodeProcess(ch->win_proc, &code))
		return SART_WAIT_ERROR;
	*wstatus = (int)code;
	return SART_WAIT_DIED;
}

/* The host's sleep: a doorbell byte on stdin.  0 at the pipe's end: the parent closed it,
 * or died. */
static int child_sleep(SartChan *ch, uint32_t last)
{
	char b;
	DWORD n = 0;
	(void)last;
	return ReadFile(ch->win_in, &b, 1, &n, NULL) && n == 1;
}

static void wake_parent(SartChan *ch)
{
	char b = 1;
	DWORD n;
	WriteFile(ch->win_out, &b, 1, &n, NULL);
}
#endif

/* ---- the parent's call, on either platform ------------------------------------------------- */

SartChanWait sart_chan_call(SartChan *ch, long pid, double timeout, uint32_t *seq,
                            int *wstatus)
{
	SartChanHeader *h = ch->h;
	uint32_t s = ch->seq + 1;
	if (s == 0)
		s = 1; /* 0 is the answer word's "nothing yet" */
	ch->seq = s;
	/* the answer word must not already read as this call's answer */
	store_word(&h->ans_seq, 0);
	*seq = s;
	store_word(&h->req_seq, s);
	if (load_word(&h->child_sleeping))
		wake_host(ch);
	int seen = spin_while(&h->ans_seq, 0, ch->spin_now);
	adapt_spin(ch, seen);
	if (seen)
		return SART_WAIT_ANSWERED;
	double deadline = timeout > 0 ? now_us() + timeout * 1e6 : 0;
	for (;;) {
		store_word(&h->parent_sleeping, 1);
		if (load_word(&h->ans_seq) == 0)
			parent_sleep(ch);
		store_word(&h->parent_sleeping, 0);
		if (load_word(&h->ans_seq) != 0)
			return SART_WAIT_ANSWERED;
		SartChanWait w = watch_child(ch, pid, wstatus);
		if (w != SART_WAIT_ANSWERED)
			return w;
		if (deadline && now_us() >= deadline) {
			kill_and_reap(ch, pid, wstatus);
			return SART_WAIT_TIMEOUT;
		}
	}
}

/* ---- the host's waits, on either platform -------------------------------------------------- */

uint32_t sart_chan_next(SartChan *ch, uint32_t last)
{
	SartChanHeader *h = ch->h;
	for (;;) {
		int seen = spin_while(&h->req_seq, last, ch->spin_now);
		adapt_spin(ch, seen);
		if (seen)
			return load_word(&h->req_seq);
		store_word(&h->child_sleeping, 1);
		if (load_word(&h->req_seq) == last && !child_sleep(ch, last))
			return 0;
		store_word(&h->child_sleeping, 0);
	}
}

void sart_chan_answer(SartChan *ch, uint32_t seq)
{
	SartChanHeader *h = ch->h;
	store_word(&h->ans_seq, seq);
	if (load_word(&h->parent_sleeping))
		wake_parent(ch);
}
