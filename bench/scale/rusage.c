/* rusage.c — `make bench-scale`'s stopwatch: runs a command and prints what it cost, for
 * run.sh to read: "rusage CPU_SECONDS MAXRSS_KIB", the CPU time (user + system, to the
 * microsecond, which /usr/bin/time rounds to 10 ms) and the largest resident set of the
 * command's process.  Exits with the command's status (1 when it could not be run or was
 * killed by a signal), so that a failed run fails the benchmark. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rusage COMMAND [ARG...]\n");
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "rusage: cannot run %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	/* the one child waited for: RUSAGE_CHILDREN is its figures (POSIX, unlike wait4) */
	if (waitpid(pid, &status, 0) != pid || getrusage(RUSAGE_CHILDREN, &ru) != 0) {
		perror("rusage: waitpid");
		return 1;
	}
	if (!WIFEXITED(status)) {
		fprintf(stderr, "rusage: %s was killed by signal %d\n", argv[1], WTERMSIG(status));
		return 1;
	}
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	             1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	printf("rusage %.6f %ld\n", cpu, ru.ru_maxrss);
	return WEXITSTATUS(status);
}
