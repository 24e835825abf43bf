/*
 * cache.c -- compiled kernel images on disk, so a second process running
 * the same fusion does no NVRTC work.
 *
 * An entry lives in $WF_CACHE_DIR (default ~/.cache/weft; set but empty
 * turns the cache off), in a file named by its key: a 64-bit FNV-1a hash of
 * the CUDA source, the target (sm_XXa and the fixed NVRTC options) and the
 * NVRTC that would compile it, written as 16 hex digits. The file is a
 * 40-byte header (magic, format version, sm, key, payload size, FNV-1a
 * checksum of the payload; little-endian) and the image (a cubin, or PTX
 * where NVRTC gives no cubin). Anything that does not check out in full --
 * a short file, a stray byte, another key -- is a miss, never loaded; the
 * caller recompiles and the store replaces it. Stores write a temp file in
 * the same directory and rename it over the entry, so readers see either
 * the old entry or the new one, never half of one.
 */
#include "runtime/cuda_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dl.h"

#define CACHE_MAGIC    "WEFTIMG"    /* 8 bytes with the NUL */
#define CACHE_FORMAT   1u           /* bump when the header or payload changes */
#define CACHE_HEADER   40           /* bytes */
#define CACHE_MAX_SIZE (1ull << 30) /* a larger size field is corruption */
/* rt_nvrtc_compile's fixed options (nvrtc.c): part of what shapes an image. */
#define NVRTC_OPTIONS "-std=c++17 -default-device"

enum { PATH_MAX_LEN = 4096 };

static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#define FNV_BASIS 0xcbf29ce484222325ull

/* Each part is hashed with its NUL, so ("ab","c") and ("a","bc") differ. */
static uint64_t fnv1a_str(uint64_t h, const char *s) {
    return fnv1a(h, s, strlen(s) + 1);
}

uint64_t rt_cache_key(const char *source, int sm, const char *nvrtc_id) {
    char target[64];
    snprintf(target, sizeof target, "sm_%da %s format %u", sm, NVRTC_OPTIONS, CACHE_FORMAT);
    uint64_t h = fnv1a_str(FNV_BASIS, "weft kernel image");
    h = fnv1a_str(h, source);
    h = fnv1a_str(h, target);
    return fnv1a_str(h, nvrtc_id);
}

/* ---- which NVRTC ---- */

/* Opening the 100 MB NVRTC library to ask its version costs 7-15 ms, more
   than the whole warm path, so we identify it by the file that dl.c would
   open first ($CUDA_HOME/lib64, then /usr/local/cuda/lib64, libnvrtc.so):
   its path, size and modification time change whenever the version does. */
static bool nvrtc_file_id(const char *home, char *id, size_t idsize) {
    char path[PATH_MAX_LEN];
    struct stat st;
    int n = snprintf(path, sizeof path, "%s/lib64/libnvrtc.so", home);
    if (n < 0 || (size_t)n >= sizeof path || stat(path, &st) != 0)
        return false;
    snprintf(id, idsize, "file %s %lld %lld", path, (long long)st.st_size, (long long)st.st_mtime);
    return true;
}

typedef int (*nvrtc_version_fn)(int *major, int *minor);

/* Where NVRTC comes only from the loader's path, ask it (nvrtc.c's names). */
static bool nvrtc_version_id(char *id, size_t idsize) {
    static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                        "libnvrtc.so.11.2"};
    void *lib = dl_open_cuda_lib(names, 4, NULL, 0);
    void *sym = dl_sym(lib, "nvrtcVersion");
    nvrtc_version_fn version;
    int major = 0, minor = 0;
    bool ok = sym != NULL;
    if (ok) {
        memcpy(&version, &sym, sizeof version);
        ok = version(&major, &minor) == 0;
    }
    dl_close(lib);
    if (ok)
        snprintf(id, idsize, "version %d.%d", major, minor);
    return ok;
}

bool rt_cache_nvrtc_id(char *id, size_t idsize) {
    const char *home = getenv("CUDA_HOME");
    if (home && home[0] && nvrtc_file_id(home, id, idsize))
        return true;
    return nvrtc_file_id("/usr/local/cuda", id, idsize) || nvrtc_version_id(id, idsize);
}

/* ---- where ---- */

/* The cache directory, created if missing; false when the cache is off
   (WF_CACHE_DIR set but empty, or no HOME) or cannot be made. */
static bool cache_dir(char *dir, size_t size, bool create) {
    const char *env = getenv("WF_CACHE_DIR");
    const char *home = getenv("HOME");
    int n;
    if (env)
        n = snprintf(dir, size, "%s", env);
    else if (home && home[0])
        n = snprintf(dir, size, "%s/.cache/weft", home);
    else
        return false;
    if (n <= 0 || (size_t)n >= size)
        return false;
    if (!create)
        return true;
    /* mkdir -p: each prefix in turn, an existing one is fine. */
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int r = mkdir(dir, 0755);
        *p = '/';
        if (r != 0 && errno != EEXIST)
            return false;
    }
    return mkdir(dir, 0755) == 0 || errno == EEXIST;
}

bool rt_cache_dir(char *dir, size_t size) {
    return cache_dir(dir, size, false);
}

static bool entry_path(char *path, size_t size, uint64_t key, bool create) {
    char dir[PATH_MAX_LEN - 64];
    if (!cache_dir(dir, sizeof dir, create))
        return false;
    int n = snprintf(path, size, "%s/weft-%016llx.bin", dir, (unsigned long long)key);
    return n > 0 && (size_t)n < size;
}

/* ---- the header ---- */

typedef struct {
    uint32_t format, sm;
    uint64_t key, size, sum;
} header;

static void put_le(unsigned char *p, uint64_t v, int nbytes) {
    for (int i = 0; i < nbytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int nbytes) {
    uint64_t v = 0;
    for (int i = nbytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void encode(unsigned char *b, const header *h) {
    memcpy(b, CACHE_MAGIC, 8);
    put_le(b + 8, h->format, 4);
    put_le(b + 12, h->sm, 4);
    put_le(b + 16, h->key, 8);
    put_le(b + 24, h->size, 8);
    put_le(b + 32, h->sum, 8);
}

/* Decode b and check it describes the entry we asked for. */
static bool decode(const unsigned char *b, header *h, uint64_t key, int sm) {
    if (memcmp(b, CACHE_MAGIC, 8) != 0)
        return false;
    h->format = (uint32_t)get_le(b + 8, 4);
    h->sm = (uint32_t)get_le(b + 12, 4);
    h->key = get_le(b + 16, 8);
    h->size = get_le(b + 24, 8);
    h->sum = get_le(b + 32, 8);
    return h->format == CACHE_FORMAT && h->sm == (uint32_t)sm && h->key == key && h->size > 0 &&
           h->size <= CACHE_MAX_SIZE;
}

/* ---- load ---- */

static bool read_all(FILE *f, void *buf, size_t n) {
    return fread(buf, 1, n, f) == n;
}

/* The payload of an open entry whose header checked out: exactly h->size
   bytes must follow, with the right checksum. */
static void *read_payload(FILE *f, const header *h) {
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size != CACHE_HEADER + h->size)
        return NULL;
    void *data = malloc((size_t)h->size);
    if (!data)
        return NULL;
    if (!read_all(f, data, (size_t)h->size) || fnv1a(FNV_BASIS, data, (size_t)h->size) != h->sum) {
        free(data);
        return NULL;
    }
    return data;
}

bool rt_cache_load(uint64_t key, int sm, void **data, size_t *size) {
    char path[PATH_MAX_LEN];
    unsigned char b[CACHE_HEADER];
    header h = {0, 0, 0, 0, 0};
    *data = NULL;
    *size = 0;
    if (!entry_path(path, sizeof path, key, false))
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    if (read_all(f, b, sizeof b) && decode(b, &h, key, sm))
        *data = read_payload(f, &h);
    fclose(f);
    if (!*data)
        return false;
    *size = (size_t)h.size;
    return true;
}

/* ---- store ---- */

static bool write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static bool write_entry(int fd, uint64_t key, int sm, const void *data, size_t size) {
    unsigned char b[CACHE_HEADER];
    header h = {CACHE_FORMAT, (uint32_t)sm, key, size, fnv1a(FNV_BASIS, data, size)};
    encode(b, &h);
    return write_all(fd, b, sizeof b) && write_all(fd, data, size);
}

void rt_cache_store(uint64_t key, int sm, const void *data, size_t size) {
    char path[PATH_MAX_LEN], tmp[PATH_MAX_LEN + 16];
    if (!data || size == 0 || size > CACHE_MAX_SIZE || !entry_path(path, sizeof path, key, true))
        return;
    /* The temp file sits beside the entry: rename is atomic only within
       one file system. */
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return;
    bool ok = write_entry(fd, key, sm, data, size);
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}
