#pragma once
// A scheduling-latency probe for the real-time tests, in the manner of
// rt-tests' cyclictest: one SCHED_FIFO thread pinned to each online CPU
// wakes on an absolute CLOCK_MONOTONIC deadline every interval and records
// each wake-up that came later than a threshold, with the deadline and the
// wake-up time. A late wake-up of a thread that outranks everything else on
// its CPU means the CPU itself was not running (on a VM: the hypervisor had
// taken the virtual CPU), so every thread pinned there, the JACK server's
// and the render thread included, stood still too.
//
// Why the tests need it: on the shared VMs this project is tested on, such
// stalls reach several milliseconds several times a second (cyclictest,
// priority 80: up to 9 ms), longer than a 64-frame duplex buffer. The tests
// then assert that every xrun they see falls on a stall the probe saw,
// instead of asserting none, which only a quiet host can keep.
//
// Linux only. Elsewhere start fails and nothing is recorded.
#include <stdint.h>

/// Starts the probe threads. `priority` is their SCHED_FIFO priority (put it
/// above every thread under test). Returns 0, or an errno (EPERM without
/// real-time rights, EBUSY when already running).
int busker_stall_probe_start(int interval_us, int threshold_us, int priority);

/// Stops and joins the probe threads; the recorded stalls stay readable
/// until the next start.
void busker_stall_probe_stop(void);

/// Stalls recorded by the last run (up to a fixed capacity per CPU).
int busker_stall_probe_count(void);

/// Stall `index`: the deadline the probe should have woken at and when it
/// did, in CLOCK_MONOTONIC nanoseconds, and its CPU. Returns 0, or -1 for an
/// index out of range.
int busker_stall_probe_get(int index, uint64_t *deadline_ns, uint64_t *woke_ns, int *cpu);

/// Wake-ups the probe made in the last run (all CPUs), late or not.
long busker_stall_probe_wakeups(void);

/// CLOCK_MONOTONIC now, in nanoseconds (the probe's clock).
uint64_t busker_monotonic_ns(void);
