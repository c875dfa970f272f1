// itimer.c: when do POSIX interval timers actually fire?
// The signal handler records CLOCK_MONOTONIC at every SIGPROF while the main
// thread spins. Mechanisms are those async-profiler uses on Linux:
//   itimer     setitimer(ITIMER_PROF)                    (async-profiler "itimer")
//   proc-cpu   timer_create(CLOCK_PROCESS_CPUTIME_ID)
//   thread-cpu timer_create(CLOCK_THREAD_CPUTIME_ID) + SIGEV_THREAD_ID
//                                                        (async-profiler "ctimer")
//   monotonic  timer_create(CLOCK_MONOTONIC)             (wall-clock timer)
// Usage: itimer <mode> <period_us> <ticks> <extra_busy_threads> <out_file>
// Writes one line per tick to out_file: "<CLOCK_MONOTONIC ns> <cpu-clock ns>", where the
// cpu clock is the one the timer counts (process CPU time for itimer/proc-cpu, the
// thread's CPU time for thread-cpu; for monotonic it is the process CPU time). The
// header gives start_ns, CLOCK_MONOTONIC read just before the timer is armed: for the
// monotonic timer tick k is due at start_ns + k*period, so its lateness is measured
// (over by the arming call's own time, about a microsecond).
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long *ts, *cs;
static clockid_t cpuclk = CLOCK_PROCESS_CPUTIME_ID;
static volatile int n, want;
static volatile int done;
static volatile unsigned long long sink;

static void on_prof(int sig, siginfo_t *si, void *uc) {
    (void)sig; (void)si; (void)uc;
    struct timespec t, c;
    clock_gettime(CLOCK_MONOTONIC, &t);
    clock_gettime(cpuclk, &c);
    if (n < want) {
        ts[n] = (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
        cs[n] = (long long)c.tv_sec * 1000000000LL + c.tv_nsec;
        n++;
    }
    if (n >= want) done = 1;
}

static void *busy(void *arg) {
    (void)arg;
    unsigned long long x = 1;
    while (!done) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sink += x;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s itimer|proc-cpu|thread-cpu|monotonic period_us ticks extra_busy out\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    long period_us = atol(argv[2]);
    want = atoi(argv[3]);
    int extra = atoi(argv[4]);
    ts = calloc(want, sizeof *ts);
    cs = calloc(want, sizeof *cs);
    if (strcmp(mode, "thread-cpu") == 0) cpuclk = CLOCK_THREAD_CPUTIME_ID;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);

    // Extra spinning threads block SIGPROF so that every tick is handled on
    // the main thread (for process-wide timers the kernel may otherwise pick
    // any thread; the timestamp would be the same but this keeps it simple).
    sigset_t prof;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &prof, NULL);
    for (int i = 0; i < extra; i++) {
        pthread_t th;
        pthread_create(&th, NULL, busy, NULL);
    }
    pthread_sigmask(SIG_UNBLOCK, &prof, NULL);

    struct timespec per = {period_us / 1000000, (period_us % 1000000) * 1000};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long long start = (long long)t0.tv_sec * 1000000000LL + t0.tv_nsec;
    if (strcmp(mode, "itimer") == 0) {
        struct itimerval it = {{per.tv_sec, per.tv_nsec / 1000}, {per.tv_sec, per.tv_nsec / 1000}};
        if (setitimer(ITIMER_PROF, &it, NULL) != 0) { perror("setitimer"); return 1; }
    } else {
        clockid_t clk;
        struct sigevent sev;
        memset(&sev, 0, sizeof sev);
        sev.sigev_signo = SIGPROF;
        sev.sigev_notify = SIGEV_SIGNAL;
        if (strcmp(mode, "proc-cpu") == 0) clk = CLOCK_PROCESS_CPUTIME_ID;
        else if (strcmp(mode, "monotonic") == 0) clk = CLOCK_MONOTONIC;
        else if (strcmp(mode, "thread-cpu") == 0) {
            clk = CLOCK_THREAD_CPUTIME_ID;
            sev.sigev_notify = SIGEV_THREAD_ID;
            sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
        } else { fprintf(stderr, "bad mode %s\n", mode); return 2; }
        timer_t tid;
        if (timer_create(clk, &sev, &tid) != 0) { perror("timer_create"); return 1; }
        struct itimerspec its = {per, per};
        if (timer_settime(tid, 0, &its, NULL) != 0) { perror("timer_settime"); return 1; }
    }

    unsigned long long x = 1;
    while (!done) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sink += x;

    FILE *f = fopen(argv[5], "w");
    if (!f) { perror(argv[5]); return 1; }
    fprintf(f, "# mode=%s period_us=%ld extra_busy=%d start_ns=%lld\n", mode, period_us, extra, start);
    for (int i = 0; i < n; i++) fprintf(f, "%lld %lld\n", ts[i], cs[i]);
    fclose(f);
    return 0;
}
