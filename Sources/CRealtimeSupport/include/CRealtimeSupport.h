#pragma once
// Small helpers for the audio thread that Swift cannot express directly.
// All are static inline: no calls, no allocation, safe on the audio thread.

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

/// Sets flush-to-zero and denormals-are-zero on the calling thread, so that
/// decaying filter and reverb states never fall into slow subnormal arithmetic.
/// Realtime: safe.
static inline void busker_enable_flush_to_zero(void) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(_mm_getcsr() | 0x8040); /* FTZ (bit 15) | DAZ (bit 6) */
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    fpcr |= (1UL << 24); /* FZ */
    __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr));
#endif
}

/// Whether flush-to-zero is on for the calling thread. Realtime: safe.
static inline int busker_flush_to_zero_enabled(void) {
#if defined(__x86_64__) || defined(__i386__)
    return (_mm_getcsr() & 0x8000) != 0;
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    return (fpcr & (1UL << 24)) != 0;
#else
    return 0;
#endif
}

#include <stddef.h>

/// Names the calling thread (at most 15 characters are kept). Returns 0 on success.
int busker_set_current_thread_name(const char *name);

/// Copies the calling thread's name into `buffer`. Returns 0 on success.
int busker_get_current_thread_name(char *buffer, size_t size);

#include <stdint.h>
#include <time.h>

/// CLOCK_MONOTONIC in nanoseconds: the clock MIDI sources stamp events with
/// and the audio thread reads at the start of each cycle. Served by the vDSO
/// on Linux, so it does not enter the kernel. Realtime: safe.
static inline uint64_t busker_monotonic_nanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
