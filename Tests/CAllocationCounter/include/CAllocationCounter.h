#pragma once
// Heap-allocation counting for tests, in the manner of swift-nio's
// allocation-counter framework: the test executable defines malloc, free,
// calloc, realloc and the aligned allocators itself (so they take precedence
// over glibc's for every library in the process), forwards each call to
// glibc's own implementation (__libc_malloc and friends), and counts calls
// made on threads that opted in with busker_allocation_counting_begin().
//
// Threads that did not opt in are not counted, so the rest of the test process
// is unaffected. The counters are process-wide C11 atomics: reset them, let
// one or more threads count, then read them.
//
// Linux (glibc) only. Elsewhere the functions exist but nothing is counted.

/// Starts counting the calling thread's allocations and frees.
/// Realtime: safe (sets a thread-local flag).
void busker_allocation_counting_begin(void);

/// Stops counting the calling thread's allocations and frees.
/// Realtime: safe.
void busker_allocation_counting_end(void);

/// Allocations counted since the last reset, on all counting threads:
/// malloc, calloc, realloc (a realloc that moves or grows a block counts as one
/// allocation and one free), posix_memalign, aligned_alloc, memalign, valloc, pvalloc.
long busker_allocation_count(void);

/// Frees counted since the last reset (free of NULL is not counted).
long busker_free_count(void);

/// Sets both counters to zero.
void busker_allocation_counts_reset(void);

/// 1 when the allocator overrides are compiled in (Linux/glibc), else 0.
int busker_allocation_counting_supported(void);
