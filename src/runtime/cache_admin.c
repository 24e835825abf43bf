/*
 * cache_admin.c -- looking at and emptying the disk cache of kernel images
 * (`weft info`, `weft cache clear`).
 *
 * cache.c names every entry "weft-<16 hex digits>.bin" and writes it
 * through a temp file "weft-<hex>.bin.XXXXXX" renamed over it; a process
 * killed between the two leaves the temp file behind. Both are weft's and
 * are counted and removed here. Nothing else in the directory is touched:
 * $WF_CACHE_DIR may point at a directory that holds other files too.
 */
#include "runtime/cuda_int.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { ENTRY_PATH_MAX = 4096 };

static bool is_hex(const char *s, int n) {
    for (int i = 0; i < n; i++)
        if (!strchr("0123456789abcdef", s[i]) || s[i] == '\0')
            return false;
    return true;
}

/* "weft-" 16 hex ".bin", optionally followed by a temp file's ".XXXXXX". */
static bool is_entry_name(const char *name) {
    if (strncmp(name, "weft-", 5) != 0 || !is_hex(name + 5, 16))
        return false;
    const char *rest = name + 21;
    return strcmp(rest, ".bin") == 0 || (strncmp(rest, ".bin.", 5) == 0 && strlen(rest) == 11);
}

void rt_cache_scan(const char *dir, bool remove, int64_t *entries, int64_t *bytes) {
    char path[ENTRY_PATH_MAX];
    struct dirent *de;
    struct stat st;
    *entries = *bytes = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        int n = snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (!is_entry_name(de->d_name) || n <= 0 || (size_t)n >= sizeof path ||
            lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (remove && unlink(path) != 0)
            continue;
        *entries += 1;
        *bytes += (int64_t)st.st_size;
    }
    closedir(d);
}

void rt_cache_clear(int64_t *entries, int64_t *bytes) {
    char dir[ENTRY_PATH_MAX];
    *entries = *bytes = 0;
    if (rt_cache_dir(dir, sizeof dir))
        rt_cache_scan(dir, true, entries, bytes);
}
