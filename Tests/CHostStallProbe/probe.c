#define _GNU_SOURCE
#include "CHostStallProbe.h"
#include <errno.h>
#include <string.h>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

enum { max_cpus = 64, stalls_per_cpu = 4096 };  /* 64 probes at most: more CPUs than that go unwatched */

struct probe_stall { uint64_t deadline, woke; };

struct probe_thread {
    pthread_t thread;
    int cpu;
    int started;
    int count;                       /* written by this probe thread only */
    long wakeups;
    struct probe_stall stalls[stalls_per_cpu];
};

static struct probe_thread probes[max_cpus];
static int probe_count;
static int running;
static atomic_int stop_requested;
static uint64_t interval_ns, threshold_ns;

uint64_t busker_monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *probe_main(void *argument) {
    struct probe_thread *p = argument;
    uint64_t deadline = busker_monotonic_ns() + interval_ns;
    while (!atomic_load_explicit(&stop_requested, memory_order_relaxed)) {
        struct timespec t = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {}
        uint64_t now = busker_monotonic_ns();
        p->wakeups += 1;
        if (now > deadline + threshold_ns && p->count < stalls_per_cpu) {
            p->stalls[p->count].deadline = deadline;
            p->stalls[p->count].woke = now;
            p->count += 1;
        }
        /* After a stall, start afresh from now: one stall, one record. */
        deadline = (now > deadline ? now : deadline) + interval_ns;
    }
    return NULL;
}

int busker_stall_probe_start(int interval_us, int threshold_us, int priority) {
    if (running) return EBUSY;
    interval_ns = (uint64_t)(interval_us > 0 ? interval_us : 1) * 1000u;
    threshold_ns = (uint64_t)(threshold_us > 0 ? threshold_us : 0) * 1000u;
    atomic_store(&stop_requested, 0);
    /* The CPUs this process may run on (a container may allow some only, or CPU 0 may be offline). */
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return errno;
    probe_count = 0;
    int failure = 0;
    for (int c = 0; c < CPU_SETSIZE && probe_count < max_cpus && failure == 0; c++) {
        if (!CPU_ISSET(c, &allowed)) continue;
        struct probe_thread *p = &probes[probe_count];
        memset(p, 0, sizeof *p);
        p->cpu = c;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(c, &set);
        struct sched_param parameter = { .sched_priority = priority };
        if ((failure = pthread_attr_setaffinity_np(&attributes, sizeof set, &set)) == 0 &&
            (failure = pthread_attr_setinheritsched(&attributes, PTHREAD_EXPLICIT_SCHED)) == 0 &&
            (failure = pthread_attr_setschedpolicy(&attributes, SCHED_FIFO)) == 0 &&
            (failure = pthread_attr_setschedparam(&attributes, &parameter)) == 0 &&
            (failure = pthread_create(&p->thread, &attributes, probe_main, p)) == 0) {
            p->started = 1;
            pthread_setname_np(p->thread, "stall-probe");
            probe_count += 1;
        }
        pthread_attr_destroy(&attributes);
    }
    running = 1;
    if (failure != 0) {
        busker_stall_probe_stop();
        return failure;
    }
    return 0;
}

void busker_stall_probe_stop(void) {
    if (!running) return;
    atomic_store(&stop_requested, 1);
    for (int c = 0; c < probe_count; c++) {
        if (probes[c].started) pthread_join(probes[c].thread, NULL);
        probes[c].started = 0;
    }
    running = 0;
}

int busker_stall_probe_count(void) {
    int total = 0;
    for (int c = 0; c < probe_count; c++) total += probes[c].count;
    return total;
}

long busker_stall_probe_wakeups(void) {
    long total = 0;
    for (int c = 0; c < probe_count; c++) total += probes[c].wakeups;
    return total;
}

int busker_stall_probe_get(int index, uint64_t *deadline_ns, uint64_t *woke_ns, int *cpu) {
    if (index < 0) return -1;
    for (int c = 0; c < probe_count; c++) {
        if (index < probes[c].count) {
            *deadline_ns = probes[c].stalls[index].deadline;
            *woke_ns = probes[c].stalls[index].woke;
            *cpu = probes[c].cpu;
            return 0;
        }
        index -= probes[c].count;
    }
    return -1;
}

#else

uint64_t busker_monotonic_ns(void) { return 0; }
int busker_stall_probe_start(int interval_us, int threshold_us, int priority) {
    (void)interval_us; (void)threshold_us; (void)priority;
    return ENOSYS;
}
void busker_stall_probe_stop(void) {}
int busker_stall_probe_count(void) { return 0; }
long busker_stall_probe_wakeups(void) { return 0; }
int busker_stall_probe_get(int index, uint64_t *deadline_ns, uint64_t *woke_ns, int *cpu) {
    (void)index; (void)deadline_ns; (void)woke_ns; (void)cpu;
    return -1;
}

#endif
