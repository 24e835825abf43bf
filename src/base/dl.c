/*
 * dl.c -- find and open a CUDA library without linking against it.
 *
 * The toolkit is usually not on the loader's path (it lives in
 * /usr/local/cuda/lib64 or wherever $CUDA_HOME points), so a bare dlopen of
 * "libnvrtc.so" fails on most machines that have it. We therefore try the
 * explicit toolkit directories first and the loader path last, for each
 * soname the caller lists (the unversioned name first, since it follows the
 * installed toolkit, then specific major versions). Nothing here keeps
 * state: every call is independent and safe from any thread.
 */
#define _POSIX_C_SOURCE 200809L

#include "base/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Generous; a longer $CUDA_HOME is skipped rather than truncated, since a
   truncated path could open the wrong file. */
#define DL_PATH_MAX 4096

/* Resolve everything now so a broken install fails here rather than at a
   later call, and keep the library's symbols out of the global namespace.
   RTLD_NODELETE keeps the library mapped after the last dl_close: callers
   open and close per use, and libnvrtc (which carries its own C++ runtime)
   leaks ~70 KB each time it is unloaded and loaded again; with NODELETE a
   reopen is a reference-count bump instead. */
#ifdef RTLD_NODELETE
#define DL_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
#else
#define DL_FLAGS (RTLD_NOW | RTLD_LOCAL)
#endif

static void *try_open(const char *path, char *lasterr, size_t lasterrsize) {
    void *h = dlopen(path, DL_FLAGS);
    if (!h) {
        const char *e = dlerror();
        snprintf(lasterr, lasterrsize, "%s", e ? e : "unknown dlopen error");
    }
    return h;
}

static void *try_in_dir(const char *dir, const char *soname, char *lasterr, size_t lasterrsize) {
    char path[DL_PATH_MAX];
    int n;

    if (!dir || !dir[0])
        return NULL;
    n = snprintf(path, sizeof path, "%s/lib64/%s", dir, soname);
    if (n < 0 || (size_t)n >= sizeof path)
        return NULL;
    return try_open(path, lasterr, lasterrsize);
}

/* The library's family name for the message: "libnvrtc.so.12" -> "libnvrtc". */
static size_t base_name_len(const char *soname) {
    const char *dot = strstr(soname, ".so");
    return dot ? (size_t)(dot - soname) : strlen(soname);
}

/* Append to err without ever overflowing; a full buffer silently truncates,
   which is acceptable for a diagnostic. */
static void append(char *err, size_t errsize, const char *s, size_t slen) {
    size_t used = strlen(err);
    size_t room;

    if (used + 1 >= errsize)
        return;
    room = errsize - used - 1;
    if (slen > room)
        slen = room;
    memcpy(err + used, s, slen);
    err[used + slen] = '\0';
}

static void append_str(char *err, size_t errsize, const char *s) {
    append(err, errsize, s, strlen(s));
}

void *dl_open_cuda_lib(const char *const *sonames, int nnames, char *err, size_t errsize) {
    char lasterr[512] = "";
    const char *cuda_home = getenv("CUDA_HOME");
    const char *std_home = "/usr/local/cuda";
    int i;

    if (err && errsize > 0)
        err[0] = '\0';
    if (!sonames || nnames <= 0) {
        if (err && errsize > 0)
            snprintf(err, errsize, "no library names given");
        return NULL;
    }

    /* $CUDA_HOME equal to the standard location would only repeat the same
       dlopen, so try it once. */
    if (cuda_home && strcmp(cuda_home, std_home) == 0)
        cuda_home = NULL;

    for (i = 0; i < nnames; i++) {
        const char *so = sonames[i];
        void *h;

        if (!so || !so[0])
            continue;
        if ((h = try_in_dir(cuda_home, so, lasterr, sizeof lasterr)) != NULL)
            return h;
        if ((h = try_in_dir(std_home, so, lasterr, sizeof lasterr)) != NULL)
            return h;
        if ((h = try_open(so, lasterr, sizeof lasterr)) != NULL)
            return h;
    }

    if (err && errsize > 0) {
        const char *first = sonames[0] ? sonames[0] : "library";
        int listed = 0;

        append_str(err, errsize, "could not load ");
        append(err, errsize, first, base_name_len(first));
        append_str(err, errsize, " (tried ");
        for (i = 0; i < nnames; i++) {
            if (!sonames[i] || !sonames[i][0])
                continue;
            if (listed++ > 0)
                append_str(err, errsize, ", ");
            append_str(err, errsize, sonames[i]);
        }
        append_str(err, errsize, " in ");
        if (cuda_home && cuda_home[0]) {
            append_str(err, errsize, cuda_home);
            append_str(err, errsize, "/lib64, ");
        }
        append_str(err, errsize, std_home);
        append_str(err, errsize, "/lib64 and the loader path)");
        if (lasterr[0]) {
            append_str(err, errsize, ": ");
            append_str(err, errsize, lasterr);
        }
    }
    return NULL;
}

void *dl_sym(void *handle, const char *name) {
    if (!handle || !name)
        return NULL;
    return dlsym(handle, name);
}

void dl_close(void *handle) {
    if (handle)
        dlclose(handle);
}
