// Optional PAPI counting for the marker library. Every failure (no PAPI in this build, unknown event, an
// event the machine cannot count, as on VMs without counters where PAPI lists presets but PAPI_add_event
// fails) becomes a one-line reason; counting is then off and the program runs on.
#include "state.hpp"

#ifdef ROOFCAST_HAVE_PAPI
#include <papi.h>
#include <pthread.h>
#endif

namespace roofcast::marker::detail {

#ifdef ROOFCAST_HAVE_PAPI
namespace {

std::string papi_message(const std::string& what, int code) {
    return what + ": " + PAPI_strerror(code);
}

unsigned long papi_thread_id() {
    return static_cast<unsigned long>(pthread_self());
}

// Creates an event set with all codes and starts it; returns the set or -1 with the reason in `error`.
int start_event_set(const std::vector<std::string>& names, const std::vector<int>& codes,
                    std::string& error) {
    int set = PAPI_NULL;
    if (int rc = PAPI_create_eventset(&set); rc != PAPI_OK) {
        error = papi_message("PAPI_create_eventset", rc);
        return -1;
    }
    for (std::size_t i = 0; i < codes.size(); ++i) {
        if (int rc = PAPI_add_event(set, codes[i]); rc != PAPI_OK) {
            error = papi_message(names[i], rc);
            PAPI_cleanup_eventset(set);
            PAPI_destroy_eventset(&set);
            return -1;
        }
    }
    if (int rc = PAPI_start(set); rc != PAPI_OK) {
        error = papi_message("PAPI_start", rc);
        PAPI_cleanup_eventset(set);
        PAPI_destroy_eventset(&set);
        return -1;
    }
    return set;
}

} // namespace

PapiSetup papi_setup(const std::vector<std::string>& requested) {
    PapiSetup setup;
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        if (int rc = PAPI_library_init(PAPI_VER_CURRENT); rc != PAPI_VER_CURRENT) {
            setup.error = papi_message("PAPI_library_init", rc);
            return setup;
        }
        if (int rc = PAPI_thread_init(papi_thread_id); rc != PAPI_OK) {
            setup.error = papi_message("PAPI_thread_init", rc);
            return setup;
        }
    }
    for (const std::string& name : requested) {
        int code = 0;
        if (int rc = PAPI_event_name_to_code(name.c_str(), &code); rc != PAPI_OK) {
            setup.error = papi_message(name, rc);
            return setup;
        }
        setup.codes.push_back(code);
    }
    // Try the whole set once on the loading thread, so a machine without counters says so even when the
    // program never opens a region.
    std::string error;
    int set = start_event_set(requested, setup.codes, error);
    if (set < 0) {
        setup.codes.clear();
        setup.error = error;
        return setup;
    }
    std::vector<long long> discard(setup.codes.size());
    PAPI_stop(set, discard.data());
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    setup.events = requested;
    return setup;
}

int papi_thread_start(const PapiSetup& setup, std::string& error) {
    if (int rc = PAPI_register_thread(); rc != PAPI_OK) {
        error = papi_message("PAPI_register_thread", rc);
        return -1;
    }
    return start_event_set(setup.events, setup.codes, error);
}

bool papi_read(int event_set, long long* values) {
    return PAPI_read(event_set, values) == PAPI_OK;
}

#else

PapiSetup papi_setup(const std::vector<std::string>&) {
    PapiSetup setup;
    setup.error = "roofcast-marker was built without PAPI";
    return setup;
}

int papi_thread_start(const PapiSetup&, std::string& error) {
    error = "roofcast-marker was built without PAPI";
    return -1;
}

bool papi_read(int, long long*) {
    return false;
}

#endif

} // namespace roofcast::marker::detail
