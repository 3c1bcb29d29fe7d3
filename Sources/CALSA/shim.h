#pragma once
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// Helpers for the ALSA target that Swift cannot express: ALSA's error handler is a
// C variadic function, which Swift can neither define nor pass.
// The state below is `static`: every object file that uses these helpers gets
// its own copy, so only ALSA/ALSALibrary.swift calls them.

enum { BUSKER_ALSA_MESSAGE_SIZE = 256 };

/// The first message libasound reported on the calling thread since the last take (empty if none).
/// Thread-local, so a listing on one thread never mixes with an open on another.
/// (A function-local static, because Swift's importer emits the functions it
/// uses but not file-scope variables.)
static inline char *busker_alsa_last_message(void) {
    static __thread char message[BUSKER_ALSA_MESSAGE_SIZE];
    return message;
}

static inline void busker_alsa_capture_message(const char *file, int line, const char *function,
                                        int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err;
    // Keep the first message since the last take: libasound reports a
    // failure from the inside out ("cannot find card '0'" … "Unknown PCM
    // default"), and the first line is the cause.
    char *message = busker_alsa_last_message();
    if (message[0] != 0) return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, BUSKER_ALSA_MESSAGE_SIZE, fmt, args);
    va_end(args);
}

/// Routes libasound's diagnostics (normally printed to stderr as several
/// "ALSA lib conf.c:…" lines) into `busker_alsa_last_message`, so Busker can
/// turn a failure into its own one-line error. Not realtime safe (call once, at setup).
static inline int busker_alsa_capture_messages(void) {
    return snd_lib_error_set_handler(busker_alsa_capture_message);
}

/// Restores libasound's default handler (messages to stderr).
static inline int busker_alsa_restore_default_messages(void) {
    return snd_lib_error_set_handler(NULL);
}

/// Copies the calling thread's pending libasound message and clears it.
static inline void busker_alsa_take_last_message(char *buffer, size_t size) {
    if (size == 0) return;
    snprintf(buffer, size, "%s", busker_alsa_last_message());
    busker_alsa_last_message()[0] = 0;
}
