// Allocation counter for tests. See include/CAllocationCounter.h.
//
// How it works on Linux/glibc: this object file is linked into the test
// executable, which therefore defines malloc & co. The executable comes first
// in the dynamic linker's symbol search order, so every malloc call in the
// process (Swift runtime, Foundation, libc itself through its PLT) lands here.
// We forward to glibc's real allocator through its exported __libc_* entry
// points, which never call back into malloc, so there is no recursion and no
// dlsym bootstrap problem. Memory from one path can be freed by the other:
// it is all the same glibc heap.

#include "CAllocationCounter.h"

#include <errno.h> // any libc header, so that __GLIBC__ is defined for the check below
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)

#include <stdatomic.h>

// glibc's implementations, exported by libc.so.6 for exactly this purpose.
extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

// Initial-exec TLS: a fixed offset from the thread pointer, no
// __tls_get_addr call and hence no allocation on first access.
static __thread int counting_enabled __attribute__((tls_model("initial-exec")));

static atomic_long allocation_count;
static atomic_long free_count;

static inline void count_allocation(void) {
    if (__builtin_expect(counting_enabled, 0)) {
        atomic_fetch_add_explicit(&allocation_count, 1, memory_order_relaxed);
    }
}

static inline void count_free(void) {
    if (__builtin_expect(counting_enabled, 0)) {
        atomic_fetch_add_explicit(&free_count, 1, memory_order_relaxed);
    }
}

#define BUSKER_EXPORT __attribute__((visibility("default"), used))

BUSKER_EXPORT void *malloc(size_t size) {
    count_allocation();
    return __libc_malloc(size);
}

BUSKER_EXPORT void free(void *ptr) {
    if (ptr != NULL) count_free();
    __libc_free(ptr);
}

BUSKER_EXPORT void *calloc(size_t count, size_t size) {
    count_allocation();
    return __libc_calloc(count, size);
}

BUSKER_EXPORT void *realloc(void *ptr, size_t size) {
    if (ptr == NULL) {
        count_allocation(); // realloc(NULL, n) is malloc(n)
    } else if (size == 0) {
        count_free(); // glibc frees and returns NULL
    } else {
        count_allocation(); // may move or grow the block: heap work either way
        count_free();
    }
    return __libc_realloc(ptr, size);
}

static inline int is_power_of_two(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

BUSKER_EXPORT int posix_memalign(void **result, size_t alignment, size_t size) {
    if (!is_power_of_two(alignment) || alignment % sizeof(void *) != 0) return EINVAL;
    count_allocation();
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *result = p;
    return 0;
}

BUSKER_EXPORT void *aligned_alloc(size_t alignment, size_t size) {
    // glibc 2.36 accepts any power-of-two alignment (C17 relaxed the size rule).
    if (!is_power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    count_allocation();
    return __libc_memalign(alignment, size);
}

BUSKER_EXPORT void *memalign(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

BUSKER_EXPORT void *valloc(size_t size) {
    count_allocation();
    return __libc_valloc(size);
}

BUSKER_EXPORT void *pvalloc(size_t size) {
    count_allocation();
    return __libc_pvalloc(size);
}

void busker_allocation_counting_begin(void) { counting_enabled = 1; }
void busker_allocation_counting_end(void) { counting_enabled = 0; }

long busker_allocation_count(void) {
    return atomic_load_explicit(&allocation_count, memory_order_acquire);
}

long busker_free_count(void) {
    return atomic_load_explicit(&free_count, memory_order_acquire);
}

void busker_allocation_counts_reset(void) {
    atomic_store_explicit(&allocation_count, 0, memory_order_release);
    atomic_store_explicit(&free_count, 0, memory_order_release);
}

int busker_allocation_counting_supported(void) { return 1; }

#else // not Linux/glibc: no overrides, nothing counted.

void busker_allocation_counting_begin(void) {}
void busker_allocation_counting_end(void) {}
long busker_allocation_count(void) { return 0; }
long busker_free_count(void) { return 0; }
void busker_allocation_counts_reset(void) {}
int busker_allocation_counting_supported(void) { return 0; }

#endif
