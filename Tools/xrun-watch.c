// xrun-watch: places a JACK server's xruns against the host's CPU stalls.
//
//   xrun-watch [--threshold-us N] [--window-ms N]      (runs until SIGINT/SIGTERM)
//
// Opens a JACK client ("xrun-watch", on $JACK_DEFAULT_SERVER) whose xrun
// callback stamps every xrun the server reports (to every client: the same
// notifications Busker's JACK driver counts) with CLOCK_MONOTONIC, on its
// threads at SCHED_FIFO 85, while the
// host stall probe (Tests/CHostStallProbe: one SCHED_FIFO 90 thread pinned to
// each CPU, waking every millisecond) records each wake-up later than the
// threshold (default 667 us, half a 64-frame period at 48 kHz). A late
// wake-up of a thread that outranks everything on its CPU means the CPU was
// not running at all (on a VM: the hypervisor had it), and nothing pinned
// there ran, whatever its priority.
//
// SIGUSR1 ends the measured window (xruns after it, such as those of the
// clients closing, are left out); on SIGINT or SIGTERM it prints one line
// per xrun on no stall and a summary: an xrun is on a stall when a stall overlaps the window before it
// (default 25 ms: the server notices a late client at the next cycle, and
// the recovery can miss once more), as the real-time tests place theirs
// (Tests/RenderTestSupport/XrunAttribution.swift).
//
// Built by Tools/soak-live: cc -O2 Tools/xrun-watch.c Tests/CHostStallProbe/probe.c
//   -ITests/CHostStallProbe/include -ljack -lpthread
// Exit status: 0 once it reported; 1 when JACK or the probe could not start; 2 usage.
#define _GNU_SOURCE
#include "CHostStallProbe.h"
#include <jack/jack.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { max_xruns = 100000 };

static uint64_t xrun_times[max_xruns];
static atomic_int xrun_count;
static volatile sig_atomic_t stop;
static atomic_int window_end = -1;   // xrun count when SIGUSR1 came

// JACK's notification thread: a stamp per xrun.
static int on_xrun(void *arg) {
    (void)arg;
    int i = atomic_fetch_add(&xrun_count, 1);
    if (i < max_xruns) xrun_times[i] = busker_monotonic_ns();
    return 0;
}

// Every thread of this process so far (JACK's, which deliver the xrun
// callback, included) to SCHED_FIFO 85, so that a stamp is not late by this
// process's own scheduling: only the probe threads (90) outrank them.
static int promote_own_threads(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    struct dirent *task;
    struct sched_param parameter = { .sched_priority = 85 };
    int failed = 0;
    while ((task = readdir(tasks))) {
        if (task->d_name[0] == '.') continue;
        if (sched_setscheduler(atoi(task->d_name), SCHED_FIFO, &parameter) != 0) failed = 1;
    }
    closedir(tasks);
    return failed ? -1 : 0;
}

static void on_signal(int sig) {
    if (sig == SIGUSR1) {
        int expected = -1;
        atomic_compare_exchange_strong(&window_end, &expected, atomic_load(&xrun_count));
    } else {
        stop = 1;
    }
}

int main(int argc, char **argv) {
    long threshold_us = 667, window_ms = 25;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threshold-us") && i + 1 < argc) threshold_us = atol(argv[++i]);
        else if (!strcmp(argv[i], "--window-ms") && i + 1 < argc) window_ms = atol(argv[++i]);
        else { fprintf(stderr, "usage: xrun-watch [--threshold-us N] [--window-ms N]\n"); return 2; }
    }
    jack_status_t status;
    jack_client_t *client = jack_client_open("xrun-watch", JackNoStartServer, &status);
    if (!client) { fprintf(stderr, "xrun-watch: no JACK server (status 0x%x)\n", (unsigned)status); return 1; }
    jack_set_xrun_callback(client, on_xrun, NULL);
    if (jack_activate(client) != 0) { fprintf(stderr, "xrun-watch: jack_activate failed\n"); return 1; }
    if (promote_own_threads() != 0) { fprintf(stderr, "xrun-watch: could not move its threads to SCHED_FIFO: %s\n", strerror(errno)); return 1; }
    int probe = busker_stall_probe_start(1000, (int)threshold_us, 90);
    if (probe != 0) { fprintf(stderr, "xrun-watch: the stall probe did not start: %s\n", strerror(probe)); return 1; }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGUSR1, on_signal);
    uint64_t start = busker_monotonic_ns();
    printf("xrun-watch: running\n");
    fflush(stdout);
    while (!stop) pause();
    jack_deactivate(client);
    jack_client_close(client);
    busker_stall_probe_stop();

    int stalls = busker_stall_probe_count(), xruns = atomic_load(&xrun_count);
    if (atomic_load(&window_end) >= 0) xruns = atomic_load(&window_end);
    if (xruns > max_xruns) xruns = max_xruns;
    double longest = 0;
    for (int s = 0; s < stalls; s++) {
        uint64_t deadline, woke; int cpu;
        if (busker_stall_probe_get(s, &deadline, &woke, &cpu) == 0 && (woke - deadline) / 1e6 > longest) longest = (woke - deadline) / 1e6;
    }
    int off = 0;
    uint64_t window = (uint64_t)window_ms * 1000000u;
    for (int x = 0; x < xruns; x++) {
        uint64_t t = xrun_times[x];
        int on = 0;
        for (int s = 0; s < stalls && !on; s++) {
            uint64_t deadline, woke; int cpu;
            // The stall began before the xrun was reported and ended within the window before it.
            if (busker_stall_probe_get(s, &deadline, &woke, &cpu) == 0 && deadline <= t + 1000000u && woke + window >= t) on = 1;
        }
        if (!on) {
            off++;
            printf("xrun-watch: xrun at %.3f s on no host stall\n", (t - start) / 1e9);
        }
    }
    printf("xrun-watch: %d xruns reported by the JACK server, %d on host CPU stalls, %d off; "
           "host stalls of %ld us or more: %d in %.1f s (%ld wake-ups), longest %.1f ms\n",
           xruns, xruns - off, off, threshold_us, stalls, (busker_monotonic_ns() - start) / 1e9,
           busker_stall_probe_wakeups(), longest);
    return 0;
}
