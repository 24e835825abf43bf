/*
 * info.c -- `weft info` and `weft cache [clear]`: what weft finds on this
 * machine, printed one fact per line so that a bug report can quote it and
 * a script can grep it. Every line starts with its subject and a colon:
 *
 *   weft 0.1.0
 *   nvrtc: 12.8, /usr/local/cuda/lib64/libnvrtc.so
 *   driver: /lib/x86_64-linux-gnu/libcuda.so.1
 *   device: NVIDIA H100 80GB HBM3, sm_90
 *   kernel cache: /home/me/.cache/weft, 3 entries, 81920 bytes
 *
 * A missing piece reads "not found: <why>" (the message compiling or
 * running would give), or "none" for the device when there is no driver.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "weft.h"

static void print_cache(const wf_system_info *s) {
    if (!s->cache_enabled)
        puts("kernel cache: off (WF_CACHE_DIR is set but empty, or HOME is not set)");
    else
        printf("kernel cache: %s, %lld entries, %lld bytes\n", s->cache_dir,
               (long long)s->cache_entries, (long long)s->cache_bytes);
}

static void print_toolkit(const wf_system_info *s) {
    if (s->nvrtc_found)
        printf("nvrtc: %d.%d, %s\n", s->nvrtc_major, s->nvrtc_minor, s->nvrtc_path);
    else
        printf("nvrtc: not found: %s\n", s->nvrtc_error);
    if (s->driver_found)
        printf("driver: %s\n", s->driver_path);
    else
        printf("driver: not found: %s\n", s->driver_error);
    if (s->device_found)
        printf("device: %s, sm_%d\n", s->device_name, s->device_sm);
    else if (s->driver_found)
        printf("device: none: %s\n", s->driver_error);
    else
        puts("device: none (no driver)");
}

int cli_info(int argc, char **argv) {
    wf_system_info s;
    (void)argv;
    if (argc > 0) {
        fputs("weft: usage: weft info\n", stderr);
        return 2;
    }
    if (wf_system_info_get(&s) != WF_OK)
        return 1;
    printf("weft %s\n", wf_version());
    print_toolkit(&s);
    print_cache(&s);
    return 0;
}

/* `weft cache` shows the cache line of `weft info`; `weft cache clear`
   empties it and says how much went. */
int cli_cache(int argc, char **argv) {
    wf_system_info s;
    int64_t n = 0, bytes = 0;
    bool clear = argc == 1 && strcmp(argv[0], "clear") == 0;
    if (argc > 1 || (argc == 1 && !clear)) {
        fputs("weft: usage: weft cache [clear]\n", stderr);
        return 2;
    }
    if (wf_system_info_get(&s) != WF_OK)
        return 1;
    if (!clear || !s.cache_enabled) {
        print_cache(&s);
        return 0;
    }
    wf_cache_clear(&n, &bytes);
    printf("kernel cache: %s, removed %lld entries, %lld bytes\n", s.cache_dir, (long long)n,
           (long long)bytes);
    if (wf_system_info_get(&s) == WF_OK && s.cache_entries > 0) {
        fprintf(stderr, "weft: %lld entries in %s could not be removed\n",
                (long long)s.cache_entries, s.cache_dir);
        return 1;
    }
    return 0;
}
