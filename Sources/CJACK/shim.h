#pragma once
#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/thread.h>

/// jack_client_open without its variadic tail (Swift cannot call C variadic
/// functions): with a server name, JackServerName is added and the name passed;
/// with NULL, the default server ($JACK_DEFAULT_SERVER, else "default").
/// Realtime: unsafe (connects to the server). Control thread.
static inline jack_client_t *busker_jack_client_open(const char *client_name, jack_options_t options,
                                                     jack_status_t *status, const char *server_name) {
    if (server_name != NULL) {
        return jack_client_open(client_name, (jack_options_t)(options | JackServerName), status, server_name);
    }
    return jack_client_open(client_name, options, status);
}
