#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include "CRealtimeSupport.h"

int busker_set_current_thread_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    return pthread_setname_np(pthread_self(), shortened);
}

int busker_get_current_thread_name(char *buffer, size_t size) {
    return pthread_getname_np(pthread_self(), buffer, size);
}
